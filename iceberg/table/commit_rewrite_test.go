package table

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/committest"
	"github.com/floedb/floe/internal/testtable"
)

// rewriteSetup is a v2 table with three appended files (ids 0..29, ten a
// file) and a fourth file holding the same rows as the first two, as a
// compaction would have written it.
func rewriteSetup(t *testing.T) (*Table, []manifest.DataFile, manifest.DataFile) {
	t.Helper()
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 30), 10)
	if _, err := tbl.Append(context.Background(), files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	compacted := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 20)
	return tbl, files, compacted[0]
}

func TestRewriteFilesReplacesAndKeepsStartingSequenceNumber(t *testing.T) {
	ctx := context.Background()
	tbl, files, compacted := rewriteSetup(t)
	start := tbl.Metadata.CurrentSnapshot()
	// Another writer appends while the rewrite runs: no conflict.
	more := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 5), 10)
	if _, err := reopen(t, tbl).Append(ctx, more, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := tbl.RewriteFiles(ctx, []string{files[0].FilePath, files[1].FilePath}, nil, []manifest.DataFile{compacted},
		RewriteOptions{StartingSnapshotID: start.SnapshotID})
	if err != nil {
		t.Fatal(err)
	}
	snap := tbl.Metadata.SnapshotByID(res.SnapshotID)
	if snap.Summary["operation"] != OpReplace || summaryInt(t, snap.Summary, "deleted-data-files") != 2 ||
		summaryInt(t, snap.Summary, "added-data-files") != 1 || summaryInt(t, snap.Summary, "total-records") != 35 {
		t.Fatalf("summary %v", snap.Summary)
	}
	plan, err := reopen(t, tbl).PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	seqs := map[string]int64{}
	for _, task := range plan.Tasks {
		seqs[task.File.FilePath] = task.DataSequenceNumber
	}
	if len(seqs) != 3 || seqs[compacted.FilePath] != start.SequenceNumber || seqs[files[2].FilePath] != start.SequenceNumber {
		t.Fatalf("live files and data sequence numbers %v, want %s at %d", seqs, compacted.FilePath, start.SequenceNumber)
	}
	checkNoOrphans(t, tbl)
}

func TestRewriteFilesConflictsLeaveTableUnchanged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Run("removed file gone", func(t *testing.T) {
		tbl, files, compacted := rewriteSetup(t)
		stale := reopen(t, tbl)
		if _, err := tbl.Commit(ctx, nil, []string{files[1].FilePath}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		before := reopen(t, tbl).MetadataLocation
		_, err := stale.RewriteFiles(ctx, []string{files[0].FilePath, files[1].FilePath}, nil, []manifest.DataFile{compacted}, RewriteOptions{})
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("rewrite of a removed file: %v", err)
		}
		if after := reopen(t, tbl).MetadataLocation; after != before {
			t.Fatalf("table moved from %s to %s", before, after)
		}
	})
	t.Run("position delete after start", func(t *testing.T) {
		tbl, files, compacted := rewriteSetup(t)
		start := tbl.Metadata.CurrentSnapshot().SnapshotID
		pos, err := committest.WritePositionDeletes(filepath.Join(dir, "pos.parquet"), 0, []any{}, []committest.Position{{Path: files[1].FilePath, Pos: 4}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reopen(t, tbl).RowDelta(ctx, nil, []manifest.DataFile{pos}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		before := reopen(t, tbl).MetadataLocation
		// The commit refreshes and retries on the newer version, where it
		// finds the delete.
		_, err = tbl.RewriteFiles(ctx, []string{files[0].FilePath, files[1].FilePath}, nil, []manifest.DataFile{compacted}, RewriteOptions{StartingSnapshotID: start})
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("rewrite over a newer position delete: %v", err)
		}
		if after := reopen(t, tbl).MetadataLocation; after != before {
			t.Fatalf("table moved from %s to %s", before, after)
		}
		// A rewrite of files the delete does not name goes through.
		third := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 20, 10), 10)[0]
		if _, err := tbl.RewriteFiles(ctx, []string{files[2].FilePath}, nil, []manifest.DataFile{third}, RewriteOptions{StartingSnapshotID: start}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("equality delete after start", func(t *testing.T) {
		tbl, files, compacted := rewriteSetup(t)
		start := tbl.Metadata.CurrentSnapshot().SnapshotID
		eq, err := committest.WriteEqualityDeletes(filepath.Join(dir, "eq.parquet"), 0, []any{}, testtable.IDID, "id", []int64{3})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reopen(t, tbl).RowDelta(ctx, nil, []manifest.DataFile{eq}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		removed := []string{files[0].FilePath, files[1].FilePath}
		// A fresh sequence number would let the delete miss the moved row.
		if _, err := reopen(t, tbl).RewriteFiles(ctx, removed, nil, []manifest.DataFile{compacted},
			RewriteOptions{StartingSnapshotID: start, FreshSequenceNumber: true}); !errors.Is(err, ErrConflict) {
			t.Fatalf("fresh-sequence rewrite over a newer equality delete: %v", err)
		}
		// The starting sequence number keeps the delete applying.
		if _, err := tbl.RewriteFiles(ctx, removed, nil, []manifest.DataFile{compacted}, RewriteOptions{StartingSnapshotID: start}); err != nil {
			t.Fatal(err)
		}
		plan, err := reopen(t, tbl).PlanFiles(ctx, SnapshotSelector{})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range plan.Tasks {
			if task.File.FilePath == compacted.FilePath && (len(task.Deletes) != 1 || task.Deletes[0].File.FilePath != eq.FilePath) {
				t.Fatalf("the compacted file's deletes %v, want the equality delete", task.Deletes)
			}
		}
	})
}

func TestRewriteFilesTokenAndDeleteRemoval(t *testing.T) {
	ctx := context.Background()
	tbl, files, compacted := rewriteSetup(t)
	pos, err := committest.WritePositionDeletes(filepath.Join(t.TempDir(), "pos.parquet"), 0, []any{}, []committest.Position{{Path: files[2].FilePath, Pos: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{pos}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// Naming a data file among the deletes is refused.
	if _, err := tbl.RewriteFiles(ctx, nil, []string{files[0].FilePath}, nil, RewriteOptions{}); err == nil || errors.Is(err, ErrConflict) {
		t.Fatalf("a data file among the delete files: %v", err)
	}
	stale := reopen(t, tbl)
	opts := RewriteOptions{CommitOptions: CommitOptions{Token: "compact-1"}}
	first, err := tbl.RewriteFiles(ctx, []string{files[0].FilePath, files[1].FilePath}, nil, []manifest.DataFile{compacted}, opts)
	if err != nil {
		t.Fatal(err)
	}
	again, err := stale.RewriteFiles(ctx, []string{files[0].FilePath, files[1].FilePath}, nil, []manifest.DataFile{compacted}, opts)
	if err != nil || !again.TokenFound || again.SnapshotID != first.SnapshotID {
		t.Fatalf("retried token: %+v %v, first %+v", again, err, first)
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != 3 {
		t.Fatalf("%d snapshots after a retried rewrite, want 3", n)
	}
	// Removing a delete file alone (it applies to a live file here, which
	// is the caller's call) is a replace too.
	res, err := tbl.RewriteFiles(ctx, nil, []string{pos.FilePath}, nil, RewriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := tbl.Metadata.SnapshotByID(res.SnapshotID).Summary
	if s["operation"] != OpReplace || summaryInt(t, s, "total-delete-files") != 0 || summaryInt(t, s, "removed-delete-files") != 1 {
		t.Fatalf("summary %v", s)
	}
	if _, err := tbl.RewriteFiles(ctx, nil, []string{pos.FilePath}, nil, RewriteOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("removing a delete file twice: %v", err)
	}
}

func TestRewriteFilesDropsVectorsOfReplacedFilesV3(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 3, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	dv, err := committest.WriteDeletionVector(filepath.Join(t.TempDir(), "dv.puffin"), files[0], []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{dv}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	compacted := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 20)[0]
	if _, err := tbl.RewriteFiles(ctx, []string{files[0].FilePath, files[1].FilePath}, nil, []manifest.DataFile{compacted}, RewriteOptions{}); err != nil {
		t.Fatal(err)
	}
	plan, err := reopen(t, tbl).PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Tasks) != 1 || len(plan.DeleteFiles) != 0 {
		t.Fatalf("%d files, %d delete files after the rewrite; want 1 and 0", len(plan.Tasks), len(plan.DeleteFiles))
	}
}

// A rewrite is a transaction step like the others: one metadata version
// with the replace snapshot and the step after it.
func TestRewriteFilesInATransaction(t *testing.T) {
	ctx := context.Background()
	tbl, files, compacted := rewriteSetup(t)
	tx := tbl.Transaction()
	if err := tx.RewriteFiles([]string{files[0].FilePath, files[1].FilePath}, nil, []manifest.DataFile{compacted}, RewriteOptions{}); err != nil {
		t.Fatal(err)
	}
	tx.SetProperties(map[string]string{"compacted": "yes"}, nil)
	before := len(tbl.Metadata.MetadataLog)
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if len(res.SnapshotIDs) != 1 || fresh.Metadata.CurrentSnapshot().Operation() != OpReplace ||
		fresh.Metadata.Properties["compacted"] != "yes" || len(fresh.Metadata.MetadataLog) != before+1 {
		t.Fatalf("transaction: %+v, properties %v", res, fresh.Metadata.Properties)
	}
	if got := livePaths(t, fresh); len(got) != 2 {
		t.Fatalf("live files %v", got)
	}
	// A step that cannot be built fails the transaction.
	if err := tbl.Transaction().RewriteFiles(nil, nil, nil, RewriteOptions{}); err == nil {
		t.Fatal("a rewrite removing nothing was taken")
	}
}
