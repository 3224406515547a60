package ops

import (
	"context"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/rowstest"
)

// Upserting into Hive's partitioned v2 table, whose files have position
// deletes naming them by another spelling of their paths: a row moved to
// another partition, a row changed in place, a row Hive deleted given
// again (inserted: it is not live), a new row and an unchanged one. The
// table then reads Impala's expected rows (fixtures INDEX.md, table 8)
// so changed, in every mode.
func TestUpsertOnImpalaV2PositionDeletes(t *testing.T) {
	at := func(hour int) int64 { return time.Date(2020, 1, 1, hour, 0, 0, 0, time.UTC).UnixMicro() }
	expected := [][]any{
		{int32(6), "Alex", "view", at(9)}, {int32(20), "Alex", "view", at(9)}, {int32(4), "Alex", "view", at(9)},
		{int32(18), "Alan", "click", at(10)}, {int32(12), "Alan", "click", at(10)}, {int32(10), "Alan", "click", at(10)},
		{int32(2), "Lisa", "download", at(11)}, {int32(14), "Lisa", "download", at(11)},
		{int32(8), "Lisa", "download", at(11)}, {int32(16), "Lisa", "download", at(11)},
	}
	input := [][]any{
		{int32(6), "Alex", "click", at(12)},     // moves from view to click
		{int32(12), "Alan2", "click", at(10)},   // changed in place
		{int32(3), "Zed", "view", at(8)},        // deleted by Hive: inserted
		{int32(100), "New", "download", at(13)}, // new
		{int32(2), "Lisa", "download", at(11)},  // unchanged
	}
	for _, mode := range []UpsertMode{"", UpsertCopyOnWrite} {
		t.Run("mode "+string(mode), func(t *testing.T) {
			ctx := context.Background()
			tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
			schema := tbl.Metadata.CurrentSchema()
			rr := rowsReader(t, tbl, input)
			defer rr.Release()
			res, err := Upsert(ctx, tbl, rr, upsertOpts(mode, "id"))
			if err != nil {
				t.Fatal(err)
			}
			if res.RowsUpdated != 2 || res.RowsInserted != 2 || res.DeletedRows != 2 {
				t.Fatalf("result %+v: want 2 updated, 2 inserted, 2 deleted", res)
			}
			replaced := map[int32]bool{6: true, 12: true}
			want := keepRows(schema, expected, func(r []any) bool { return replaced[r[0].(int32)] })
			want = append(want, input[:4]...)
			sortRows(schema, want)
			checkRows(t, "after the upsert", tbl, want)
			var positionDeletes int
			for _, f := range res.Files {
				if f.Content == manifest.ContentPositionDeletes {
					positionDeletes++
				}
			}
			if (mode == "") != (positionDeletes > 0) {
				t.Fatalf("mode %q wrote %d position delete files", mode, positionDeletes)
			}
		})
	}
}

// Upserting into Spark's v3 table with deletion vectors (rows i = 1..5
// less 2 and 4): its only column is the key, so matched rows are
// unchanged and skipped, and the deleted row 2 comes back as inserted.
func TestUpsertOnSparkV3DeletionVectors(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v3_deletion_vectors")
	rr := rowsReader(t, tbl, [][]any{{int32(1)}, {int32(2)}, {int32(3)}})
	defer rr.Release()
	res, err := Upsert(ctx, tbl, rr, upsertOpts("", "i"))
	if err != nil {
		t.Fatal(err)
	}
	if res.RowsUpdated != 0 || res.RowsInserted != 1 || !res.Committed {
		t.Fatalf("result %+v: want 0 updated, 1 inserted", res)
	}
	checkRows(t, "after the upsert", tbl, [][]any{{int32(1)}, {int32(2)}, {int32(3)}, {int32(5)}})
	// Nothing was deleted: the snapshot adds one data file of one row.
	if len(res.Files) != 1 || res.Files[0].Content != manifest.ContentData || res.Files[0].RecordCount != 1 {
		t.Fatalf("the snapshot added %+v", res.Files)
	}
}
