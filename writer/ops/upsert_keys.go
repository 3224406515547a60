package ops

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/kernels"
)

// upsertInput is an upsert's input held in memory, its keys in a lookup
// of global row numbers.
type upsertInput struct {
	batches []arrow.RecordBatch
	// starts[b] is batch b's first global row; starts[len] the row count.
	starts []int
	// keyCols are the key columns' indexes in the input batches, in
	// JoinCols order; keys holds them per batch.
	keyCols []int
	keys    []*kernels.Keys
	// lookup finds a row by its key.
	lookup *keyLookup
	// batchOf is each global row's batch.
	batchOf []int32
	// lo, hi bound each key column that holds signed integers (ranged);
	// firsts are the first key's values, row by row, when it is ranged.
	ranged []bool
	lo, hi []int64
	firsts []int64
}

// upsertHashSeed seeds the key hash: both sides of the join use it.
const upsertHashSeed = 0x6a09e667f3bcc908

// joinFields resolves the key columns: names (matched to the schema, by
// case when caseInsensitive is false), else the identifier fields. Each
// must be a top-level primitive column.
func joinFields(schema *iceberg.Schema, names []string, caseInsensitive bool) ([]iceberg.NestedField, error) {
	var out []iceberg.NestedField
	if len(names) == 0 {
		if len(schema.IdentifierFieldIDs) == 0 {
			return nil, errkind.Errorf(errkind.InvalidArgument, "no join columns given and the schema has no identifier fields")
		}
		for _, id := range schema.IdentifierFieldIDs {
			f, ok := schema.FindField(id)
			if !ok {
				return nil, errkind.Errorf(errkind.InvalidArgument, "identifier field id %d is not in the schema", id)
			}
			out = append(out, f)
		}
	}
	top := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		top[i] = f.Name
	}
	for _, n := range names {
		var f iceberg.NestedField
		found := false
		for _, g := range schema.Fields {
			if g.Name == n || (caseInsensitive && strings.EqualFold(g.Name, n)) {
				f, found = g, true
				break
			}
		}
		if !found {
			return nil, errkind.Errorf(errkind.InvalidArgument, "join column: %w", iceberg.UnknownColumn("", n, top))
		}
		out = append(out, f)
	}
	seen := map[int]bool{}
	for _, f := range out {
		if seen[f.ID] {
			return nil, errkind.Errorf(errkind.InvalidArgument, "join column %q is given twice", f.Name)
		}
		seen[f.ID] = true
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			return nil, errkind.Errorf(errkind.InvalidArgument, "join column %q is a %s, not a primitive", f.Name, f.Type)
		}
		if !isTopLevel(schema, f.ID) {
			return nil, errkind.Errorf(errkind.InvalidArgument, "join column %q is not a top-level column", f.Name)
		}
	}
	return out, nil
}

func isTopLevel(schema *iceberg.Schema, id int) bool {
	for _, f := range schema.Fields {
		if f.ID == id {
			return true
		}
	}
	return false
}

// readUpsertInput reads rr whole, checks its columns against schema (a
// column the table lacks is refused naming the closest, as the writer
// would; every key column must be there and hold no null), hashes its
// keys and refuses a key given twice.
func readUpsertInput(rr array.RecordReader, schema *iceberg.Schema, keys []iceberg.NestedField) (*upsertInput, error) {
	in := &upsertInput{}
	as := rr.Schema()
	top := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		top[i] = f.Name
	}
	for _, f := range as.Fields() {
		if _, ok := schema.FindFieldByName(f.Name); !ok || !isTopLevelName(schema, f.Name) {
			return nil, iceberg.UnknownColumn("", f.Name, top)
		}
	}
	for _, k := range keys {
		idx := as.FieldIndices(k.Name)
		if len(idx) != 1 {
			return nil, errkind.Errorf(errkind.InvalidArgument, "join column %q is not in the input", k.Name)
		}
		in.keyCols = append(in.keyCols, idx[0])
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().Equal(as) {
			in.release()
			return nil, errkind.Errorf(errkind.InvalidArgument, "the input's batches change schema")
		}
		if rec.NumRows() == 0 {
			continue
		}
		rec.Retain()
		in.batches = append(in.batches, rec)
	}
	if err := rr.Err(); err != nil {
		in.release()
		return nil, fmt.Errorf("read the input: %w", err)
	}
	if err := in.index(keys); err != nil {
		in.release()
		return nil, err
	}
	return in, nil
}

func isTopLevelName(schema *iceberg.Schema, name string) bool {
	for _, f := range schema.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

func (in *upsertInput) release() {
	for _, b := range in.batches {
		b.Release()
	}
	in.batches = nil
}

// rows is the input's row count.
func (in *upsertInput) rows() int { return in.starts[len(in.starts)-1] }

// index puts every batch's keys into the lookup, refusing null keys and
// keys given twice, and bounds the integer key columns.
func (in *upsertInput) index(keys []iceberg.NestedField) error {
	in.starts = make([]int, 0, len(in.batches)+1)
	n := 0
	for _, b := range in.batches {
		in.starts = append(in.starts, n)
		n += int(b.NumRows())
	}
	in.starts = append(in.starts, n)
	if n > math.MaxInt32-1 {
		return errkind.Errorf(errkind.InvalidArgument, "an upsert of %d rows is too large for one call", n)
	}
	in.batchOf = make([]int32, n)
	in.ranged = make([]bool, len(keys))
	in.lo, in.hi = make([]int64, len(keys)), make([]int64, len(keys))
	for i := range keys {
		switch keys[i].Type.(type) {
		case iceberg.IntType, iceberg.LongType:
			// Literals of other types (dates, timestamps) need their own
			// forms: those keys are not ranged.
			in.ranged[i] = n > 0
		}
		in.lo[i], in.hi[i] = math.MaxInt64, math.MinInt64
	}
	// A one-column key of a word class is looked up by its words, kept
	// here until the lookup is sized by their range.
	var words []uint64
	oneWord := len(keys) == 1 && n > 0
	if oneWord {
		words = make([]uint64, n)
	}
	var hashes []uint64
	in.keys = make([]*kernels.Keys, len(in.batches))
	for b, rec := range in.batches {
		cols := make([]arrow.Array, len(in.keyCols))
		for i, c := range in.keyCols {
			cols[i] = rec.Column(c)
			if cols[i].NullN() > 0 {
				return errkind.Errorf(errkind.InvalidArgument, "join column %q is null in %d input rows", keys[i].Name, cols[i].NullN())
			}
		}
		k, err := kernels.NewKeys(cols)
		if err != nil {
			return errkind.Errorf(errkind.InvalidArgument, "join columns: %w", err)
		}
		in.keys[b] = k
		start := in.starts[b]
		for r := range k.Len() {
			in.batchOf[start+r] = int32(b)
		}
		if oneWord {
			if _, oneWord = k.Words(0, words[start:start:start+k.Len()]); !oneWord {
				words = nil
			}
		}
		if oneWord && in.ranged[0] {
			// An integer key's words are its values.
			for _, w := range words[start : start+k.Len()] {
				v := int64(w)
				in.lo[0], in.hi[0] = min(in.lo[0], v), max(in.hi[0], v)
				in.firsts = append(in.firsts, v)
			}
			continue
		}
		for i := range in.ranged {
			in.bound(k, i)
		}
	}
	in.lookup = newKeyLookup(n, oneWord, in.ranged[0] && len(keys) == 1, in.lo[0], in.hi[0])
	if oneWord {
		for g, w := range words {
			if dup := in.lookup.insertWord(w, g); dup >= 0 {
				return in.duplicate(dup, g)
			}
		}
		return nil
	}
	for b, k := range in.keys {
		start := in.starts[b]
		hashes = k.Hash(upsertHashSeed, hashes)
		for r, h := range hashes {
			dup := in.lookup.insertHashed(h, start+r, func(j int) bool {
				bj, rj := in.local(j)
				return in.keys[bj].Equal(rj, k, r)
			})
			if dup >= 0 {
				return in.duplicate(dup, start+r)
			}
		}
	}
	return nil
}

// bound widens key column i's range by batch k's values, or stops ranging
// it; the first column's values are kept row by row.
func (in *upsertInput) bound(k *kernels.Keys, i int) {
	if !in.ranged[i] {
		return
	}
	for r := range k.Len() {
		v, ok := k.Int64(i, r)
		if !ok {
			in.ranged[i] = false
			return
		}
		in.lo[i], in.hi[i] = min(in.lo[i], v), max(in.hi[i], v)
		if i == 0 {
			in.firsts = append(in.firsts, v)
		}
	}
}

// duplicate is the error for input rows j and g holding one key.
func (in *upsertInput) duplicate(j, g int) error {
	b, r := in.local(g)
	cols := make([]arrow.Array, len(in.keyCols))
	for i, c := range in.keyCols {
		cols[i] = in.batches[b].Column(c)
	}
	return errkind.Errorf(errkind.InvalidArgument, "input rows %d and %d have the same key (%s)", j, g, describeKey(cols, r))
}

func (in *upsertInput) local(g int) (b, r int) {
	b = int(in.batchOf[g])
	return b, g - in.starts[b]
}

// describeKey renders row r of the key columns for a message.
func describeKey(cols []arrow.Array, r int) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.ValueStr(r)
	}
	return strings.Join(parts, ", ")
}

// inListMax is the most keys a scan is narrowed by as an in-list; more
// are narrowed by their range.
const inListMax = 1000

// filter narrows the scan to where the keys may be: the single integer
// key's values as an in-list when there are few, else each integer key
// column's range; true when no key column is an integer.
func (in *upsertInput) filter(keys []iceberg.NestedField) (expr.Expr, error) {
	if in.rows() == 0 {
		return expr.AlwaysFalse{}, nil
	}
	if len(keys) == 1 && in.ranged[0] && len(in.firsts) == in.rows() && len(in.firsts) <= inListMax {
		vals := make([]any, len(in.firsts))
		for i, v := range in.firsts {
			vals[i] = v
		}
		return expr.NewPredicate(expr.OpIn, keys[0].Name, vals...)
	}
	var out expr.Expr = expr.AlwaysTrue{}
	for i, k := range keys {
		if !in.ranged[i] {
			continue
		}
		lo, err := expr.NewPredicate(expr.OpGtEq, k.Name, in.lo[i])
		if err != nil {
			return nil, err
		}
		hi, err := expr.NewPredicate(expr.OpLtEq, k.Name, in.hi[i])
		if err != nil {
			return nil, err
		}
		out = expr.NewAnd(out, expr.NewAnd(lo, hi))
	}
	return out, nil
}
