package table

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/committest"
	"github.com/floedb/floe/internal/testtable"
)

func TestRowDeltaPositionAndEqualityDeletesV2(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 30), 10)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pos, err := committest.WritePositionDeletes(filepath.Join(dir, "pos.parquet"), 0, []any{}, []committest.Position{{Path: files[0].FilePath, Pos: 3}})
	if err != nil {
		t.Fatal(err)
	}
	eq, err := committest.WriteEqualityDeletes(filepath.Join(dir, "eq.parquet"), 0, []any{}, testtable.IDID, "id", []int64{15})
	if err != nil {
		t.Fatal(err)
	}
	more := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 5), 10)
	id, err := snapshotIDOf(tbl.RowDelta(ctx, more, []manifest.DataFile{pos, eq}, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	s := tbl.Metadata.SnapshotByID(id).Summary
	if s["operation"] != OpOverwrite || summaryInt(t, s, "added-position-deletes") != 1 || summaryInt(t, s, "added-equality-deletes") != 1 ||
		summaryInt(t, s, "total-delete-files") != 2 || summaryInt(t, s, "added-position-delete-files") != 1 {
		t.Fatalf("summary %v", s)
	}
	plan, err := reopen(t, tbl).PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range plan.Tasks {
		var kinds []string
		for _, d := range task.Deletes {
			kinds = append(kinds, d.File.Content.String())
		}
		got := strings.Join(kinds, ",")
		var want string
		switch {
		case task.File.FilePath == files[0].FilePath:
			want = "POSITION_DELETES,EQUALITY_DELETES"
		case task.DataSequenceNumber == 1:
			want = "EQUALITY_DELETES" // older data only
		}
		if got != want {
			t.Errorf("%s (seq %d): deletes %q, want %q", task.File.FilePath, task.DataSequenceNumber, got, want)
		}
	}

	// A position delete naming a data file another writer removed.
	stale := reopen(t, tbl)
	if _, err := tbl.Commit(ctx, nil, []string{files[1].FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	late, err := committest.WritePositionDeletes(filepath.Join(dir, "late.parquet"), 0, []any{}, []committest.Position{{Path: files[1].FilePath, Pos: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stale.RowDelta(ctx, nil, []manifest.DataFile{late}, CommitOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("delete of a removed file's rows: %v", err)
	}
	if _, err := createTable(t, 1, nil, nil).RowDelta(ctx, nil, []manifest.DataFile{eq}, CommitOptions{}); err == nil {
		t.Fatal("a v1 table took a row delta")
	}
	checkNoOrphans(t, tbl)
}

func TestRowDeltaDeletionVectorsV3(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 3, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pos, _ := committest.WritePositionDeletes(filepath.Join(dir, "pos.parquet"), 0, []any{}, []committest.Position{{Path: files[0].FilePath, Pos: 3}})
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{pos}, CommitOptions{}); err == nil {
		t.Fatal("a v3 table took a position delete file")
	}
	dv1, err := committest.WriteDeletionVector(filepath.Join(dir, "dv1.puffin"), files[0], []int64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	stale := reopen(t, tbl)
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{dv1}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// The next vector for the file absorbs the first, which leaves.
	dv2, err := committest.WriteDeletionVector(filepath.Join(dir, "dv2.puffin"), files[0], []int64{1, 2, 7})
	if err != nil {
		t.Fatal(err)
	}
	id, err := snapshotIDOf(tbl.RowDelta(ctx, nil, []manifest.DataFile{dv2}, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	s := tbl.Metadata.SnapshotByID(id).Summary
	if s["operation"] != OpDelete || summaryInt(t, s, "added-dvs") != 1 || summaryInt(t, s, "removed-dvs") != 1 ||
		summaryInt(t, s, "total-position-deletes") != 3 || summaryInt(t, s, "total-delete-files") != 1 {
		t.Fatalf("summary %v", s)
	}
	plan, err := reopen(t, tbl).PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.DeleteFiles) != 1 || plan.DeleteFiles[0].File.FilePath != dv2.FilePath {
		t.Fatalf("live delete files %v", plan.DeleteFiles)
	}
	// A writer planned before dv1 gives the file a vector of its own: it
	// did not absorb dv1, so it must not commit.
	dv3, _ := committest.WriteDeletionVector(filepath.Join(dir, "dv3.puffin"), files[0], []int64{9})
	if _, err := stale.RowDelta(ctx, nil, []manifest.DataFile{dv3}, CommitOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("a vector planned before another: %v", err)
	}
	checkNoOrphans(t, tbl)
}
