package inspect

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
	// appender is the function appending column pos (of the source's
	// schema) of a row to b, a builder of that column's Arrow type; it is
	// asked once per read, so what it decides per column (types, builders,
	// the projection of readable_metrics) is decided once.
	appender func(pos int, b array.Builder) (func(item any) error, error)
	// tuple is a row's canonical values as rows would give them, built
	// only for a filter to evaluate.
	tuple func(item any) []any
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
