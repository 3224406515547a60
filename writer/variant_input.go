package writer

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// unshredVariantColumns replaces the batch's shredded variant columns (a
// typed_value beside metadata and value) by their unshredded form, which
// is what floe writes. Most batches have none and come back as they are,
// with a reference added; release the result either way.
func unshredVariantColumns(rec arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	for i, col := range rec.Columns() {
		va, ok := col.(*extensions.VariantArray)
		if !ok || !va.IsShredded() {
			continue
		}
		if cols == nil {
			cols = append([]arrow.Array(nil), rec.Columns()...)
			defer func() {
				for j, c := range cols {
					if c != rec.Column(j) {
						c.Release()
					}
				}
			}()
		}
		un, err := extensions.UnshredVariant(va, mem)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.Schema().Field(i).Name, err)
		}
		cols[i] = un
	}
	if cols == nil {
		rec.Retain()
		return rec, nil
	}
	fields := append([]arrow.Field(nil), rec.Schema().Fields()...)
	for i, c := range cols {
		fields[i].Type = c.DataType()
	}
	md := rec.Schema().Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, rec.NumRows()), nil
}
