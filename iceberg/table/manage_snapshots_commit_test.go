package table

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// action.ManageSnapshots committed through the table's commit loop.

// A rollback racing an append on main: whichever commits second from the
// same table version conflicts and commits nothing.
func TestRollbackRacingAnAppendConflicts(t *testing.T) {
	ctx := t.Context()
	tbl, s := fiveAppends(t)
	appender, roller := reopen(t, tbl), reopen(t, tbl)
	more := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(9, 100, 5), 5))
	appended, err := snapshotIDOf(appender.Append(ctx, more, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	before := metadataFiles(t, tbl)
	_, err = roller.Apply(ctx, new(action.ManageSnapshots).RollbackTo(s[2]))
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "main") {
		t.Fatalf("rollback from a stale version after an append: %v", err)
	}
	if got := metadataFiles(t, tbl); got != before {
		t.Fatalf("the refused rollback committed: %d versions, had %d", got, before)
	}
	if cur := *reopen(t, tbl).Metadata.CurrentSnapshotID; cur != appended {
		t.Fatalf("current snapshot %d, want the append's %d", cur, appended)
	}

	// The other order: the rollback lands first. An append re-bases on
	// whatever main is (as it does after any commit) and lands on top of
	// the rollback.
	roller, appender = reopen(t, tbl), reopen(t, tbl)
	if _, err := roller.Apply(ctx, new(action.ManageSnapshots).RollbackTo(s[2])); err != nil {
		t.Fatal(err)
	}
	more = intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(10, 200, 5), 5))
	id, err := snapshotIDOf(appender.Append(ctx, more, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if p := reopen(t, tbl).Metadata.SnapshotByID(id).ParentSnapshotID; p == nil || *p != s[2] {
		t.Errorf("append after the rollback has parent %v, want %d", p, s[2])
	}
}

// A rollback changes what is read; a refused one names the snapshot and
// commits nothing.
func TestRollbackThroughTheTable(t *testing.T) {
	ctx := t.Context()
	tbl, s := fiveAppends(t)
	all := livePaths(t, tbl)
	if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).RollbackTo(s[1])); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if got := livePaths(t, fresh); len(got) != 2 || len(all) != 5 {
		t.Fatalf("after rolling back to the second append: %d files, before %d", len(got), len(all))
	}
	before := metadataFiles(t, tbl)
	_, err := tbl.Apply(ctx, new(action.ManageSnapshots).RollbackTo(s[3]))
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), idString(&s[3])) {
		t.Fatalf("rollback to a snapshot no longer main's ancestor: %v", err)
	}
	if metadataFiles(t, tbl) != before {
		t.Fatal("a refused rollback committed")
	}
	// Forward again: set current snapshot takes any.
	if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).SetCurrentSnapshot(s[4])); err != nil {
		t.Fatal(err)
	}
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, all) {
		t.Errorf("back at the last snapshot: %v, want %v", got, all)
	}
}

// Write-audit-publish by branch: commit to an audit branch, main does
// not see it, fast-forward main publishes it; a main that moved on
// meanwhile is refused.
func TestAuditBranchFastForwardsMain(t *testing.T) {
	ctx := t.Context()
	tbl, _ := fiveAppends(t)
	if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).CreateBranch("audit", 0)); err != nil {
		t.Fatal(err)
	}
	staged := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(11, 300, 5), 5))
	audited, err := snapshotIDOf(tbl.Append(ctx, staged, CommitOptions{Branch: "audit"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(livePaths(t, tbl)) != 5 {
		t.Fatal("main sees the audit branch's commit")
	}
	if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).FastForwardBranch(metadata.MainBranch, "audit")); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if *fresh.Metadata.CurrentSnapshotID != audited || len(livePaths(t, fresh)) != 6 {
		t.Fatalf("after publishing: current %d, want %d", *fresh.Metadata.CurrentSnapshotID, audited)
	}

	// audit gets another commit, main another of its own: they diverged.
	more := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(12, 400, 10), 5))
	if _, err := tbl.Append(ctx, []manifest.DataFile{more[0]}, CommitOptions{Branch: "audit"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Append(ctx, []manifest.DataFile{more[1]}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = tbl.Apply(ctx, new(action.ManageSnapshots).FastForwardBranch(metadata.MainBranch, "audit"))
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), `"audit"`) || !strings.Contains(err.Error(), "not an ancestor") {
		t.Fatalf("fast-forward of a diverged main: %v", err)
	}
}
