package table

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// stage appends files as a staged snapshot under wapID.
func stage(t *testing.T, tbl *Table, files []manifest.DataFile, wapID string) int64 {
	t.Helper()
	id, err := snapshotIDOf(tbl.Append(context.Background(), files, CommitOptions{WapID: wapID}))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// refusedUnchanged asserts a cherry-pick failed as wanted and committed
// nothing: no new version, no file left behind.
func refusedUnchanged(t *testing.T, tbl *Table, id int64, opts CommitOptions, want ...error) error {
	t.Helper()
	versions := versionsOf(t, tbl)
	_, err := tbl.CherryPick(context.Background(), id, opts)
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Fatalf("cherry-pick %d: %v, want %v", id, err, w)
		}
	}
	if err != nil && !containsAll(err.Error(), strconv.FormatInt(id, 10)) {
		t.Errorf("the error does not name snapshot %d: %v", id, err)
	}
	if versionsOf(t, tbl) != versions {
		t.Fatalf("a refused cherry-pick of %d committed", id)
	}
	if filepath.IsAbs(tbl.Metadata.Location) { // not a fixture's hdfs:// location
		checkNoOrphans(t, tbl)
	}
	return err
}

// Publishing a staged snapshot whose parent is still main's head
// fast-forwards main to it: no snapshot is written, main reads the staged
// rows, the snapshot log records it. Publishing it again, or another
// snapshot staged under the same wap id, is refused.
func TestCherryPickFastForwardsAStagedSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl, head, a := wapTable(t, wapOn)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
	staged := stage(t, tbl, b, "w1")
	again := stage(t, tbl, b[:1], "w1") // a second attempt of the same audit
	snapshots := len(tbl.Metadata.Snapshots)
	res, err := tbl.CherryPick(ctx, staged, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res != (CherryPickResult{SnapshotID: staged, FastForward: true, PublishedWapID: "w1"}) {
		t.Fatalf("result %+v", res)
	}
	fresh := reopen(t, tbl)
	md := fresh.Metadata
	if *md.CurrentSnapshotID != staged || len(md.Snapshots) != snapshots || md.SnapshotLog[len(md.SnapshotLog)-1].SnapshotID != staged {
		t.Fatalf("current %d, %d snapshots (had %d), log %v", *md.CurrentSnapshotID, len(md.Snapshots), snapshots, md.SnapshotLog)
	}
	if got := livePaths(t, fresh); !slices.Equal(got, sortedPaths(a, b)) {
		t.Fatalf("main reads %v", got)
	}
	// The other snapshot of w1 has the old head as parent, so it would be
	// a new snapshot; the published wap id refuses it.
	err = refusedUnchanged(t, fresh, again, CommitOptions{}, ErrPublished, errkind.InvalidArgument)
	if !containsAll(err.Error(), "w1", strconv.FormatInt(staged, 10)) {
		t.Errorf("the refusal names neither the wap id nor where it was published: %v", err)
	}
	refusedUnchanged(t, fresh, staged, CommitOptions{}, ErrPublished)
	refusedUnchanged(t, fresh, head, CommitOptions{}, ErrPublished)
	// A snapshot staged after the publish, on the published one, under the
	// same id: a fast-forward, still refused.
	late := stage(t, fresh, b[:1], "w1")
	refusedUnchanged(t, fresh, late, CommitOptions{}, ErrPublished)
}

// Publishing a staged append after main moved on writes a new snapshot
// on main's head holding the same data files, its summary naming the
// source and the wap id; counts and totals are main's.
func TestCherryPickAppendOntoAMovedBranch(t *testing.T) {
	ctx := context.Background()
	tbl, _, a := wapTable(t, wapOn)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
	c := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 3), 3)
	staged := stage(t, tbl, b, "w1")
	moved, err := snapshotIDOf(tbl.Append(ctx, c, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tbl.CherryPick(ctx, staged, CommitOptions{Properties: map[string]string{"audited-by": "qa"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.FastForward || res.SnapshotID == staged || res.PublishedWapID != "w1" {
		t.Fatalf("result %+v", res)
	}
	fresh := reopen(t, tbl)
	md := fresh.Metadata
	s := md.SnapshotByID(res.SnapshotID)
	if *md.CurrentSnapshotID != res.SnapshotID || *s.ParentSnapshotID != moved {
		t.Fatalf("current %d, parent %d", *md.CurrentSnapshotID, *s.ParentSnapshotID)
	}
	want := map[string]string{
		"operation": OpAppend, SummarySourceSnapshotID: strconv.FormatInt(staged, 10), SummaryPublishedWAPID: "w1",
		"added-data-files": "1", "added-records": "7", "total-records": "20", "total-data-files": strconv.Itoa(len(a) + 2), "audited-by": "qa",
	}
	for k, v := range want {
		if s.Summary[k] != v {
			t.Errorf("summary %s=%q, want %q (%v)", k, s.Summary[k], v, s.Summary)
		}
	}
	if _, ok := s.Summary[SummaryWAPID]; ok {
		t.Errorf("the published snapshot carries a staged wap id: %v", s.Summary)
	}
	if got, n := planOf(t, fresh, res.SnapshotID); !slices.Equal(got, sortedPaths(a, b, c)) || n != 20 {
		t.Fatalf("main reads %v (%d rows)", got, n)
	}
	// The staged snapshot stays as it was, readable by id.
	if got, n := planOf(t, fresh, staged); !slices.Equal(got, sortedPaths(a, b)) || n != 17 {
		t.Fatalf("the staged snapshot reads %v (%d rows)", got, n)
	}
	checkNoOrphans(t, fresh)
	// Picked once: again is refused by its source id, a second snapshot
	// of w1 by its wap id.
	refusedUnchanged(t, fresh, staged, CommitOptions{}, ErrPublished)
	refusedUnchanged(t, fresh, stage(t, fresh, c[:1], "w1"), CommitOptions{}, ErrPublished)
	// Another wap id publishes.
	if _, err := fresh.CherryPick(ctx, stage(t, fresh, c[:1], "w2"), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

// What Java refuses: a snapshot the table does not have (NotFound), a
// delete or an overwrite by filter that is not a fast-forward, options
// that do not apply. A delete that is a fast-forward is taken, as Java
// takes it.
func TestCherryPickRefusals(t *testing.T) {
	ctx := context.Background()
	tbl, _, a := wapTable(t, nil)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
	refusedUnchanged(t, tbl, 12345, CommitOptions{}, errkind.NotFound)

	tx := tbl.Transaction()
	if err := tx.CommitFiles(nil, []string{a[0].FilePath}, CommitOptions{StageOnly: true}); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	del := res.SnapshotIDs[0]
	overwrite, err := snapshotIDOf(tbl.Overwrite(ctx, mustPred(t, expr.OpGtEq, "id", int64(0)), b, CommitOptions{StageOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Append(ctx, b, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{del, overwrite} {
		err := refusedUnchanged(t, tbl, id, CommitOptions{}, errkind.InvalidArgument)
		op := tbl.Metadata.SnapshotByID(id).Summary["operation"]
		if !containsAll(err.Error(), op, "main") {
			t.Errorf("the refusal names neither the operation %q nor the branch: %v", op, err)
		}
	}
	for _, opts := range []CommitOptions{{Token: "t"}, {RunID: "r"}, {WapID: "w"}, {StageOnly: true}, {Branch: " x"}, {Properties: map[string]string{SummarySourceSnapshotID: "1"}}} {
		refusedUnchanged(t, tbl, del, opts, errkind.InvalidArgument)
	}
	// A delete staged on main's head fast-forwards main.
	tx = tbl.Transaction()
	if err := tx.CommitFiles(nil, []string{a[0].FilePath}, CommitOptions{StageOnly: true}); err != nil {
		t.Fatal(err)
	}
	if res, err = tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	picked, err := tbl.CherryPick(ctx, res.SnapshotIDs[0], CommitOptions{})
	if err != nil || !picked.FastForward {
		t.Fatalf("a delete that fast-forwards: %+v, %v", picked, err)
	}
	if got := livePaths(t, reopen(t, tbl)); slices.Contains(got, a[0].FilePath) {
		t.Fatalf("main still holds the deleted file: %v", got)
	}
}

// A staged dynamic partition overwrite is applied onto a main that moved
// on elsewhere: its files added, the files it replaced removed, the rest
// of main kept. One whose partition main wrote to since its parent is a
// conflict; one built on a snapshot main does not hold cannot be checked
// and is refused.
func TestCherryPickReplacePartitions(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, wapOn)
	old := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 60, 1, 2, 3), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := partitionsOf(t, tbl)
	repl := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 1000, 7, 2), 100)
	staged, err := snapshotIDOf(tbl.ReplacePartitions(ctx, repl, CommitOptions{WapID: "rp"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := partitionsOf(t, reopen(t, tbl)); !slices.Equal(got[2], before[2]) {
		t.Fatalf("staging replaced partition 2 on main: %v", got)
	}
	elsewhere := writeFiles(t, t.TempDir(), byInt, rowsIn(3, 2000, 4, 1), 100)
	if _, err := tbl.Append(ctx, elsewhere, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := tbl.CherryPick(ctx, staged, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	got := partitionsOf(t, fresh)
	want1 := append(slices.Clone(before[1]), pathsOf(elsewhere)...)
	slices.Sort(want1)
	if res.FastForward || !slices.Equal(got[1], want1) || !slices.Equal(got[2], pathsOf(repl)) || !slices.Equal(got[3], before[3]) {
		t.Fatalf("%+v: partitions before %v, after %v", res, before, got)
	}
	s := fresh.Metadata.SnapshotByID(res.SnapshotID).Summary
	if s["operation"] != OpOverwrite || s["replace-partitions"] != "true" || s[SummaryPublishedWAPID] != "rp" ||
		summaryInt(t, s, "deleted-data-files") != int64(len(before[2])) || summaryInt(t, s, "deleted-records") != 20 ||
		summaryInt(t, s, "total-records") != 60-20+7+4 {
		t.Fatalf("summary %v", s)
	}
	checkNoOrphans(t, fresh)

	// Partition 3 replaced while main writes to it: a conflict.
	repl3 := writeFiles(t, t.TempDir(), byInt, rowsIn(4, 3000, 5, 3), 100)
	staged3, err := snapshotIDOf(fresh.ReplacePartitions(ctx, repl3, CommitOptions{WapID: "rp3"}))
	if err != nil {
		t.Fatal(err)
	}
	into3 := writeFiles(t, t.TempDir(), byInt, rowsIn(5, 4000, 2, 3), 100)
	if _, err := fresh.Append(ctx, into3, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	err = refusedUnchanged(t, fresh, staged3, CommitOptions{}, ErrConflict)
	if !containsAll(err.Error(), "i=3", into3[0].FilePath) {
		t.Errorf("the conflict names neither the partition nor the file: %v", err)
	}

	// Built on a branch's head, which main does not hold.
	dev := writeFiles(t, t.TempDir(), byInt, rowsIn(6, 5000, 2, 4), 100)
	if _, err := fresh.Append(ctx, dev, CommitOptions{Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	onDev, err := snapshotIDOf(fresh.ReplacePartitions(ctx, writeFiles(t, t.TempDir(), byInt, rowsIn(7, 6000, 2, 1), 100), CommitOptions{Branch: "dev", StageOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	err = refusedUnchanged(t, fresh, onDev, CommitOptions{}, errkind.InvalidArgument)
	if !containsAll(err.Error(), "ancestor", strconv.FormatInt(fresh.Metadata.Refs["dev"].SnapshotID, 10)) {
		t.Errorf("the refusal does not say the parent is not main's: %v", err)
	}
	// On dev itself it fast-forwards.
	if res, err := fresh.CherryPick(ctx, onDev, CommitOptions{Branch: "dev"}); err != nil || !res.FastForward {
		t.Fatalf("onto dev: %+v, %v", res, err)
	}
}

// In a transaction a cherry-pick sees the steps before it and the steps
// after it see the pick: picking before an append fast-forwards main and
// the append builds on the published snapshot; an append before the pick
// moves main, so the pick copies. Each transaction is one version.
func TestCherryPickInATransaction(t *testing.T) {
	ctx := context.Background()
	for _, pickFirst := range []bool{true, false} {
		tbl, head, a := wapTable(t, wapOn)
		b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
		c := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 3), 3)
		staged := stage(t, tbl, b, "w")
		versions := versionsOf(t, tbl)
		tx := tbl.Transaction()
		steps := []func() error{
			func() error { return tx.CherryPick(staged, CommitOptions{}) },
			func() error { return tx.Append(c, CommitOptions{}) },
		}
		if !pickFirst {
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, step := range steps {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
		res, err := tx.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fresh := reopen(t, tbl)
		md := fresh.Metadata
		if versionsOf(t, tbl) != versions+1 || len(res.SnapshotIDs) != 2 || *md.CurrentSnapshotID != res.SnapshotIDs[1] {
			t.Fatalf("pick first %v: versions %d→%d, result %+v, current %d", pickFirst, versions, versionsOf(t, tbl), res, *md.CurrentSnapshotID)
		}
		last := md.SnapshotByID(res.SnapshotIDs[1])
		if *last.ParentSnapshotID != res.SnapshotIDs[0] {
			t.Fatalf("pick first %v: the second step's snapshot is on %d, not the first's %d", pickFirst, *last.ParentSnapshotID, res.SnapshotIDs[0])
		}
		if pickFirst {
			if res.SnapshotIDs[0] != staged {
				t.Fatalf("the pick did not fast-forward: %+v", res)
			}
		} else if md.SnapshotByID(res.SnapshotIDs[0]).ParentSnapshotID == nil || *md.SnapshotByID(res.SnapshotIDs[0]).ParentSnapshotID != head ||
			last.Summary[SummarySourceSnapshotID] != strconv.FormatInt(staged, 10) {
			t.Fatalf("the pick after an append: %v", last.Summary)
		}
		if got := livePaths(t, fresh); !slices.Equal(got, sortedPaths(a, b, c)) {
			t.Fatalf("pick first %v: main reads %v", pickFirst, got)
		}
		checkNoOrphans(t, fresh)
	}
}

// On a table with no snapshot yet, a staged snapshot has no parent and
// publishing it creates main there; a tag is no branch to pick onto.
func TestCherryPickOntoAnEmptyTable(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 3, nil, nil)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
	staged, err := snapshotIDOf(tbl.Append(ctx, b, CommitOptions{StageOnly: true, Token: "once"}))
	if err != nil {
		t.Fatal(err)
	}
	// The token is found on the staged snapshot: staging is idempotent.
	if r, err := tbl.Append(ctx, b, CommitOptions{StageOnly: true, Token: "once"}); err != nil || !r.TokenFound || r.SnapshotID != staged {
		t.Fatalf("staging again with the token: %+v, %v", r, err)
	}
	if md := reopen(t, tbl).Metadata; md.CurrentSnapshotID != nil && *md.CurrentSnapshotID != NoSnapshot || len(md.Refs) != 0 || md.SnapshotByID(staged).ParentSnapshotID != nil {
		t.Fatalf("staging on an empty table: current %v, refs %v", md.CurrentSnapshotID, md.Refs)
	}
	res, err := tbl.CherryPick(ctx, staged, CommitOptions{})
	if err != nil || !res.FastForward {
		t.Fatalf("%+v, %v", res, err)
	}
	fresh := reopen(t, tbl)
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(b)) || fresh.Metadata.Refs[metadata.MainBranch].SnapshotID != staged {
		t.Fatalf("main reads %v", got)
	}
	if _, err := fresh.Apply(ctx, new(action.ManageSnapshots).CreateTag("v1", staged)); err != nil {
		t.Fatal(err)
	}
	onMain, err := snapshotIDOf(fresh.Append(ctx, b[:1], CommitOptions{StageOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	refusedUnchanged(t, fresh, onMain, CommitOptions{Branch: "v1"}, errkind.InvalidArgument)
}
