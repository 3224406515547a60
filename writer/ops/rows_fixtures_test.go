package ops

import (
	"context"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/internal/rowstest"
)

// Deleting rows from Hive's partitioned v2 table, whose files already
// have position deletes (naming data files by another spelling of their
// paths): the rows left are those of Impala's expected answer
// (testdata/fixtures/INDEX.md, table 8) the Go predicates keep.
func TestDeleteRowsOnImpalaV2PositionDeletes(t *testing.T) {
	at := func(hour int) int64 { return time.Date(2020, 1, 1, hour, 0, 0, 0, time.UTC).UnixMicro() }
	// id, user, action, event_time: Impala's expected rows.
	expected := [][]any{
		{int32(6), "Alex", "view", at(9)}, {int32(20), "Alex", "view", at(9)}, {int32(4), "Alex", "view", at(9)},
		{int32(18), "Alan", "click", at(10)}, {int32(12), "Alan", "click", at(10)}, {int32(10), "Alan", "click", at(10)},
		{int32(2), "Lisa", "download", at(11)}, {int32(14), "Lisa", "download", at(11)},
		{int32(8), "Lisa", "download", at(11)}, {int32(16), "Lisa", "download", at(11)},
	}
	for _, mode := range []DeleteMode{CopyOnWrite, MergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
			schema := tbl.Metadata.CurrentSchema()
			want := keepRows(schema, expected, func([]any) bool { return false })
			checkRows(t, "the fixture as it is", tbl, want)
			steps := []rowDelete{
				{
					filter:  expr.NewAnd(pred(t, expr.OpGt, "id", int64(11)), pred(t, expr.OpLt, "id", int64(19))),
					deletes: func(r []any) bool { return r[0].(int32) > 11 && r[0].(int32) < 19 },
				},
				{
					filter:  expr.NewAnd(pred(t, expr.OpEq, "user", "Alex"), pred(t, expr.OpLt, "id", int64(10))),
					deletes: func(r []any) bool { return r[1] == "Alex" && r[0].(int32) < 10 },
				},
			}
			for k, step := range steps {
				if _, err := DeleteRows(ctx, tbl, step.filter, RowOptions{Mode: mode}); err != nil {
					t.Fatalf("step %d: %v", k, err)
				}
				want = keepRows(schema, want, step.deletes)
				checkRows(t, "after a delete", tbl, want)
			}
			if len(want) != 4 {
				t.Fatalf("%d rows left, want 4", len(want))
			}
		})
	}
}

// Deleting from Spark's v3 table with deletion vectors (INDEX.md, table
// 1: rows i = 1..5 less 2 and 4, each in its own file): files whose rows
// all go are removed, with the vectors of those already deleted, and
// the other vector stays.
func TestDeleteRowsOnSparkV3DeletionVectors(t *testing.T) {
	for _, mode := range []DeleteMode{CopyOnWrite, MergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			tbl := rowstest.CopyFixture(t, "impala_iceberg_v3_deletion_vectors")
			schema := tbl.Metadata.CurrentSchema()
			want := [][]any{{int32(1)}, {int32(3)}, {int32(5)}}
			checkRows(t, "the fixture as it is", tbl, want)
			id, err := snapshotIDOf(DeleteRows(ctx, tbl, pred(t, expr.OpGtEq, "i", int64(3)), RowOptions{Mode: mode}))
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, "after deleting i >= 3", tbl, keepRows(schema, want, func(r []any) bool { return r[0].(int32) >= 3 }))
			s := tbl.Metadata.SnapshotByID(id).Summary
			if s["deleted-data-files"] != "3" || s["removed-dvs"] != "1" || s["added-data-files"] != "" || s["added-delete-files"] != "" {
				t.Fatalf("summary %v", s)
			}
			plan := liveFiles(t, tbl)
			if len(plan.DeleteFiles) != 1 || len(plan.Tasks) != 2 {
				t.Fatalf("%d data files, %d delete files live", len(plan.Tasks), len(plan.DeleteFiles))
			}
		})
	}
}
