package maintain

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// deleteActions are the actions of the planner that handle delete files.
var deleteActions = []string{ActionConvertEqualityDeletes, ActionRewritePositionDeletes, ActionRemoveDanglingDeletes}

// plannedDeleteActions runs the planner's dry run and returns the delete
// actions it names, in order, and its health.
func plannedDeleteActions(t *testing.T, tbl *table.Table, opts MaintainOptions) ([]string, Health) {
	t.Helper()
	opts.DryRun = true
	rep, err := Maintain(context.Background(), tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range rep.Actions {
		if a.Reason == "" || a.Result != nil {
			t.Fatalf("dry run action %+v", a)
		}
		if slices.Contains(deleteActions, a.Action) {
			out = append(out, a.Action)
		}
	}
	return out, rep.Health
}

// maintainDeletes runs the planner on tbl: the dry run names exactly the
// delete actions want (in order), the run does them with the rows as they
// were, and a second run on the table as it is afterwards does nothing.
func maintainDeletes(t *testing.T, tbl *table.Table, opts MaintainOptions, want []string) (Health, Health) {
	t.Helper()
	return maintainDeletesJudged(t, tbl, opts, want, want)
}

// maintainDeletesJudged is maintainDeletes where the run, judging each
// action on the table the earlier ones left, does fewer than the dry run
// names (wantDry).
func maintainDeletesJudged(t *testing.T, tbl *table.Table, opts MaintainOptions, wantDry, want []string) (Health, Health) {
	t.Helper()
	ctx := context.Background()
	planned, h := plannedDeleteActions(t, tbl, opts)
	if !reflect.DeepEqual(planned, wantDry) {
		t.Fatalf("dry run planned %v, want %v (health %+v)", planned, wantDry, h)
	}
	before := wholeRowsSorted(tableRows(t, tbl))
	rep, err := Maintain(ctx, tbl, opts)
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	var ran []string
	for _, a := range rep.Actions {
		if a.Error != "" || a.Result == nil {
			t.Fatalf("action %+v", a)
		}
		if slices.Contains(deleteActions, a.Action) {
			ran = append(ran, a.Action)
		}
	}
	if !reflect.DeepEqual(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	fresh := reopen(t, tbl)
	rowstest.CompareRows(t, "after maintenance", fresh.Metadata.CurrentSchema(), before, wholeRowsSorted(tableRows(t, fresh)))
	after, err := CheckHealth(ctx, fresh, opts.Health)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Maintain(ctx, fresh, opts)
	if err != nil || len(again.Actions) != 0 {
		t.Fatalf("second run: %v, %+v (health %+v)", err, again.Actions, again.Health)
	}
	return h, after
}

// wholeRowsSorted sorts rows by every column (tableRows sorts by the
// first only, and fixtures repeat ids), so equal multisets compare equal.
func wholeRowsSorted(rows [][]any) [][]any {
	slices.SortStableFunc(rows, func(a, b []any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return rows
}

// noCompaction keeps compaction from picking the few small files of the
// tables below, so the delete rewrites are what the planner must choose.
var noCompaction = HealthOptions{SkipOrphans: true, Rewrite: RewriteDataFilesOptions{MinInputFiles: 1 << 20, DeleteRatioThreshold: -1}}

// idsIn returns up to n ids of rows in partition b = part.
func idsIn(rows [][]any, part bool, n int) []int64 {
	var out []int64
	for _, r := range rows {
		if b, ok := r[10].(bool); ok && b == part && len(out) < n {
			out = append(out, r[0].(int64))
		}
	}
	return out
}

// Equality deletes on a floe-made table (v2: converted to position
// files; v3: to deletion vectors): the planner converts once there are
// MinEqualityDeleteFiles applying (default 1), never with a negative
// threshold, and leaves no equality delete.
func TestMaintainConvertsEqualityDeletes(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(map[int]string{2: "v2", 3: "v3"}[version], func(t *testing.T) {
			tbl, rows := smallFilesTable(t, version, 200, 100)
			if planned, h := plannedDeleteActions(t, tbl, MaintainOptions{Health: noCompaction}); len(planned) != 0 || h.EqualityDeleteFilesApplied != 0 {
				t.Fatalf("no delete yet: planned %v, health %+v", planned, h)
			}
			deleteByEquality(t, tbl, true, idsIn(rows, true, 4)...)
			two := MaintainOptions{Health: noCompaction, MinEqualityDeleteFiles: 2}
			if planned, h := plannedDeleteActions(t, tbl, two); len(planned) != 0 || h.EqualityDeleteFilesApplied != 1 {
				t.Fatalf("one equality delete file, threshold 2: planned %v, health %+v", planned, h)
			}
			deleteByEquality(t, tbl, false, idsIn(rows, false, 3)...)
			if planned, _ := plannedDeleteActions(t, tbl, MaintainOptions{Health: noCompaction, MinEqualityDeleteFiles: -1}); len(planned) != 0 {
				t.Fatalf("threshold -1: planned %v", planned)
			}
			h, after := maintainDeletes(t, tbl, two, []string{ActionConvertEqualityDeletes})
			// Each append wrote a file per partition: two data files in
			// each of the two partitions hold the deleted ids.
			if h.EqualityDeleteFiles != 2 || h.EqualityDeleteFilesApplied != 2 || h.EqualityDeleteRows != 7 || h.DataFilesWithEqualityDeletes != 4 {
				t.Fatalf("health before %+v", h)
			}
			if after.EqualityDeleteFiles != 0 || after.EqualityDeleteFilesApplied != 0 || after.DataFilesWithEqualityDeletes != 0 {
				t.Fatalf("health after %+v", after)
			}
			if version == 3 && (after.PositionDeleteFiles != 0 || after.DeletionVectors == 0) {
				t.Fatalf("v3 after: %+v", after)
			}
			if version == 2 && after.PositionDeleteFiles == 0 {
				t.Fatalf("v2 after: %+v", after)
			}
		})
	}
}

// Position delete files on v2: four that could merge (two per partition)
// are below the default threshold of five; a third delete makes six and
// the planner merges them to one per partition. MinPositionDeleteFiles 2
// would have merged the four.
func TestMaintainMergesPositionDeletes(t *testing.T) {
	tbl, rows := smallFilesTable(t, 2, 200, 100)
	trues, falses := idsIn(rows, true, 3), idsIn(rows, false, 3)
	for i := range 2 {
		deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", trues[i], falses[i]))
	}
	planned, h := plannedDeleteActions(t, tbl, MaintainOptions{Health: noCompaction})
	if len(planned) != 0 || h.PositionDeleteFilesToRewrite != 4 || h.MaxPositionDeleteFilesPerDataFile != 2 || h.SmallPositionDeleteFiles != 4 {
		t.Fatalf("four mergeable files, threshold 5: planned %v, health %+v", planned, h)
	}
	if planned, _ := plannedDeleteActions(t, tbl, MaintainOptions{Health: noCompaction, MinPositionDeleteFiles: 2}); !reflect.DeepEqual(planned, []string{ActionRewritePositionDeletes}) {
		t.Fatalf("threshold 2: planned %v", planned)
	}
	deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", trues[2], falses[2]))
	h, after := maintainDeletes(t, tbl, MaintainOptions{Health: noCompaction}, []string{ActionRewritePositionDeletes})
	if h.PositionDeleteFilesToRewrite != 6 || h.DataFilesWithPositionDeleteFiles == 0 {
		t.Fatalf("health before %+v", h)
	}
	if after.PositionDeleteFiles != 2 || after.PositionDeleteFilesToRewrite != 0 || after.MaxPositionDeleteFilesPerDataFile != 1 {
		t.Fatalf("health after %+v", after)
	}
}

// A v2 table with a position delete file per partition needs nothing;
// upgraded to v3, the same files are to be turned into deletion vectors,
// which the planner does.
func TestMaintainTurnsV3PositionDeletesIntoVectors(t *testing.T) {
	ctx := context.Background()
	tbl, rows := smallFilesTable(t, 2, 200, 100)
	deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", idsIn(rows, true, 1)[0], idsIn(rows, false, 1)[0]))
	if planned, h := plannedDeleteActions(t, tbl, MaintainOptions{Health: noCompaction}); len(planned) != 0 || h.PositionDeleteFiles != 2 {
		t.Fatalf("v2: planned %v, health %+v", planned, h)
	}
	if _, err := tbl.Transaction().UpgradeFormatVersion(3).Commit(ctx); err != nil {
		t.Fatal(err)
	}
	h, after := maintainDeletes(t, tbl, MaintainOptions{Health: noCompaction}, []string{ActionRewritePositionDeletes})
	if h.FormatVersion != 3 || h.PositionDeleteFilesToRewrite != 2 {
		t.Fatalf("health before %+v", h)
	}
	if after.PositionDeleteFiles != 0 || after.DeletionVectors != 2 {
		t.Fatalf("health after %+v", after)
	}
}

// Tables other engines wrote: DuckDB's and Flink's/NiFi's equality
// deletes are converted (Impala's tables also hold equality deletes that
// apply to no live file: the dry run names dangling-delete removal, but
// the conversion drops them, so the run does not); Impala's position
// deletes (one file per partition, or two in one partition) are merged
// only under a threshold of two; Impala's v3 deletion vectors need
// neither. Compaction is kept out so the delete actions run on the
// engines' own files, and retention is kept long (DuckDB's fixture lacks
// an old snapshot's manifest list, which expiry would read).
func TestMaintainDeletesOnFixtures(t *testing.T) {
	convert := []string{ActionConvertEqualityDeletes}
	convertDangling := []string{ActionConvertEqualityDeletes, ActionRemoveDanglingDeletes}
	cases := []struct {
		name      string
		opts      MaintainOptions
		dry, want []string
	}{
		{"duckdb_equality_deletes/mytable", MaintainOptions{}, convert, convert},
		{"duckdb_equality_deletes/mytable_partitioned", MaintainOptions{}, convert, convert},
		{"impala_iceberg_v2_delete_equality_partitioned", MaintainOptions{}, convertDangling, convert},
		{"impala_iceberg_v2_delete_pos_and_multi_eq_ids", MaintainOptions{}, convertDangling, convert},
		{"impala_iceberg_v2_equality_delete_schema_evolution", MaintainOptions{}, convert, convert},
		{"impala_iceberg_v2_partitioned_position_deletes", MaintainOptions{MinPositionDeleteFiles: 2}, nil, nil},
		{"impala_iceberg_v2_positional_not_all_data_files_have_delete_files", MaintainOptions{}, nil, nil},
		{"impala_iceberg_v2_positional_not_all_data_files_have_delete_files", MaintainOptions{MinPositionDeleteFiles: 2}, []string{ActionRewritePositionDeletes}, []string{ActionRewritePositionDeletes}},
		{"impala_iceberg_v3_deletion_vectors", MaintainOptions{}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := rowstest.CopyFixture(t, c.name)
			if err := tbl.SetProperties(context.Background(), map[string]string{table.PropMaxSnapshotAgeMs: "315360000000"}, nil); err != nil {
				t.Fatal(err)
			}
			opts := c.opts
			opts.Health = noCompaction
			h, after := maintainDeletesJudged(t, tbl, opts, c.dry, c.want)
			if after.EqualityDeleteFiles != 0 || after.DanglingDeleteFiles != 0 {
				t.Fatalf("after: %+v", after)
			}
			if slices.Contains(c.want, ActionConvertEqualityDeletes) != (h.EqualityDeleteFilesApplied > 0 && h.EqualityDeleteRows > 0) {
				t.Fatalf("before: %+v", h)
			}
			if slices.Contains(c.want, ActionRewritePositionDeletes) && (h.PositionDeleteFilesToRewrite != 2 || after.PositionDeleteFilesToRewrite != 0) {
				t.Fatalf("before %+v\nafter %+v", h, after)
			}
		})
	}
}

// Compaction comes first and applies every delete of the files it
// rewrites: an equality delete over small files that compaction takes is
// gone after it, so the conversion the dry run (judged on the table as it
// was) names does not run.
func TestMaintainCompactsBeforeRewritingDeletes(t *testing.T) {
	tbl, rows := smallFilesTable(t, 2, 600, 50)
	deleteByEquality(t, tbl, true, idsIn(rows, true, 5)...)
	opts := MaintainOptions{Health: HealthOptions{SkipOrphans: true}}
	planned, h := plannedDeleteActions(t, tbl, opts)
	if !reflect.DeepEqual(planned, []string{ActionConvertEqualityDeletes}) || h.CompactionGroups == 0 {
		t.Fatalf("dry run planned %v, health %+v", planned, h)
	}
	before := tableRows(t, tbl)
	rep, err := Maintain(context.Background(), tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, a := range rep.Actions {
		ran = append(ran, a.Action)
	}
	if len(ran) == 0 || ran[0] != ActionRewriteDataFiles || slices.Contains(ran, ActionConvertEqualityDeletes) {
		t.Fatalf("ran %v", ran)
	}
	fresh := reopen(t, tbl)
	rowstest.CompareRows(t, "after maintenance", fresh.Metadata.CurrentSchema(), before, tableRows(t, fresh))
	if _, _, eq := deleteCounts(liveFiles(t, fresh)); eq != 0 {
		t.Fatalf("%d equality delete files left", eq)
	}
}

// With the planner's defaults (compaction included), one run leaves each
// of the delete fixtures needing nothing, with the rows as they were.
func TestMaintainFixturesConverge(t *testing.T) {
	for _, name := range []string{
		"duckdb_equality_deletes/mytable", "duckdb_equality_deletes/mytable_partitioned",
		"impala_iceberg_v2_delete_equality_partitioned", "impala_iceberg_v2_delete_pos_and_multi_eq_ids",
		"impala_iceberg_v2_equality_delete_schema_evolution", "impala_iceberg_v2_partitioned_position_deletes",
		"impala_iceberg_v2_positional_not_all_data_files_have_delete_files", "impala_iceberg_v3_deletion_vectors",
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tbl := rowstest.CopyFixture(t, name)
			if err := tbl.SetProperties(ctx, map[string]string{table.PropMaxSnapshotAgeMs: "315360000000"}, nil); err != nil {
				t.Fatal(err)
			}
			opts := MaintainOptions{Health: HealthOptions{SkipOrphans: true}, MinPositionDeleteFiles: 2}
			before := wholeRowsSorted(tableRows(t, tbl))
			rep, err := Maintain(ctx, tbl, opts)
			if err != nil {
				t.Fatalf("%v\n%+v", err, rep)
			}
			fresh := reopen(t, tbl)
			rowstest.CompareRows(t, "after maintenance", fresh.Metadata.CurrentSchema(), before, wholeRowsSorted(tableRows(t, fresh)))
			again, err := Maintain(ctx, fresh, opts)
			if err != nil || len(again.Actions) != 0 {
				var ran []string
				for _, a := range rep.Actions {
					ran = append(ran, a.Action)
				}
				t.Fatalf("second run after %v: %v, %+v", ran, err, again.Actions)
			}
		})
	}
}
