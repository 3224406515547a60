package maintain

import (
	"context"
	"testing"

	"github.com/floedb/floe/internal/rowstest"
)

// BenchmarkRewriteGroupLineitem rewrites DuckDB's lineitem table (one
// group, rewrite-all): read with every delete applied and written again
// by floe's writer, nothing committed. Bytes are the input files'.
func BenchmarkRewriteGroupLineitem(b *testing.B) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(b, "duckdb_lineitem_iceberg")
	plan, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{RewriteAll: true})
	if err != nil || len(plan.Groups) != 1 {
		b.Fatalf("plan: %v groups, %v", len(plan.Groups), err)
	}
	g := plan.Groups[0]
	b.SetBytes(g.InputBytes)
	b.ResetTimer()
	for range b.N {
		r, err := RewriteGroup(ctx, tbl, g)
		if err != nil {
			b.Fatal(err)
		}
		discardFiles(ctx, tbl, r.Added)
	}
}
