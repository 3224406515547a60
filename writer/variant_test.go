package writer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/varianttest"
)

// writeVariantBatch writes one batch through the writer and returns the
// single data file's path and entry.
func writeVariantBatch(t *testing.T, rec arrow.RecordBatch) (string, int64, map[int]int64, map[int]int64, map[int][]byte) {
	t.Helper()
	dir := t.TempDir()
	w, err := New(context.Background(), fileio.Local{}, filepath.Join(dir, "data"), varianttest.Schema(), nil, Options{})
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
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	df := files[0]
	return df.FilePath, df.Metrics.Maps().ColumnSizes[2], df.Metrics.Maps().ValueCounts, df.Metrics.Maps().NullValueCounts, df.Metrics.Maps().LowerBounds
}

// Variants floe writes (given unshredded, or shredded and unshredded on
// the way) read back through pqarrow as the same values, from an
// unshredded VARIANT group with the column's field id.
func TestWriteVariantReadByPqarrow(t *testing.T) {
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	for _, layout := range []string{"unshredded", "object", "scalar"} {
		t.Run(layout, func(t *testing.T) {
			rec, err := varianttest.Record(varianttest.Shreddings()[layout], values)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			path, size, counts, nulls, lower := writeVariantBatch(t, rec)
			if size <= 0 || counts[2] != int64(len(values)) || nulls[2] != 1 {
				t.Errorf("variant metrics: size %d, values %d, nulls %d; want %d values, 1 null", size, counts[2], nulls[2], len(values))
			}
			if _, ok := lower[2]; ok {
				t.Error("a variant column got a lower bound")
			}
			pr, err := file.OpenParquetFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			g, ok := pr.MetaData().Schema.Root().Field(1).(*schema.GroupNode)
			if !ok || g.FieldID() != 2 || !g.LogicalType().Equals(schema.VariantLogicalType{}) || g.NumFields() != 2 {
				t.Fatalf("variant column written as %v", pr.MetaData().Schema.Root().Field(1))
			}
			for i, name := range []string{"metadata", "value"} {
				c := g.Field(i)
				if c.Name() != name || c.RepetitionType() != 0 /* required */ || c.FieldID() != -1 {
					t.Errorf("variant child %d: %s, repetition %v, field id %d", i, c.Name(), c.RepetitionType(), c.FieldID())
				}
			}
			fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := fr.ReadTable(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			var got []*variant.Value
			for _, chunk := range tbl.Column(1).Data().Chunks() {
				va, ok := chunk.(*extensions.VariantArray)
				if !ok {
					t.Fatalf("pqarrow read the column as %s", chunk.DataType())
				}
				for i := range va.Len() {
					if va.Storage().IsNull(i) {
						got = append(got, nil)
						continue
					}
					v, err := va.Value(i)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, &v)
				}
			}
			if len(got) != len(values) {
				t.Fatalf("%d rows, want %d", len(got), len(values))
			}
			for i, want := range values {
				switch {
				case want == nil || got[i] == nil:
					if (want == nil) != (got[i] == nil) {
						t.Errorf("row %d: null %v, want null %v", i, got[i] == nil, want == nil)
					}
				case varianttest.Describe(*got[i]) != varianttest.Describe(*want):
					t.Errorf("row %d:\n got %s\nwant %s", i, varianttest.Describe(*got[i]), varianttest.Describe(*want))
				}
			}
		})
	}
}

// A plain struct of metadata and value binaries writes as a variant too.
func TestWriteVariantFromStruct(t *testing.T) {
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := varianttest.Record(extensions.NewDefaultVariantType(), values)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	storage := rec.Column(1).(array.ExtensionArray).Storage()
	fields := rec.Schema().Fields()
	fields[1].Type = storage.DataType()
	plain := array.NewRecordBatch(arrow.NewSchema(fields, nil), []arrow.Array{rec.Column(0), storage}, rec.NumRows())
	defer plain.Release()
	_, _, counts, nulls, _ := writeVariantBatch(t, plain)
	if counts[2] != int64(len(values)) || nulls[2] != 1 {
		t.Errorf("values %d, nulls %d", counts[2], nulls[2])
	}
}
