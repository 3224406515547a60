package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
		r, err := runForeignQuery(ft, q, 1, 1, true)
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

// A shape with a row-group size writes files of that many row groups, and
// the table counts them from add_files' split offsets.
func TestForeignShapeRowGroups(t *testing.T) {
	ft, err := writeForeignShape(t.TempDir(), "zstd", foreignShape{Rows: 40_960, Files: 1, RowGroupRows: 10_240})
	if err != nil {
		t.Fatal(err)
	}
	if ft.Rows != 40_960 || len(ft.Files) != 1 || ft.RowGroups < 4 {
		t.Fatalf("%d rows in %d files, %d row groups; want 40960 rows in 1 file, 4 row groups or more", ft.Rows, len(ft.Files), ft.RowGroups)
	}
	plain, err := writeForeignShape(t.TempDir(), "zstd", foreignShape{Rows: 40_960, Files: 1})
	if err != nil {
		t.Fatal(err)
	}
	if plain.RowGroups != 1 {
		t.Fatalf("DuckDB's default row groups: %d for 40960 rows, want 1", plain.RowGroups)
	}
}

// The guard fails a query that reads every row group of a table of
// several when floe's 2-thread wall is not below its 1-thread wall, and
// only then.
func TestForeignThreadGuard(t *testing.T) {
	pair := func(variant, query string, rowGroups int, one, two time.Duration) []foreignResult {
		r := foreignResult{Table: "zstd", Variant: variant, Query: query, RowGroups: rowGroups, Threads: 1, FloeWal: one, DuckWal: one}
		r2 := r
		r2.Threads, r2.FloeWal, r2.DuckWal = 2, two, one/2
		return []foreignResult{r, r2}
	}
	var results []foreignResult
	results = append(results, pair("500k rows/file", "all columns", 24, 400*time.Millisecond, 410*time.Millisecond)...)
	results = append(results, pair("500k rows/file", "2 columns (bigint, decimal)", 24, 80*time.Millisecond, 45*time.Millisecond)...)
	results = append(results, pair("500k rows/file", "clustered 1%", 24, 20*time.Millisecond, 21*time.Millisecond)...)
	results = append(results, pair("one row group", "all columns", 1, 20*time.Millisecond, 21*time.Millisecond)...)
	problems := foreignThreadProblems(results, true)
	if len(problems) != 1 || !strings.Contains(problems[0], `500k rows/file zstd "all columns"`) || !strings.HasPrefix(problems[0], "FAIL") {
		t.Fatalf("problems: %q", problems)
	}
	if p := foreignThreadProblems(results[2:], true); len(p) != 0 {
		t.Fatalf("a 2-thread speed-up failed the guard: %q", p)
	}
	if p := foreignThreadProblems(results[4:], true); len(p) != 1 || !strings.Contains(p[0], "no query of the guard") {
		t.Fatalf("no guarded query ran: %q", p)
	}
	var out strings.Builder
	printForeignThreads(results, func(f string, a ...any) { fmt.Fprintf(&out, f+"\n", a...) })
	if !strings.Contains(out.String(), "400.0 → 410.0") || !strings.Contains(out.String(), "1.78×") {
		t.Fatalf("report:\n%s", out.String())
	}
}
