package writer

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// levelStep is one node on a leaf's path, bound to the Arrow array that
// holds that node's values in the current batch.
type levelStep struct {
	node *schemaNode
	// missing marks a column the batch does not have: all null.
	missing bool
	// valid is the validity bitmap (nil when nothing is null) and offset the
	// array's offset into it.
	valid  []byte
	offset int
	// offsets of a list or map, already shifted by the array's offset.
	offsets32 []int32
	offsets64 []int64
}

func (s *levelStep) isNull(i int) bool {
	return s.missing || (s.valid != nil && !bitutil.BitIsSet(s.valid, s.offset+i))
}

func (s *levelStep) span(i int) (int, int) {
	if s.offsets32 != nil {
		return int(s.offsets32[i]), int(s.offsets32[i+1])
	}
	return int(s.offsets64[i]), int(s.offsets64[i+1])
}

// levelBuffer holds the Dremel levels of one leaf for a run of rows: per
// level entry the repetition and definition level and the index of the
// value in the leaf's Arrow array (-1 for a null or empty collection).
type levelBuffer struct {
	reps []byte
	defs []byte
	idx  []int32
}

func (b *levelBuffer) reset() {
	b.reps, b.defs, b.idx = b.reps[:0], b.defs[:0], b.idx[:0]
}

func (b *levelBuffer) push(rep, def int, idx int32) {
	b.reps = append(b.reps, byte(rep))
	b.defs = append(b.defs, byte(def))
	b.idx = append(b.idx, idx)
}

// bindSteps binds a leaf's path to a batch: arrays[k] is the array of the
// path's k-th node, nil when the batch lacks it. Arrays that come through
// the C Data Interface are not trusted: bitmaps and offsets are checked
// against the buffers they index, so bad input is an error, not a crash.
func bindSteps(steps []levelStep, leaf *leafColumn, arrays []arrow.Array) ([]levelStep, error) {
	steps = steps[:0]
	for k, n := range leaf.path {
		s := levelStep{node: n}
		a := arrays[k]
		if a == nil {
			s.missing = true
			steps = append(steps, s)
			continue
		}
		s.offset = a.Data().Offset()
		if a.NullN() > 0 {
			s.valid = a.NullBitmapBytes()
			if len(s.valid)*8 < s.offset+a.Len() {
				return nil, badArray(n, "validity bitmap is too short")
			}
		}
		var childLen int
		if k+1 < len(arrays) && arrays[k+1] != nil {
			childLen = arrays[k+1].Len()
		}
		switch l := a.(type) {
		case *array.List:
			s.offsets32 = l.Offsets()[s.offset:]
		case *array.Map:
			s.offsets32 = l.Offsets()[s.offset:]
		case *array.LargeList:
			s.offsets64 = l.Offsets()[s.offset:]
		}
		if n.kind == kindStruct && k+1 < len(arrays) && arrays[k+1] != nil && childLen < a.Len() {
			return nil, badArray(n, "a struct field is shorter than the struct")
		}
		if n.kind == kindList || n.kind == kindMap {
			if !offsetsValid(s.offsets32, s.offsets64, a.Len(), childLen) {
				return nil, badArray(n, "list offsets are out of order or beyond the values")
			}
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// offsetsValid checks n+1 ascending offsets within [0, limit].
func offsetsValid(o32 []int32, o64 []int64, n, limit int) bool {
	if o32 != nil {
		if len(o32) < n+1 || o32[0] < 0 || int(o32[n]) > limit {
			return false
		}
		for i := 0; i < n; i++ {
			if o32[i] > o32[i+1] {
				return false
			}
		}
		return true
	}
	if len(o64) < n+1 || o64[0] < 0 || o64[n] > int64(limit) {
		return false
	}
	for i := 0; i < n; i++ {
		if o64[i] > o64[i+1] {
			return false
		}
	}
	return true
}

func badArray(n *schemaNode, why string) error {
	return fmt.Errorf("column %q (id %d): malformed Arrow array: %s", n.field.Name, n.field.ID, why)
}

// fill computes the levels of the given rows (rows[i], or first+i when rows
// is nil, for n rows) of the leaf whose path is bound in steps.
func (b *levelBuffer) fill(steps []levelStep, leaf *leafColumn, rows []int32, first, n int) error {
	b.reset()
	if len(steps) == 1 {
		return b.fillFlat(&steps[0], leaf, rows, first, n)
	}
	for k := 0; k < n; k++ {
		r := first + k
		if rows != nil {
			r = int(rows[k])
		}
		if err := b.walk(steps, 0, r, 0, 0); err != nil {
			return err
		}
	}
	return nil
}

// fillFlat is fill for a top-level primitive column, the common case.
func (b *levelBuffer) fillFlat(s *levelStep, leaf *leafColumn, rows []int32, first, n int) error {
	b.reps = grow(b.reps, n)
	b.defs = grow(b.defs, n)
	b.idx = grow(b.idx, n)
	clear(b.reps)
	optional := s.node.optional()
	maxDef := byte(leaf.maxDef)
	if s.missing {
		if !optional {
			return requiredNull(s.node)
		}
		for k := range n {
			b.defs[k], b.idx[k] = 0, -1
		}
		return nil
	}
	for k := range n {
		r := first + k
		if rows != nil {
			r = int(rows[k])
		}
		b.idx[k] = int32(r)
		b.defs[k] = maxDef
	}
	if s.valid == nil {
		return nil
	}
	if !optional {
		return requiredNull(s.node)
	}
	for k := range n {
		if !bitutil.BitIsSet(s.valid, s.offset+int(b.idx[k])) {
			b.defs[k], b.idx[k] = 0, -1
		}
	}
	return nil
}

// walk emits the level entries of element i of the array at step k, whose
// first entry takes repetition level rep, with def the definition level
// its parent reached.
func (b *levelBuffer) walk(steps []levelStep, k, i, rep, def int) error {
	s := &steps[k]
	n := s.node
	if s.isNull(i) {
		if !n.optional() {
			return requiredNull(n)
		}
		b.push(rep, def, -1)
		return nil
	}
	def = n.def
	switch n.kind {
	case kindPrimitive:
		b.push(rep, def, int32(i))
	case kindStruct:
		return b.walk(steps, k+1, i, rep, def)
	case kindList, kindMap:
		start, end := s.span(i)
		if start == end {
			b.push(rep, def, -1)
			return nil
		}
		for j := start; j < end; j++ {
			if err := b.walk(steps, k+1, j, rep, n.elemDef); err != nil {
				return err
			}
			rep = n.elemRep
		}
	}
	return nil
}

// requiredNull is the error for a null (or missing) value of a required
// field.
func requiredNull(n *schemaNode) error {
	return fmt.Errorf("column %q (id %d) is required but the batch holds a null for it", n.field.Name, n.field.ID)
}

// grow returns s with length n, reusing its memory when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
