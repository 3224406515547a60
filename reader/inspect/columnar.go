package inspect

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
)

// columns is the columnar form of a source: its rows stay handles (a
// manifest entry) and each column is appended from them straight into
// the batch's builders, with no []any per row and no value passing
// through an interface. The files and entries tables have a row per
// content file, a million on a big table, where building rows and
// appending them a value at a time through arrowschema.AppendValue cost
// more CPU than reading the manifests; the row form stays for filters.
type columns struct {
	// items yields a handle per row, in the order rows would.
	items func(ctx context.Context) iter.Seq2[any, error]
	// appenders makes, for one read, the appenders of the columns at pos
	// (of the source's schema) into bs (builders of those columns' Arrow
	// types), and flush, called before each batch is made (nil: nothing
	// to do): appenders that hold a batch's values back (heldInt64s,
	// heldMaps) append them whole then, a copy per column rather than a
	// call per value. What they decide per column (types, builders, the
	// projection of readable_metrics) is decided once, and what they keep
	// from row to row is the read's own.
	appenders func(pos []int, bs []array.Builder) (apps []func(item any) error, flush func(), err error)
	// tuple is a row's canonical values as rows would give them, built
	// only for a filter to evaluate.
	tuple func(item any) []any
}

// batchEnd is what the appenders of one read hold back until a batch is
// made.
type batchEnd []func()

func (e *batchEnd) add(f func()) { *e = append(*e, f) }

func (e *batchEnd) flush() {
	for _, f := range *e {
		f()
	}
}

// growTrues is t with at least n true values (t's own are true).
func growTrues(t []bool, n int) []bool {
	for len(t) < n {
		t = append(t, true)
	}
	return t
}

// heldInt64s holds a batch of a long column's values (valid false: null)
// for its builder.
type heldInt64s struct {
	b     *array.Int64Builder
	vals  []int64
	valid []bool
}

func (h *heldInt64s) add(v int64, ok bool) {
	h.vals = append(h.vals, v)
	h.valid = append(h.valid, ok)
}

func (h *heldInt64s) flush() {
	h.b.AppendValues(h.vals, h.valid)
	h.vals, h.valid = h.vals[:0], h.valid[:0]
}

// builderAs is b as the builder type T a column's Arrow type makes, or an
// error naming the column (a schema and appender out of step).
func builderAs[T array.Builder](b array.Builder, column string) (T, error) {
	t, ok := b.(T)
	if !ok {
		return t, fmt.Errorf("column %s: builder %T, want %T", column, b, t)
	}
	return t, nil
}

// reserveLike reserves in b, and in the builders below it, the room the
// values of prev (the same column of the batch before) took: builders
// start every batch empty, and the batches of a table of many files are
// much alike, so a batch grows no buffer value by value.
func reserveLike(b array.Builder, prev arrow.Array) {
	b.Reserve(prev.Len())
	switch b := b.(type) {
	case *array.StructBuilder:
		if p, ok := prev.(*array.Struct); ok && p.NumField() == b.NumField() {
			for i := range b.NumField() {
				reserveLike(b.FieldBuilder(i), p.Field(i))
			}
		}
	case *array.MapBuilder:
		if p, ok := prev.(*array.Map); ok {
			reserveLike(b.KeyBuilder(), p.Keys())
			reserveLike(b.ItemBuilder(), p.Items())
		}
	case *array.ListBuilder:
		if p, ok := prev.(*array.List); ok {
			reserveLike(b.ValueBuilder(), p.ListValues())
		}
	case *array.StringBuilder:
		if p, ok := prev.(*array.String); ok {
			b.ReserveData(len(p.ValueBytes()))
		}
	case *array.BinaryBuilder:
		if p, ok := prev.(*array.Binary); ok {
			b.ReserveData(len(p.ValueBytes()))
		}
	}
}

// filterReads reports which top-level columns opts.Filter reads, by name,
// so that a columnar source builds only those of a row's tuple: none
// without a filter, every one when the filter does not bind (the reader
// reports that).
func filterReads(schema *iceberg.Schema, opts Options) func(name string) bool {
	if opts.Filter == nil {
		return func(string) bool { return false }
	}
	all := func(string) bool { return true }
	bound, err := expr.Bind(opts.Filter, schema, opts.CaseInsensitive)
	if err != nil {
		return all
	}
	c := &fieldCollector{ids: map[int]bool{}}
	if _, err := expr.Visit[struct{}](bound, c); err != nil {
		return all
	}
	reads := map[string]bool{}
	for _, f := range schema.Fields {
		if c.ids[f.ID] || nestedRead(f.Type, c.ids) {
			reads[f.Name] = true
		}
	}
	return func(name string) bool { return reads[name] }
}

// nestedRead reports whether any field inside t is one of ids.
func nestedRead(t iceberg.Type, ids map[int]bool) bool {
	switch t := t.(type) {
	case *iceberg.StructType:
		for _, f := range t.Fields {
			if ids[f.ID] || nestedRead(f.Type, ids) {
				return true
			}
		}
	case *iceberg.ListType:
		return ids[t.ElementID] || nestedRead(t.Element, ids)
	case *iceberg.MapType:
		return ids[t.KeyID] || ids[t.ValueID] || nestedRead(t.Key, ids) || nestedRead(t.Value, ids)
	}
	return false
}

// fieldCollector is an expr.Visitor noting the field of every predicate.
type fieldCollector struct{ ids map[int]bool }

func (*fieldCollector) True() struct{}                 { return struct{}{} }
func (*fieldCollector) False() struct{}                { return struct{}{} }
func (*fieldCollector) And(_, _ struct{}) struct{}     { return struct{}{} }
func (*fieldCollector) Or(_, _ struct{}) struct{}      { return struct{}{} }
func (*fieldCollector) Not(struct{}) (struct{}, error) { return struct{}{}, nil }
func (c *fieldCollector) Predicate(p *expr.BoundPredicate) (struct{}, error) {
	c.ids[p.FieldID] = true
	return struct{}{}, nil
}
