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
