package scan_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
)

// Count agrees with the rows a read returns: from the manifests for a
// table without deletes (no data file opened), by reading for one with
// deletes or a filter to apply.
func TestCount(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"duckdb_lineitem_iceberg", "impala_iceberg_v2_delete_pos_and_multi_eq_ids", "impala_iceberg_v3_deletion_vectors"} {
		fx, err := fixtures.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
		if err != nil {
			t.Fatal(err)
		}
		for _, filter := range []expr.Expr{nil, mustPredicate(t)} {
			opts := scan.Options{Filter: filter}
			sc, err := scan.New(ctx, tbl, opts)
			if err != nil {
				if filter != nil {
					continue // the fixture has no such column
				}
				t.Fatal(err)
			}
			want := rowsOfRead(t, sc)
			sc2, _ := scan.New(ctx, tbl, opts)
			got, err := sc2.Count(ctx)
			if err != nil || got != want {
				t.Fatalf("%s (filter %v): Count %d, %v; a read returns %d", name, filter, got, err, want)
			}
			if m := sc2.Metrics(); filter == nil && name == "duckdb_lineitem_iceberg" && (m.Requests != 0 || m.RowGroupsRead != 0) {
				t.Fatalf("a count without deletes read data files: %+v", m)
			}
		}
	}
}

// rowsOfRead reads every batch of sc and counts its rows.
func rowsOfRead(t *testing.T, sc *scan.Scan) int64 {
	t.Helper()
	rr, err := sc.Reader(context.Background(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func mustPredicate(t *testing.T) expr.Expr {
	e, err := expr.ParseFilter("l_orderkey < 1000")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A filter added to the scan counts: Count then reads.
func TestCountWithAddedFilter(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Get("duckdb_lineitem_iceberg")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(ctx, tbl, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := sc.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.AddFilter(mustPredicate(t)); err != nil {
		t.Fatal(err)
	}
	some, err := sc.Count(ctx)
	if err != nil || some >= all || some == 0 {
		t.Fatalf("count with an added filter %d (%v), without %d", some, err, all)
	}
}

// CountRows agrees with a read on tables with and without deletes and
// filters, as Count does.
func TestCountRowsAgreesWithARead(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"duckdb_lineitem_iceberg", "impala_iceberg_v2_delete_pos_and_multi_eq_ids", "impala_iceberg_v3_deletion_vectors"} {
		fx, err := fixtures.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
		if err != nil {
			t.Fatal(err)
		}
		limit := int64(7)
		for _, opts := range []scan.Options{{}, {Filter: mustPredicate(t)}, {Limit: &limit}} {
			sc, err := scan.New(ctx, tbl, opts)
			if err != nil {
				if opts.Filter != nil {
					continue // the fixture has no such column
				}
				t.Fatal(err)
			}
			want := rowsOfRead(t, sc)
			got, err := scan.CountRows(ctx, tbl, opts)
			if err != nil || got != want {
				t.Errorf("%s (filter %v, limit %v): CountRows %d, %v; a read returns %d", name, opts.Filter, opts.Limit, got, err, want)
			}
		}
	}
}

// CountRows answers from the manifests alone: the table's data files do
// not exist, so a count that opened one would fail. A filter the
// partitions do not decide needs a read, and so fails here.
func TestCountRowsOpensNoDataFile(t *testing.T) {
	ctx := context.Background()
	tbl, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "tbl"), testtable.Schema(), nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for i := range 5 {
		df := manifest.DataFile{
			Content: manifest.ContentData, FilePath: fmt.Sprintf("%s/data/missing-%d.parquet", tbl.Metadata.Location, i),
			FileFormat: "PARQUET", Partition: []any{}, RecordCount: int64(100 + i), FileSizeInBytes: 4096,
		}
		want += df.RecordCount
		if _, err := tbl.Append(ctx, []manifest.DataFile{df}, table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scan.CountRows(ctx, tbl, scan.Options{})
	if err != nil || got != want {
		t.Fatalf("CountRows %d, %v; the manifests hold %d records", got, err, want)
	}
	filter, err := expr.ParseFilter("id < 1000")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scan.CountRows(ctx, tbl, scan.Options{Filter: filter}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a count with a filter to apply did not read the (missing) files: %v", err)
	}
	bad, err := expr.ParseFilter("no_such_column = 1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scan.CountRows(ctx, tbl, scan.Options{Filter: bad}); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("a filter on an unknown column: %v, want an invalid-argument error", err)
	}
}

// A file the snapshot lists twice is read twice, so Count and CountRows
// count it twice; the byte-range splits of one file (a task per row group
// here) count it once.
func TestCountDuplicatedEntryAndSplits(t *testing.T) {
	ctx := context.Background()
	built, err := testtable.Build(t.TempDir(), testtable.Options{Rows: testtable.RandomRows(1, 600), RowsPerFile: 300, RowsPerRowGroup: 100, Manifests: 1})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(ctx, built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil || len(plan.Tasks) != 2 {
		t.Fatalf("%v: planned %d files, want 2", err, len(plan.Tasks))
	}
	if _, err := tbl.Append(ctx, []manifest.DataFile{plan.Tasks[0].File}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	const want = 600 + 300
	for _, split := range []int64{0, 1} {
		opts := scan.Options{SplitSize: split}
		sc, err := scan.New(ctx, tbl, opts)
		if err != nil {
			t.Fatal(err)
		}
		if tasks := len(sc.Tasks()); split == 1 && tasks != 9 {
			t.Fatalf("split size 1: %d tasks, want one per row group (9)", tasks)
		}
		if read := rowsOfRead(t, sc); read != want {
			t.Fatalf("split size %d: a read returned %d rows, want %d", split, read, want)
		}
		sc, err = scan.New(ctx, tbl, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := sc.Count(ctx); err != nil || got != want {
			t.Errorf("split size %d: Count %d, %v; a read returns %d", split, got, err, want)
		}
		if m := sc.Metrics(); m.Requests != 0 {
			t.Errorf("split size %d: Count read data files: %+v", split, m)
		}
		if got, err := scan.CountRows(ctx, tbl, opts); err != nil || got != want {
			t.Errorf("split size %d: CountRows %d, %v; a read returns %d", split, got, err, want)
		}
	}
}

// CountRows refuses what New refuses, before counting anything.
func TestCountRowsChecksAsNewDoes(t *testing.T) {
	ctx := context.Background()
	built, err := testtable.Build(t.TempDir(), testtable.Options{Rows: testtable.RandomRows(1, 10)})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(ctx, built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	negative := int64(-1)
	for name, opts := range map[string]scan.Options{"unknown column": {Columns: []string{"no_such_column"}}, "negative limit": {Limit: &negative}} {
		_, newErr := scan.New(ctx, tbl, opts)
		if !errors.Is(newErr, errkind.InvalidArgument) {
			t.Fatalf("%s: New: %v, want an invalid-argument error", name, newErr)
		}
		if n, err := scan.CountRows(ctx, tbl, opts); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s: CountRows %d, %v; New refuses it: %v", name, n, err, newErr)
		}
	}
}
