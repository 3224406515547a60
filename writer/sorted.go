package writer

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// Sorted writes. With a sort order (Options.SortOrder), the writer holds
// the batches it is given, up to Options.SortBufferSize bytes of Arrow
// memory, then writes them at once: the rows of each partition sorted by
// the order, into files of their own that are finished there, so every
// file's rows are in order (files are not ordered among themselves, nor
// are two flushes' files). This is what Java's Spark writes do per task,
// without the spill to disk: memory is bounded by the buffer, and about
// twice it while a flush concatenates the batches. A writer given less
// than the buffer writes each partition's rows as one sorted run at Close.
//
// Keys are computed column by column with the partition transforms'
// unboxed kernels (partition_key.go); the permutation is a stable sort of
// row indexes comparing those typed keys, and it is handed to the leaf
// writers, which already gather rows by index from the Arrow buffers, so
// no sorted copy of the batch is materialised (as kernels.Take would).

// DefaultSortBufferSize is the Arrow bytes a sorted writer holds before
// it sorts and writes them.
const DefaultSortBufferSize = 256 << 20

// sortKey is one field of the sort order bound to its source column.
type sortKey struct {
	src        *partitionSource
	desc       bool
	nullsFirst bool
	// ordered holds numeric keys mapped so unsigned order is the sort
	// order (ints with the sign bit flipped, floats by the spec's total
	// order); byte keys compare as unsigned bytes, decimals with their
	// sign bit flipped in place.
	ordered []uint64
	kind    sortKind
}

type sortKind uint8

const (
	sortInt sortKind = iota
	sortFloat32
	sortFloat64
	sortBytes
	sortDecimal
)

// sorter buffers a sorted writer's batches and orders their rows.
type sorter struct {
	orderID int
	keys    []*sortKey
	batches []arrow.RecordBatch
	bytes   int64
	limit   int64
	all     []int32 // 0..n-1, for a partition holding every row
}

func newSorter(order *iceberg.SortOrder, schema *iceberg.Schema, fs *fileSchema, limit int64) (*sorter, error) {
	s := &sorter{orderID: order.OrderID, limit: limit}
	for i, f := range order.Fields {
		if _, void := f.Transform.(iceberg.VoidTransform); void {
			continue
		}
		what := fmt.Sprintf("sort order %d field %d", order.OrderID, i)
		src, err := newTransformSource(iceberg.PartitionField{SourceID: f.SourceID, Transform: f.Transform, Name: what}, schema, fs, what)
		if err != nil {
			return nil, err
		}
		k := &sortKey{src: src, desc: f.Direction == "desc", nullsFirst: f.NullOrder == "nulls-first"}
		switch rt := src.resultType.(type) {
		case iceberg.FloatType:
			k.kind = sortFloat32
		case iceberg.DoubleType:
			k.kind = sortFloat64
		case iceberg.DecimalType:
			k.kind = sortDecimal
		case iceberg.GeometryType, iceberg.GeographyType, iceberg.VariantType:
			return nil, errkind.Errorf(errkind.Unsupported, "%s: %s values have no order to sort by", what, rt)
		default:
			if src.isBytes() {
				k.kind = sortBytes
			}
		}
		s.keys = append(s.keys, k)
	}
	return s, nil
}

// add holds rec (retained); full reports that the buffer reached its
// limit and should be written.
func (s *sorter) add(rec arrow.RecordBatch) (full bool) {
	rec.Retain()
	s.batches = append(s.batches, rec)
	for _, c := range rec.Columns() {
		s.bytes += dataBytes(c.Data())
	}
	return s.bytes >= s.limit
}

// take hands out the held batches as one (the caller releases it), or
// nil when none are held.
func (s *sorter) take() (arrow.RecordBatch, error) {
	batches := s.batches
	s.batches, s.bytes = nil, 0
	switch len(batches) {
	case 0:
		return nil, nil
	case 1:
		return batches[0], nil
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	schema := batches[0].Schema()
	cols := make([]arrow.Array, len(schema.Fields()))
	parts := make([]arrow.Array, len(batches))
	var rows int64
	for _, b := range batches {
		rows += b.NumRows()
	}
	for i := range cols {
		for j, b := range batches {
			parts[j] = b.Column(i)
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, fmt.Errorf("writer: joining %d batches to sort: %w", len(batches), err)
		}
		cols[i] = c
	}
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// sameSchema reports whether rec can join the held batches.
func (s *sorter) sameSchema(rec arrow.RecordBatch) bool {
	return len(s.batches) == 0 || s.batches[0].Schema() == rec.Schema() || s.batches[0].Schema().Equal(rec.Schema())
}

// release drops the held batches.
func (s *sorter) release() {
	for _, b := range s.batches {
		b.Release()
	}
	s.batches, s.bytes = nil, 0
}

// compute binds the keys to a batch of n rows and computes them all.
func (s *sorter) compute(rec arrow.RecordBatch, fs *fileSchema, b *batchBinding, n int) error {
	for _, k := range s.keys {
		if err := k.src.bind(rec, fs, b); err != nil {
			return err
		}
		if err := k.src.compute(nil, 0, n); err != nil {
			return err
		}
		k.prepare(n)
	}
	return nil
}

// prepare maps the computed keys to their orderable forms.
func (k *sortKey) prepare(n int) {
	c := &k.src.result
	switch k.kind {
	case sortBytes:
		return
	case sortDecimal:
		// 16 big-endian two's complement bytes, the writer's own copy
		// (appendDecimal): flipping the sign bit makes them unsigned-ordered.
		for i := range n {
			if !c.null[i] {
				c.bytes[i][0] ^= 0x80
			}
		}
		return
	}
	k.ordered = grow(k.ordered, n)
	for i := range n {
		v := uint64(c.num[i])
		switch k.kind {
		case sortFloat32:
			v = orderedFloatBits(uint64(uint32(v))<<32, 1<<63)
		case sortFloat64:
			v = orderedFloatBits(v, 1<<63)
		default:
			v ^= 1 << 63
		}
		k.ordered[i] = v
	}
}

// orderedFloatBits maps IEEE bits (sign at signBit) so that unsigned order
// is the spec's float order: -NaN < -Inf < … < -0 < 0 < … < Inf < NaN
// (the transforms give every NaN as the positive canonical one).
func orderedFloatBits(v, signBit uint64) uint64 {
	if v&signBit != 0 {
		return ^v
	}
	return v | signBit
}

// order sorts rows (indexes into the computed batch) by the keys, stably,
// so rows equal by the order keep their input order.
func (s *sorter) order(rows []int32) {
	slices.SortStableFunc(rows, func(a, b int32) int {
		for _, k := range s.keys {
			if c := k.compare(a, b); c != 0 {
				return c
			}
		}
		return 0
	})
}

func (k *sortKey) compare(a, b int32) int {
	c := &k.src.result
	if na, nb := c.null[a], c.null[b]; na || nb {
		switch {
		case na && nb:
			return 0
		case na == k.nullsFirst:
			return -1
		default:
			return 1
		}
	}
	var r int
	if k.kind == sortBytes || k.kind == sortDecimal {
		r = bytes.Compare(c.bytes[a], c.bytes[b])
	} else {
		r = cmp.Compare(k.ordered[a], k.ordered[b])
	}
	if k.desc {
		return -r
	}
	return r
}

// rowsOf is the rows of a partition to sort: its own, or every row.
func (s *sorter) rowsOf(st *partitionState, n int) []int32 {
	if !st.all {
		return st.rows
	}
	s.all = grow(s.all, n)
	for i := range s.all {
		s.all[i] = int32(i)
	}
	return s.all
}

// dataBytes is the memory an array's buffers hold (all of each buffer, even
// when the array is a slice of it: what holding it keeps alive).
func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}
