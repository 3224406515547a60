package table

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// Per-ref retention set through action.ManageSnapshots and honoured by
// ExpireSnapshots, as Java's RemoveSnapshots honours SnapshotRef's
// settings: a branch's own settings win over the call's and the table's.

// fiveAppends makes a table of five appends on main, s[0] oldest.
func fiveAppends(t *testing.T) (*Table, []int64) {
	t.Helper()
	tbl := createTable(t, 2, nil, nil)
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(7, 0, 50), 10))
	var ids []int64
	for i := range 5 {
		id, err := snapshotIDOf(tbl.Append(t.Context(), []manifest.DataFile{files[i]}, CommitOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return tbl, ids
}

// manage commits ms through a transaction and checks the refs it set
// survive the metadata file: the table reopened has them.
func manage(t *testing.T, tbl *Table, ms *action.ManageSnapshots) {
	t.Helper()
	res, err := tbl.Apply(t.Context(), ms)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed {
		t.Fatal("nothing committed")
	}
	if got := reopen(t, tbl).Metadata.Refs; !refsEqual(got, tbl.Metadata.Refs) {
		t.Fatalf("refs reopened %v, committed %v", got, tbl.Metadata.Refs)
	}
}

func refsEqual(a, b map[string]metadata.Ref) bool {
	if len(a) != len(b) {
		return false
	}
	for name, r := range a {
		o, ok := b[name]
		if !ok || r.SnapshotID != o.SnapshotID || r.Type != o.Type ||
			!eqPtr(r.MinSnapshotsToKeep, o.MinSnapshotsToKeep) || !eqPtr(r.MaxSnapshotAgeMs, o.MaxSnapshotAgeMs) || !eqPtr(r.MaxRefAgeMs, o.MaxRefAgeMs) {
			return false
		}
	}
	return true
}

func eqPtr[T comparable](a, b *T) bool { return a == b || a != nil && b != nil && *a == *b }

// expireAll expires everything the call's own settings allow: every
// snapshot is older than the cut-off, and main keeps one.
func expireAll(t *testing.T, tbl *Table) ExpireResult {
	t.Helper()
	now, keep := time.Now().UnixMilli()+1, 1
	res, err := tbl.ExpireSnapshots(context.Background(), &now, &keep, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A branch's min-snapshots-to-keep keeps that many of its ancestors,
// though the call asked to keep one.
func TestBranchMinSnapshotsToKeepKeepsItsAncestors(t *testing.T) {
	tbl, s := fiveAppends(t)
	manage(t, tbl, new(action.ManageSnapshots).CreateBranch("audit", s[2]).SetMinSnapshotsToKeep("audit", 3))
	res := expireAll(t, tbl)
	if want := []int64{s[3]}; !slices.Equal(res.ExpiredSnapshots, want) {
		t.Errorf("expired %v, want only %v: audit keeps %v", res.ExpiredSnapshots, want, s[:3])
	}
	for _, id := range []int64{s[0], s[1], s[2], s[4]} {
		if tbl.Metadata.SnapshotByID(id) == nil {
			t.Errorf("snapshot %d expired", id)
		}
	}
}

// A branch's max-snapshot-age-ms keeps its ancestors younger than it,
// though the call's cut-off is now.
func TestBranchMaxSnapshotAgeKeepsItsRecentAncestors(t *testing.T) {
	tbl, s := fiveAppends(t)
	manage(t, tbl, new(action.ManageSnapshots).CreateBranch("audit", s[1]).SetMaxSnapshotAgeMs("audit", time.Hour.Milliseconds()))
	res := expireAll(t, tbl)
	if want := []int64{s[2], s[3]}; !slices.Equal(sorted(res.ExpiredSnapshots), sorted(want)) {
		t.Errorf("expired %v, want %v", res.ExpiredSnapshots, want)
	}
}

// A tag (and a branch) past its max-ref-age-ms is dropped, and then what
// only it kept expires; a younger one stays; main is never dropped.
func TestRefPastMaxRefAgeIsDroppedButNeverMain(t *testing.T) {
	tbl, s := fiveAppends(t)
	manage(t, tbl, new(action.ManageSnapshots).
		CreateTag("stale", s[0]).SetMaxRefAgeMs("stale", 1).
		CreateBranch("gone", s[1]).SetMaxRefAgeMs("gone", 1).SetMinSnapshotsToKeep("gone", 5).
		CreateTag("fresh", s[2]).SetMaxRefAgeMs("fresh", time.Hour.Milliseconds()).
		SetMaxRefAgeMs(metadata.MainBranch, 1))
	time.Sleep(5 * time.Millisecond) // every snapshot is now older than 1 ms
	res := expireAll(t, tbl)
	if want := []string{"gone", "stale"}; !slices.Equal(sorted(res.RemovedRefs), want) {
		t.Errorf("dropped refs %v, want %v", res.RemovedRefs, want)
	}
	if want := []int64{s[0], s[1], s[3]}; !slices.Equal(sorted(res.ExpiredSnapshots), sorted(want)) {
		t.Errorf("expired %v, want %v", res.ExpiredSnapshots, want)
	}
	fresh := reopen(t, tbl)
	if _, ok := fresh.Metadata.Refs["fresh"]; !ok {
		t.Error("the younger tag was dropped")
	}
	if main, ok := fresh.Metadata.Refs[metadata.MainBranch]; !ok || main.SnapshotID != s[4] || *fresh.Metadata.CurrentSnapshotID != s[4] {
		t.Errorf("main %v after expiry", fresh.Metadata.Refs)
	}
}

// Without per-ref settings the same expiry keeps only ref heads: the
// settings above are what kept the rest.
func TestWithoutRefRetentionOnlyHeadsStay(t *testing.T) {
	tbl, s := fiveAppends(t)
	manage(t, tbl, new(action.ManageSnapshots).CreateBranch("audit", s[2]))
	res := expireAll(t, tbl)
	if want := []int64{s[0], s[1], s[3]}; !slices.Equal(sorted(res.ExpiredSnapshots), sorted(want)) {
		t.Errorf("expired %v, want %v", res.ExpiredSnapshots, want)
	}
}

func sorted[T cmp.Ordered](ids []T) []T { return slices.Sorted(slices.Values(ids)) }
