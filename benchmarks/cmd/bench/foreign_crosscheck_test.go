package main

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// The files DuckDB writes for the foreign section, read through floe's
// Iceberg scan (the fast paths the section measures: decimals widened
// from INT64, dictionary and plain strings, dates) agree value by value
// with arrow-go's pqarrow, an independent Parquet reader.
func TestForeignMatchesPqarrow(t *testing.T) {
	for _, codec := range []string{"zstd", "snappy"} {
		ft, err := writeForeign(t.TempDir(), codec, 30_000, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := floeColumns(t, ft.MetadataPath)
		want := pqarrowColumns(t, ft.Files[0])
		if len(got) != len(want) || len(got) != len(foreignSchema().Fields) {
			t.Fatalf("%s: floe gave %d columns, pqarrow %d", codec, len(got), len(want))
		}
		for i := range got {
			name := foreignSchema().Fields[i].Name
			if !arrow.TypeEqual(got[i].DataType(), want[i].DataType()) {
				t.Errorf("%s %s: floe type %s, pqarrow %s", codec, name, got[i].DataType(), want[i].DataType())
				continue
			}
			if got[i].Len() != 30_000 || !array.Equal(got[i], want[i]) {
				t.Errorf("%s %s: floe's %d values differ from pqarrow's %d", codec, name, got[i].Len(), want[i].Len())
			}
		}
	}
}

func floeColumns(t *testing.T, metadata string) []arrow.Array {
	ctx := context.Background()
	tbl, err := table.Open(ctx, metadata, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(ctx, tbl, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var chunks [][]arrow.Array
	for rr.Next() {
		rec := rr.RecordBatch()
		for i, col := range rec.Columns() {
			if i == len(chunks) {
				chunks = append(chunks, nil)
			}
			col.Retain()
			chunks[i] = append(chunks[i], col)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return concatenated(t, chunks)
}

func pqarrowColumns(t *testing.T, path string) []arrow.Array {
	pf, err := file.OpenParquetFile(path, false, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	chunks := make([][]arrow.Array, tbl.NumCols())
	for i := range chunks {
		for _, c := range tbl.Column(i).Data().Chunks() {
			c.Retain()
			chunks[i] = append(chunks[i], c)
		}
	}
	return concatenated(t, chunks)
}

func concatenated(t *testing.T, chunks [][]arrow.Array) []arrow.Array {
	out := make([]arrow.Array, len(chunks))
	for i, cs := range chunks {
		a, err := array.Concatenate(cs, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			c.Release()
		}
		out[i] = a
	}
	return out
}
