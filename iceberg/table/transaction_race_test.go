package table

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
)

// A rollback and an append race on main from one version. When the
// append publishes first, the rollback was decided on a main that moved:
// it conflicts and commits nothing (the append's rows stay). When the
// rollback publishes first, the append is rebuilt on the rolled-back main,
// as appends always are: both land.
func TestRollbackRacingAnAppend(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	first, err := tbl.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 5), 5), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 10, 5), 5), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	appender, roller := reopen(t, tbl), reopen(t, tbl)
	rollback := roller.Transaction().Add(new(action.ManageSnapshots).RollbackTo(first.SnapshotID))
	appended, err := appender.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 20, 5), 5), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	versions := metadataFiles(t, tbl)
	if _, err := rollback.Commit(ctx); !errors.Is(err, ErrConflict) {
		t.Fatalf("a rollback decided before an append landed: %v", err)
	}
	md := reopen(t, tbl).Metadata
	if got := metadataFiles(t, tbl); got != versions || *md.CurrentSnapshotID != appended.SnapshotID {
		t.Fatalf("after the refused rollback: %d versions (had %d), main at %d (want %d)", got, versions, *md.CurrentSnapshotID, appended.SnapshotID)
	}

	// The other order: the rollback lands, the append from the same
	// version is rebuilt on the rolled-back main.
	appender, roller = reopen(t, tbl), reopen(t, tbl)
	if _, err := roller.Apply(ctx, new(action.ManageSnapshots).RollbackTo(first.SnapshotID)); err != nil {
		t.Fatal(err)
	}
	late, err := appender.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(4, 30, 5), 5), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md = reopen(t, tbl).Metadata
	head := md.SnapshotByID(*md.CurrentSnapshotID)
	if head.SnapshotID != late.SnapshotID || *head.ParentSnapshotID != first.SnapshotID {
		t.Fatalf("main at %d with parent %v; want %d on %d", head.SnapshotID, head.ParentSnapshotID, late.SnapshotID, first.SnapshotID)
	}
	if n := len(livePaths(t, reopen(t, tbl))); n != 2 {
		t.Fatalf("%d live files after rollback and append, want 2", n)
	}
}

// Appends from handles opened before a schema change all land, on the
// new schema.
func TestAppendsAfterASchemaChangeAllLand(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	const writers = 6
	handles := make([]*Table, writers)
	for i := range handles {
		handles[i] = reopen(t, tbl)
	}
	if _, err := tbl.Apply(ctx, new(action.UpdateSchema).AddColumn("added_later", iceberg.StringType{})); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i, h := range handles {
		files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(uint64(10+i), int64(100*i), 5), 5)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = h.Append(ctx, files, CommitOptions{})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	md := reopen(t, tbl).Metadata
	if len(md.Snapshots) != writers || len(livePaths(t, reopen(t, tbl))) != writers {
		t.Fatalf("%d snapshots, want %d", len(md.Snapshots), writers)
	}
	for _, s := range md.Snapshots {
		if *s.SchemaID != md.CurrentSchemaID {
			t.Fatalf("snapshot %d written under schema %d, current is %d", s.SnapshotID, *s.SchemaID, md.CurrentSchemaID)
		}
	}
}

// A rollback is logged when it was committed: time travel to a moment
// between the last commit and the rollback finds main as it was then,
// not the snapshot it was rolled back to.
func TestRollbackIsLoggedAtItsCommitTime(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	first, err := tbl.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 5), 5), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := tbl.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 10, 5), 5), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	between := tbl.Metadata.LastUpdatedMs + 1
	for time.Now().UnixMilli() <= between+1 {
		time.Sleep(time.Millisecond)
	}
	if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).RollbackTo(first.SnapshotID)); err != nil {
		t.Fatal(err)
	}
	md := reopen(t, tbl).Metadata
	if s, err := md.SnapshotAsOf(between); err != nil || s.SnapshotID != second.SnapshotID {
		t.Fatalf("as of a time before the rollback: %v %v, want %d", s, err, second.SnapshotID)
	}
	if s, err := md.SnapshotAsOf(md.LastUpdatedMs); err != nil || s.SnapshotID != first.SnapshotID {
		t.Fatalf("as of the rollback: %v %v, want %d", s, err, first.SnapshotID)
	}
	for i := 1; i < len(md.SnapshotLog); i++ {
		if md.SnapshotLog[i].TimestampMs < md.SnapshotLog[i-1].TimestampMs {
			t.Fatalf("snapshot log out of time order: %+v", md.SnapshotLog)
		}
	}
}
