package table

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

var wapOn = map[string]string{PropWAPEnabled: "true"}

// versionsOf counts the table's metadata JSON files: one per version.
func versionsOf(t *testing.T, tbl *Table) int {
	t.Helper()
	dir := filepath.Dir(strings.TrimPrefix(tbl.MetadataLocation, "file://"))
	names, err := filepath.Glob(filepath.Join(dir, "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	return len(names)
}

// planOf plans a snapshot by id and returns its data file paths, sorted,
// and its record count.
func planOf(t *testing.T, tbl *Table, id int64) ([]string, int64) {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{SnapshotID: &id})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, task := range plan.Tasks {
		paths = append(paths, task.File.FilePath)
	}
	slices.Sort(paths)
	return paths, plan.RecordCount()
}

func sortedPaths(groups ...[]manifest.DataFile) []string {
	var out []string
	for _, g := range groups {
		out = append(out, pathsOf(g)...)
	}
	slices.Sort(out)
	return out
}

// wapTable is a v2 table with write.wap.enabled and one appended snapshot
// of 10 rows; it returns the table, that snapshot and its files.
func wapTable(t *testing.T, props map[string]string) (*Table, int64, []manifest.DataFile) {
	t.Helper()
	tbl := createTable(t, 2, nil, props)
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 5)
	id, err := snapshotIDOf(tbl.Append(context.Background(), a, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return tbl, id, a
}

// With write.wap.enabled and a wap id, an append is staged: the snapshot
// is in the table, parented on main's head and readable by id, and main,
// the refs and the snapshot log are as they were.
func TestWapIDStagesTheSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl, head, a := wapTable(t, wapOn)
	refs, log := tbl.Metadata.Refs, tbl.Metadata.SnapshotLog
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
	staged, err := snapshotIDOf(tbl.Append(ctx, b, CommitOptions{WapID: "w1"}))
	if err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	md := fresh.Metadata
	if *md.CurrentSnapshotID != head || !maps2Equal(md.Refs, refs) || len(md.SnapshotLog) != len(log) {
		t.Fatalf("staging moved main: current %d, refs %v, log %v", *md.CurrentSnapshotID, md.Refs, md.SnapshotLog)
	}
	s := md.SnapshotByID(staged)
	if s == nil || s.ParentSnapshotID == nil || *s.ParentSnapshotID != head || s.Summary[SummaryWAPID] != "w1" || s.Summary["operation"] != OpAppend {
		t.Fatalf("staged snapshot %+v", s)
	}
	if summaryInt(t, s.Summary, "total-records") != 17 {
		t.Fatalf("staged summary %v", s.Summary)
	}
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(a)) {
		t.Fatalf("main reads %v", got)
	}
	if got, n := planOf(t, fresh, staged); !slices.Equal(got, sortedPaths(a, b)) || n != 17 {
		t.Fatalf("the staged snapshot reads %v (%d rows)", got, n)
	}
	checkNoOrphans(t, fresh)
}

func maps2Equal(a, b map[string]metadata.Ref) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w.SnapshotID != v.SnapshotID || w.Type != v.Type {
			return false
		}
	}
	return true
}

// A wap id on a table without write.wap.enabled is refused, committing
// nothing and leaving no file; StageOnly stages without the property,
// with or without a wap id.
func TestWapIDWithoutThePropertyIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, props := range []map[string]string{nil, {PropWAPEnabled: "false"}} {
		tbl, head, _ := wapTable(t, props)
		versions := versionsOf(t, tbl)
		b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
		_, err := tbl.Append(ctx, b, CommitOptions{WapID: "w1"})
		if !errors.Is(err, errkind.InvalidArgument) || !containsAll(err.Error(), "w1", PropWAPEnabled) {
			t.Fatalf("props %v: %v", props, err)
		}
		if versionsOf(t, tbl) != versions || len(reopen(t, tbl).Metadata.Snapshots) != 1 {
			t.Fatal("a refused wap commit committed")
		}
		checkNoOrphans(t, tbl)
		for _, opts := range []CommitOptions{{WapID: "w1", StageOnly: true}, {StageOnly: true}} {
			id, err := snapshotIDOf(tbl.Append(ctx, b, opts))
			if err != nil {
				t.Fatal(err)
			}
			md := reopen(t, tbl).Metadata
			if *md.CurrentSnapshotID != head || md.SnapshotByID(id).Summary[SummaryWAPID] != opts.WapID {
				t.Fatalf("%+v: current %d, staged summary %v", opts, *md.CurrentSnapshotID, md.SnapshotByID(id).Summary)
			}
		}
	}
}

// The summary keys of write-audit-publish are floe's to write.
func TestWapSummaryKeysAreReserved(t *testing.T) {
	tbl, _, _ := wapTable(t, wapOn)
	for _, k := range []string{SummaryWAPID, SummaryPublishedWAPID, SummarySourceSnapshotID} {
		_, err := tbl.Append(context.Background(), nil, CommitOptions{Properties: map[string]string{k: "x"}})
		if !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("property %q: %v", k, err)
		}
	}
	if _, err := tbl.Append(context.Background(), nil, CommitOptions{WapID: " w"}); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("a wap id with spaces: %v", err)
	}
}

// Staging on a branch parents the snapshot on the branch's head; staging
// on a branch that does not exist parents it on main and creates no
// branch.
func TestStageOnABranch(t *testing.T) {
	ctx := context.Background()
	tbl, head, _ := wapTable(t, nil)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 4), 4)
	c := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 4), 4)
	audit, err := snapshotIDOf(tbl.Append(ctx, b, CommitOptions{Branch: "audit"}))
	if err != nil {
		t.Fatal(err)
	}
	onAudit, err := snapshotIDOf(tbl.Append(ctx, c, CommitOptions{Branch: "audit", StageOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	onMissing, err := snapshotIDOf(tbl.Append(ctx, c[:1], CommitOptions{Branch: "nope", StageOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	md := reopen(t, tbl).Metadata
	if md.Refs["audit"].SnapshotID != audit || *md.SnapshotByID(onAudit).ParentSnapshotID != audit {
		t.Fatalf("audit at %d, staged on it: parent %d", md.Refs["audit"].SnapshotID, *md.SnapshotByID(onAudit).ParentSnapshotID)
	}
	if _, ok := md.Refs["nope"]; ok || *md.SnapshotByID(onMissing).ParentSnapshotID != head || *md.CurrentSnapshotID != head {
		t.Fatalf("staging on a missing branch: refs %v, parent %d", md.Refs, *md.SnapshotByID(onMissing).ParentSnapshotID)
	}
}

// In a transaction, a step sees the properties the steps before it set:
// enabling WAP and appending with a wap id stage in one version.
func TestTransactionEnablesWapAndStages(t *testing.T) {
	ctx := context.Background()
	tbl, head, _ := wapTable(t, nil)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 4), 4)
	versions := versionsOf(t, tbl)
	tx := tbl.Transaction().SetProperties(wapOn, nil)
	if err := tx.Append(b, CommitOptions{WapID: "w"}); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	md := reopen(t, tbl).Metadata
	if versionsOf(t, tbl) != versions+1 || *md.CurrentSnapshotID != head || md.SnapshotByID(res.SnapshotIDs[0]).Summary[SummaryWAPID] != "w" {
		t.Fatalf("versions %d→%d, current %d", versions, versionsOf(t, tbl), *md.CurrentSnapshotID)
	}
}

// Staging and both forms of cherry-pick replay from their updates as a
// REST catalog receives them (the package's replay hook sees every
// commit; here each one's shape is checked too): a staged commit is one
// add-snapshot that requires the ref it was built on (its sequence number
// and row ids follow that version, so a catalog must refuse it on a
// table that moved on, which replaying it there shows), a fast-forward
// one set-snapshot-ref, a copying pick an add-snapshot and the
// set-snapshot-ref of main.
func TestWapCommitsReplayFromTheirUpdates(t *testing.T) {
	ctx := context.Background()
	tbl, head, _ := wapTable(t, wapOn)
	type commit struct {
		changes *metadata.Changes
		replay  error // replayed when built: publishing stamps the metadata
	}
	var seen []commit
	saved := testHookChanges
	testHookChanges = func(base *Table, changes *metadata.Changes) {
		saved(base, changes)
		seen = append(seen, commit{changes, replayChanges(base.Metadata, changes)})
	}
	defer func() { testHookChanges = saved }()
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 4), 4)
	c := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 4), 4)
	s1 := stage(t, tbl, b, "w1")
	s2 := stage(t, tbl, c, "w2")
	if _, err := tbl.CherryPick(ctx, s1, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.CherryPick(ctx, s2, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	shapes := [][]string{{"add-snapshot"}, {"add-snapshot"}, {"set-snapshot-ref"}, {"add-snapshot", "set-snapshot-ref"}}
	if len(seen) != len(shapes) {
		t.Fatalf("%d commits reached the replay, want %d", len(seen), len(shapes))
	}
	for i, cm := range seen {
		var kinds []string
		for _, u := range cm.changes.Updates() {
			kinds = append(kinds, u.Action())
		}
		if !slices.Equal(kinds, shapes[i]) {
			t.Errorf("commit %d made %v, want %v", i, kinds, shapes[i])
		}
		if err := cm.replay; err != nil {
			t.Errorf("commit %d: %v", i, err)
		}
	}
	found := false
	for _, r := range seen[1].changes.Requirements() {
		if a, ok := r.(metadata.AssertRefSnapshotID); ok && a.Ref == metadata.MainBranch && a.SnapshotID != nil && *a.SnapshotID == head {
			found = true
		}
	}
	if !found {
		t.Fatalf("the staged commit's requirements %#v lack main at %d", seen[1].changes.Requirements(), head)
	}
	// The second staging replayed on the version after the first pick.
	if _, err := metadata.Apply(seen[2].changes.Metadata(), seen[1].changes.Requirements(), seen[1].changes.Updates()); !errors.Is(err, errkind.Conflict) {
		t.Fatalf("a staged commit replayed on a moved table: %v", err)
	}
}

// containsAll says whether s names every one of words.
func containsAll(s string, words ...string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
