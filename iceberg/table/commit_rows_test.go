package table

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/committest"
	"github.com/floedb/floe/internal/testtable"
)

func idBelow(t *testing.T, n int64) expr.Expr {
	t.Helper()
	p, err := expr.NewPredicate(expr.OpLt, "id", n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// PlanRows sorts files by their id metrics into whole and partly selected
// ones; CommitRows refuses changes the plan does not cover and commits
// the rest: whole files gone, position deletes on the partial file.
func TestPlanAndCommitRows(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 30), 10)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.PlanRows(ctx, idBelow(t, 15), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Whole) != 1 || plan.Whole[0].File.FilePath != files[0].FilePath ||
		len(plan.Partial) != 1 || plan.Partial[0].File.FilePath != files[1].FilePath || plan.SnapshotID() != tbl.Metadata.CurrentSnapshot().SnapshotID {
		t.Fatalf("plan: whole %d, partial %d", len(plan.Whole), len(plan.Partial))
	}
	dir := t.TempDir()
	onWhole, _ := committest.WritePositionDeletes(filepath.Join(dir, "w.parquet"), 0, []any{}, []committest.Position{{Path: files[0].FilePath, Pos: 1}})
	onPartial, _ := committest.WritePositionDeletes(filepath.Join(dir, "p.parquet"), 0, []any{}, []committest.Position{{Path: files[1].FilePath, Pos: 0}, {Path: files[1].FilePath, Pos: 4}})
	bad := []struct {
		what    string
		changes RowChanges
		opts    CommitOptions
	}{
		{"removes a file the filter does not select", RowChanges{RemovedDataFiles: []string{files[2].FilePath}}, CommitOptions{}},
		{"deletes rows of a file it removes", RowChanges{DeleteFiles: []manifest.DataFile{onWhole}}, CommitOptions{}},
		{"a delete file among the data files", RowChanges{DataFiles: []manifest.DataFile{onPartial}}, CommitOptions{}},
		{"commits to another branch", RowChanges{}, CommitOptions{Branch: "dev"}},
	}
	for _, b := range bad {
		if _, err := tbl.CommitRows(ctx, plan, b.changes, b.opts); err == nil {
			t.Errorf("a change that %s was committed", b.what)
		}
	}
	id, err := snapshotIDOf(tbl.CommitRows(ctx, plan, RowChanges{DeleteFiles: []manifest.DataFile{onPartial}}, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	s := tbl.Metadata.SnapshotByID(id).Summary
	if s["operation"] != OpDelete || s["deleted-data-files"] != "1" || s["added-position-deletes"] != "2" {
		t.Fatalf("summary %v", s)
	}
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, pathsOf(files[1:])) {
		t.Fatalf("live %v", got)
	}
	checkNoOrphans(t, tbl)
}

// Delete files of a partition the filter selects entirely go with its
// data files.
func TestCommitRowsDropsDeletesOfWholePartitions(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	files := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 40, 1, 2), 10)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	eq, err := committest.WriteEqualityDeletes(filepath.Join(t.TempDir(), "eq.parquet"), byInt.ID, []any{int32(1)}, testtable.IDID, "id", []int64{0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{eq}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	one, _ := expr.NewPredicate(expr.OpEq, "i", int64(1))
	plan, err := tbl.PlanRows(ctx, one, "")
	if err != nil {
		t.Fatal(err)
	}
	id, err := snapshotIDOf(tbl.CommitRows(ctx, plan, RowChanges{}, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	s := tbl.Metadata.SnapshotByID(id).Summary
	if s["removed-equality-delete-files"] != "1" || s["total-delete-files"] != "0" || s["deleted-data-files"] != "2" {
		t.Fatalf("summary %v", s)
	}
	if got := partitionsOf(t, tbl); len(got[1]) != 0 || len(got[2]) != 2 {
		t.Fatalf("partitions %v", got)
	}
}

// Deletes another writer adds to a file this change rewrites conflict;
// added to a file it only gives position deletes, they do not.
func TestCommitRowsConflictsWithDeletesOnRewrittenFiles(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	rows := rowsWithIDs(1, 0, 30)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rows, 10)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.PlanRows(ctx, idBelow(t, 15), "")
	if err != nil {
		t.Fatal(err)
	}
	eq, _ := committest.WriteEqualityDeletes(filepath.Join(t.TempDir(), "eq.parquet"), 0, []any{}, testtable.IDID, "id", []int64{17})
	if _, err := reopen(t, tbl).RowDelta(ctx, nil, []manifest.DataFile{eq}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	rewritten := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rows[15:20], 10)
	before := len(reopen(t, tbl).Metadata.Snapshots)
	_, err = tbl.CommitRows(ctx, plan, RowChanges{RemovedDataFiles: []string{files[1].FilePath}, DataFiles: rewritten}, CommitOptions{})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "eq.parquet") {
		t.Fatalf("rewrite under a new equality delete: %v", err)
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != before {
		t.Fatalf("%d snapshots after the conflict, %d before", n, before)
	}
	pos, _ := committest.WritePositionDeletes(filepath.Join(t.TempDir(), "p.parquet"), 0, []any{}, []committest.Position{{Path: files[1].FilePath, Pos: 2}})
	if _, err := tbl.CommitRows(ctx, plan, RowChanges{DeleteFiles: []manifest.DataFile{pos}}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	checkNoOrphans(t, tbl)
}
