package table

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// tag points a tag at a snapshot through a metadata-only commit.
func tag(t *testing.T, tbl *Table, name string, id int64) {
	t.Helper()
	res, err := tbl.commitMetadata(context.Background(), func(_ context.Context, base *Table, _ int) (*metadata.Changes, error) {
		changes := metadata.Edit(base.Metadata)
		return changes, changes.Apply(metadata.SetSnapshotRef{Name: name, Ref: metadata.Ref{SnapshotID: id, Type: metadata.RefTag}})
	})
	if err != nil {
		t.Fatal(err)
	}
	*tbl = *res.Table
}

func TestExpireSnapshotsDeletesWhatNoSnapshotReferences(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 60), 10))
	var ids []int64
	for i := range 6 {
		id, err := snapshotIDOf(tbl.Append(ctx, []manifest.DataFile{files[i]}, CommitOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	removeID, err := snapshotIDOf(tbl.Commit(ctx, nil, []string{files[0].FilePath}, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	tag(t, tbl, "audit", ids[2])
	before := reopen(t, tbl)
	lists := map[int64]string{}
	for _, s := range before.Metadata.Snapshots {
		lists[s.SnapshotID] = s.ManifestList
	}

	now := time.Now().UnixMilli() + 1
	keep := 1
	res, err := tbl.ExpireSnapshots(ctx, &now, &keep, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantExpired := []int64{ids[0], ids[1], ids[3], ids[4], ids[5]}
	slices.Sort(wantExpired)
	if !slices.Equal(res.ExpiredSnapshots, wantExpired) {
		t.Fatalf("expired %v, want %v", res.ExpiredSnapshots, wantExpired)
	}
	fresh := reopen(t, tbl)
	var left []int64
	for _, s := range fresh.Metadata.Snapshots {
		left = append(left, s.SnapshotID)
	}
	slices.Sort(left)
	want := []int64{ids[2], removeID}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Fatalf("snapshots left %v, want %v (the current one and the tagged one)", left, want)
	}
	for _, e := range fresh.Metadata.SnapshotLog {
		if e.SnapshotID != removeID {
			t.Errorf("snapshot log still has %d: %v", e.SnapshotID, fresh.Metadata.SnapshotLog)
		}
	}
	// The removed file: the tagged snapshot (the third append) still
	// holds it live, so it stays.
	if !exists(files[0].FilePath) {
		t.Fatalf("%s was deleted while the tagged snapshot holds it", files[0].FilePath)
	}
	for _, id := range wantExpired {
		if exists(lists[id]) {
			t.Errorf("manifest list of expired snapshot %d still exists", id)
		}
	}
	for _, id := range want {
		if !exists(lists[id]) {
			t.Errorf("manifest list of kept snapshot %d was deleted", id)
		}
	}
	for _, df := range files[1:6] {
		if !exists(df.FilePath) {
			t.Errorf("live file %s was deleted", df.FilePath)
		}
	}
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(files[1:6])) {
		t.Fatalf("live files %v", got)
	}
	if _, err := fresh.PlanFiles(ctx, SnapshotSelector{Ref: "audit"}); err != nil {
		t.Fatalf("plan the tagged snapshot: %v", err)
	}

	// Dropping the tag (it is older than its max age) lets its snapshot,
	// and with it the removed file, go.
	if err := tbl.SetProperties(ctx, map[string]string{PropMaxRefAgeMs: "1"}, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	res, err = tbl.ExpireSnapshots(ctx, &now, &keep, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.ExpiredSnapshots, []int64{ids[2]}) || !slices.Equal(res.RemovedRefs, []string{"audit"}) {
		t.Fatalf("second expiry: %+v", res)
	}
	if exists(files[0].FilePath) {
		t.Fatalf("%s is referenced by no snapshot but was not deleted", files[0].FilePath)
	}
	for _, df := range files[1:6] {
		if !exists(df.FilePath) {
			t.Errorf("live file %s was deleted", df.FilePath)
		}
	}
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, pathsOf(files[1:6])) {
		t.Fatalf("live files %v", got)
	}
	checkNoOrphans(t, tbl)

	// Nothing left to expire: no new version.
	loc := reopen(t, tbl).MetadataLocation
	if res, err := tbl.ExpireSnapshots(ctx, &now, &keep, ExpireOptions{}); err != nil || len(res.ExpiredSnapshots) != 0 {
		t.Fatalf("third expiry: %+v, %v", res, err)
	}
	if reopen(t, tbl).MetadataLocation != loc {
		t.Fatal("an expiry that expired nothing committed")
	}
}

func TestExpireSnapshotsDefaultsKeepRecentSnapshots(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	for range 3 {
		if _, err := tbl.Append(ctx, nil, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Defaults: snapshots younger than 5 days stay.
	res, err := tbl.ExpireSnapshots(ctx, nil, nil, ExpireOptions{})
	if err != nil || len(res.ExpiredSnapshots) != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	if err := tbl.SetProperties(ctx, map[string]string{PropMaxSnapshotAgeMs: "1", PropMinSnapshotsToKeep: "2"}, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	res, err = tbl.ExpireSnapshots(ctx, nil, nil, ExpireOptions{KeepFiles: true})
	if err != nil || len(res.ExpiredSnapshots) != 1 || len(res.DeletedFiles) != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != 2 {
		t.Fatalf("%d snapshots left, want 2", n)
	}
	zero := 0
	if _, err := tbl.ExpireSnapshots(ctx, nil, &zero, ExpireOptions{}); err == nil {
		t.Fatal("retaining 0 snapshots was accepted")
	}
}

// A data file a kept snapshot names by another spelling (file:///p for
// /p) is still referenced: expiring the snapshot that named it /p leaves it.
func TestExpireSnapshotsKeepsAFileSpelledAnotherWay(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10))
	if _, err := tbl.Append(ctx, files[:1], CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	respelled := files[0]
	respelled.FilePath = "file://" + files[0].FilePath
	// One file, two spellings: a commit refuses to add what it removes.
	if _, err := tbl.Commit(ctx, []manifest.DataFile{respelled}, []string{files[0].FilePath}, CommitOptions{}); err == nil {
		t.Fatal("a commit added and removed one file under two spellings")
	}
	// A removal names the file in either spelling.
	if _, err := tbl.Commit(ctx, nil, []string{respelled.FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Append(ctx, []manifest.DataFile{respelled}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	now, keep := time.Now().UnixMilli()+1, 1
	res, err := tbl.ExpireSnapshots(ctx, &now, &keep, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ExpiredSnapshots) != 2 {
		t.Fatalf("expired %v, want the first two snapshots", res.ExpiredSnapshots)
	}
	if !exists(files[0].FilePath) {
		t.Fatalf("expire deleted %s, which the current snapshot names as %s", files[0].FilePath, respelled.FilePath)
	}
	for _, p := range res.DeletedFiles {
		if p == files[0].FilePath || p == respelled.FilePath {
			t.Errorf("expire reports deleting %s", p)
		}
	}
}
