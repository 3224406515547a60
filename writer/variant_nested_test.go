package writer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/varianttest"
	"github.com/floedb/floe/reader/scan"
)

// Variants inside a struct and as list elements write and read back
// through floe's writer and reader; their metrics go to their own ids.
func TestNestedVariantsRoundTrip(t *testing.T) {
	ctx := context.Background()
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "s", Type: &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 3, Name: "v", Type: iceberg.VariantType{}}}}},
		{ID: 4, Name: "l", Type: &iceberg.ListType{ElementID: 5, Element: iceberg.VariantType{}}},
	})
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	as, err := arrowschema.ArrowSchema(schema.Fields)
	if err != nil {
		t.Fatal(err)
	}
	bld := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer bld.Release()
	appendV := func(b *extensions.VariantBuilder, v *variant.Value) {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(*v)
		}
	}
	for i, v := range values {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		sb := bld.Field(1).(*array.StructBuilder)
		sb.Append(true)
		appendV(sb.FieldBuilder(0).(*extensions.VariantBuilder), v)
		lb := bld.Field(2).(*array.ListBuilder)
		lb.Append(true)
		for k := 0; k < i%3; k++ {
			appendV(lb.ValueBuilder().(*extensions.VariantBuilder), values[(i+k)%len(values)])
		}
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	dir := filepath.Join(t.TempDir(), "t")
	tbl, err := table.Create(ctx, nil, dir, schema, nil, nil, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(ctx, tbl.IO, filepath.Join(dir, "data"), schema, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := files[0].Metrics.Maps().ValueCounts; got[3] != int64(len(values)) || got[5] != int64(len(values)) || files[0].Metrics.Maps().NullValueCounts[3] != 1 {
		t.Errorf("nested variant counts: values %v, nulls %v", got, files[0].Metrics.Maps().NullValueCounts)
	}
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if tbl, err = table.Open(ctx, dir, table.Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := scan.New(ctx, tbl, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	describe := func(va *extensions.VariantArray, i int) string {
		if va.Storage().IsNull(i) {
			return "SQL null"
		}
		v, err := va.Value(i)
		if err != nil {
			t.Fatal(err)
		}
		return varianttest.Describe(v)
	}
	want := func(v *variant.Value) string {
		if v == nil {
			return "SQL null"
		}
		return varianttest.Describe(*v)
	}
	row := 0
	for rr.Next() {
		b := rr.RecordBatch()
		sv := b.Column(1).(*array.Struct).Field(0).(*extensions.VariantArray)
		l := b.Column(2).(*array.List)
		lv := l.ListValues().(*extensions.VariantArray)
		for i := range int(b.NumRows()) {
			id := int(b.Column(0).(*array.Int64).Value(i))
			if g, w := describe(sv, i), want(values[id]); g != w {
				t.Errorf("row %d s.v:\n got %s\nwant %s", id, g, w)
			}
			start, end := l.ValueOffsets(i)
			if int(end-start) != id%3 {
				t.Fatalf("row %d: %d list elements", id, end-start)
			}
			for k := start; k < end; k++ {
				if g, w := describe(lv, int(k)), want(values[(id+int(k-start))%len(values)]); g != w {
					t.Errorf("row %d l[%d]:\n got %s\nwant %s", id, k-start, g, w)
				}
			}
			row++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if row != len(values) {
		t.Fatalf("%d rows", row)
	}
}
