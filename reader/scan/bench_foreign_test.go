package scan

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// BenchmarkScanForeign scans a table another engine wrote (TPC-H
// lineitem SF0.01 by PySpark 3.3.1 / Iceberg 1.0.0, 60,175 rows): whole,
// and through filters that exercise binding, pruning and the kernels. It
// compares layouts of floe against each other (before/after a change);
// peers are compared in benchmarks/.
func BenchmarkScanForeign(b *testing.B) {
	fx, err := fixtures.Get("duckdb_lineitem_iceberg")
	if err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, filter string }{
		{"full", ""},
		{"range", "l_orderkey < 6000"},
		{"unclustered", "l_quantity < 8 and l_discount > 0.05"},
		{"string", "l_comment like 'fur%' or l_returnflag = 'R'"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var opts Options
			if c.filter != "" {
				if opts.Filter, err = expr.ParseFilter(c.filter); err != nil {
					b.Fatal(err)
				}
			}
			rows := int64(0)
			for b.Loop() {
				s, err := New(ctx, tbl, opts)
				if err != nil {
					b.Fatal(err)
				}
				rr, err := s.Reader(ctx, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				rows = 0
				for rr.Next() {
					rows += rr.RecordBatch().NumRows()
				}
				if err := rr.Err(); err != nil {
					b.Fatal(err)
				}
				rr.Release()
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
