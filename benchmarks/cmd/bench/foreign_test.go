package main

import (
	"testing"
)

// TestForeignSection writes a small foreign table with DuckDB, registers
// it with add_files, and runs every query on floe, DuckDB and iceberg-go:
// all three must return the same rows, and the filters must select what
// their names say.
func TestForeignSection(t *testing.T) {
	const rows = 40_000
	ft, err := writeForeign(t.TempDir(), "zstd", rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ft.Rows != rows || len(ft.Files) != 2 {
		t.Fatalf("table of %d rows in %d files", ft.Rows, len(ft.Files))
	}
	for _, q := range foreignQueries(ft.Rows) {
		r, err := runForeignQuery(ft, q, 1, 1)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		if r.GoErr != "" {
			t.Errorf("%s: iceberg-go: %s", q.Name, r.GoErr)
		}
		share := float64(r.Rows) / rows
		switch q.Name {
		case "unclustered 1%", "clustered 1%":
			if share < 0.005 || share > 0.02 {
				t.Errorf("%s: %.2f%% of the rows", q.Name, 100*share)
			}
		case "limit 1000":
			if r.Rows != 1000 {
				t.Errorf("%s: %d rows", q.Name, r.Rows)
			}
		case "all columns", "count(*)", "text column":
			if r.Rows != rows {
				t.Errorf("%s: %d rows", q.Name, r.Rows)
			}
		}
	}
}

// The floor pass reads the pages of exactly the columns asked for: the
// columns' bytes add up to the whole file's, and a missing column fails.
func TestForeignFloor(t *testing.T) {
	ft, err := writeForeign(t.TempDir(), "snappy", 20_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	all, err := foreignFloor(ft, nil)
	if err != nil {
		t.Fatal(err)
	}
	var parts int64
	for _, f := range foreignSchema().Fields {
		one, err := foreignFloor(ft, []string{f.Name})
		if err != nil {
			t.Fatal(err)
		}
		if one.DecodedBytes <= 0 {
			t.Errorf("%s: %d bytes", f.Name, one.DecodedBytes)
		}
		parts += one.DecodedBytes
	}
	if all.DecodedBytes != parts {
		t.Errorf("all columns decompress to %d bytes, the columns one by one to %d", all.DecodedBytes, parts)
	}
	if _, err := foreignFloor(ft, []string{"no_such_column"}); err == nil {
		t.Error("a missing column was not reported")
	}
}

// The codec floor decompresses exactly the zstd pages' bytes with both
// libraries (klauspost's check is inside measureCodecFloor; libzstd's
// tool is on every machine .ci/run sets up, and its absence is an error
// here, not a skip).
func TestCodecFloor(t *testing.T) {
	ft, err := writeForeign(t.TempDir(), "zstd", 20_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := measureCodecFloor(ft, 1)
	if err != nil {
		t.Fatal(err)
	}
	if cf.LibError != "" {
		t.Fatalf("libzstd: %s", cf.LibError)
	}
	all, err := foreignFloor(ft, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cf.Frames == 0 || cf.Bytes <= 0 || cf.Bytes > all.DecodedBytes || cf.GoCPU <= 0 {
		t.Errorf("codec floor %+v; the pages decompress to %d bytes", cf, all.DecodedBytes)
	}
}
