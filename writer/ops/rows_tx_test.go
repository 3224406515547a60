package ops

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// A delete by filter, an append and a property change in one
// transaction: one new version, the rows as the three changes leave them.
// A transaction that fails afterwards leaves none of the files its
// row-level step wrote.
func TestDeleteRowsInATransaction(t *testing.T) {
	for _, mode := range []DeleteMode{CopyOnWrite, MergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, 2, byBool, nil)
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(21, 300)
			appendInChunks(t, tbl, rows, 100)
			filter := pred(t, expr.OpLt, "id", int64(120))
			more := testtable.RandomRows(22, 40)
			for i := range more {
				more[i][0] = int64(10_000 + i)
			}
			logBefore := len(tbl.Metadata.MetadataLog)

			tx := tbl.Transaction()
			tx.SetProperties(map[string]string{"cleaned": "yes"}, nil)
			if err := DeleteRowsIn(ctx, tx, filter, RowOptions{Mode: mode}); err != nil {
				t.Fatal(err)
			}
			if err := tx.Append(writeTableFiles(t, tbl, more), table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			res, err := tx.Commit(ctx)
			if err != nil || !res.Committed || len(res.SnapshotIDs) != 2 {
				t.Fatalf("%+v %v", res, err)
			}
			fresh := reopened(t, tbl)
			if got := len(fresh.Metadata.MetadataLog) - logBefore; got != 1 || fresh.Metadata.Properties["cleaned"] != "yes" {
				t.Fatalf("%d versions, properties %v", got, fresh.Metadata.Properties)
			}
			want := append(keepRows(schema, rows, func(r []any) bool { return r[0].(int64) < 120 }), more...)
			checkRows(t, "after the transaction", fresh, want)

			// A transaction refused after its delete step wrote files
			// leaves none of them.
			before := filesUnderDir(t, tbl.Metadata.Location)
			tx = fresh.Transaction()
			if err := DeleteRowsIn(ctx, tx, pred(t, expr.OpLt, "id", int64(250)), RowOptions{Mode: mode}); err != nil {
				t.Fatal(err)
			}
			tx.Add(action.UpgradeFormatVersion{FormatVersion: 1})
			if _, err := tx.Commit(ctx); !errors.Is(err, errkind.InvalidArgument) {
				t.Fatalf("a downgrade: %v", err)
			}
			if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, before) {
				t.Fatalf("a refused transaction left files: %v", after)
			}
			checkRows(t, "after the refused transaction", reopened(t, tbl), want)
		})
	}
}
