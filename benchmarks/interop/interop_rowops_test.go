package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// TestRowopsDeleteRowsReadByIcebergGo deletes rows by a filter that
// selects parts of files with floe's DeleteRows, in both delete modes on
// v2 and v3 tables (v3's merge-on-read writes deletion vectors), and checks iceberg-go and floe read exactly the rows the
// same predicate, evaluated in Go, keeps (nulls stay).
func TestRowopsDeleteRowsReadByIcebergGo(t *testing.T) {
	cases := []struct {
		version int
		mode    ops.DeleteMode
	}{{2, ops.MergeOnRead}, {2, ops.CopyOnWrite}, {3, ops.MergeOnRead}, {3, ops.CopyOnWrite}}
	for _, c := range cases {
		mode := c.mode
		t.Run(fmt.Sprintf("v%d-%s", c.version, mode), func(t *testing.T) {
			ctx := context.Background()
			tbl, rows := createFloeTable(t, c.version)
			low, err := expr.NewPredicate(expr.OpLt, "i", int64(-500_000))
			if err != nil {
				t.Fatal(err)
			}
			prefix, err := expr.NewPredicate(expr.OpStartsWith, "s", "str-3-")
			if err != nil {
				t.Fatal(err)
			}
			res, err := ops.DeleteRows(ctx, tbl, expr.NewOr(low, prefix), ops.RowOptions{Mode: mode})
			if err != nil {
				t.Fatalf("DeleteRows: %v", err)
			}
			summary := tbl.Metadata.SnapshotByID(res.SnapshotID).Summary
			if mode == ops.MergeOnRead && summary["added-position-deletes"] == "" {
				t.Fatalf("merge-on-read wrote no position deletes (v2 files, v3 deletion vectors): %v", summary)
			}
			if mode == ops.CopyOnWrite && summary["added-data-files"] == "" {
				t.Fatalf("copy-on-write rewrote no file: %v", summary)
			}
			var kept []row
			nulls := 0
			for _, r := range rows {
				if (r.i != nil && *r.i < -500_000) || (r.s != nil && strings.HasPrefix(*r.s, "str-3-")) {
					continue
				}
				if r.i == nil || r.s == nil {
					nulls++
				}
				kept = append(kept, r)
			}
			if len(kept) == len(rows) || len(kept) == 0 || nulls == 0 {
				t.Fatalf("the filter keeps %d of %d rows, %d with nulls: not a useful test", len(kept), len(rows), nulls)
			}
			reopened, err := table.Open(ctx, tbl.Metadata.Location, table.Options{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			want := expectedKeys(kept)
			got, err := readWithIcebergGo(t, reopened.MetadataLocation)
			if err != nil {
				t.Fatalf("iceberg-go read after DeleteRows: %v", err)
			}
			assertSameRows(t, want, rowKeys(t, got))
			assertSameRows(t, want, rowKeys(t, readWithFloe(t, reopened.MetadataLocation)))
		})
	}
}
