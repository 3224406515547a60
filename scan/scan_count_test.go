package scan_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/scan"
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
			rr, err := sc.Reader(ctx, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for rr.Next() {
				want += rr.RecordBatch().NumRows()
			}
			rr.Release()
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
