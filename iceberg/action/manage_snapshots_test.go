package action_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/internal/fixtures"
)

// Hive's table of six snapshots, one line of history: four appends and
// two overwrites, main at the last.
const refsFixture = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"

var hive = [6]int64{4363979609026842966, 5762682948883272650, 7508485421322116327, 7490459762454857930, 752781918366351945, 1497619269847778439}

func hiveMetadata(t *testing.T) *metadata.Metadata {
	t.Helper()
	fx, err := fixtures.Get(refsFixture)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(fx.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Snapshots) != 6 || *md.CurrentSnapshotID != hive[5] {
		t.Fatalf("fixture has %d snapshots, current %d", len(md.Snapshots), *md.CurrentSnapshotID)
	}
	for i, s := range md.Snapshots {
		if s.SnapshotID != hive[i] {
			t.Fatalf("snapshot %d is %d, not %d", i, s.SnapshotID, hive[i])
		}
	}
	return md
}

// devID is the snapshot of branchedMetadata's dev branch.
const devID = 9001

// branchedMetadata is the Hive table with a branch "dev" that diverged
// from main at its second snapshot (a snapshot of its own on top), a
// branch "old" at the first snapshot with retention set, and a tag "v1"
// at the third.
func branchedMetadata(t *testing.T) *metadata.Metadata {
	t.Helper()
	md := hiveMetadata(t)
	c := metadata.Edit(md)
	parent := hive[1]
	keep, age := 4, int64(3_600_000)
	err := c.Apply(
		metadata.AddSnapshot{Snapshot: metadata.Snapshot{SnapshotID: devID, ParentSnapshotID: &parent, SequenceNumber: md.LastSequenceNumber + 1,
			TimestampMs: md.Snapshots[5].TimestampMs + 1000, ManifestList: "dev.avro", Summary: map[string]string{"operation": "append"}}},
		metadata.SetSnapshotRef{Name: "dev", Ref: metadata.Ref{SnapshotID: devID, Type: metadata.RefBranch}},
		metadata.SetSnapshotRef{Name: "old", Ref: metadata.Ref{SnapshotID: hive[0], Type: metadata.RefBranch, MinSnapshotsToKeep: &keep, MaxRefAgeMs: &age}},
		metadata.SetSnapshotRef{Name: "v1", Ref: metadata.Ref{SnapshotID: hive[2], Type: metadata.RefTag}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return c.Metadata()
}

// build builds ms on md and applies its updates; every successful build
// is also replayed as a REST catalog receives it (replay).
func build(t *testing.T, md *metadata.Metadata, ms *action.ManageSnapshots) (*metadata.Metadata, []metadata.Update, error) {
	t.Helper()
	updates, err := ms.Build(md)
	if err != nil {
		return nil, nil, err
	}
	c := metadata.Edit(md)
	if err := c.Apply(updates...); err != nil {
		t.Fatalf("updates %v do not apply: %v", updates, err)
	}
	replay(t, c)
	return c.Metadata(), updates, nil
}

// replay writes the changes' updates and requirements as JSON, reads them
// back and applies them to the base as a catalog would: the metadata must
// be exactly what the changes built.
func replay(t *testing.T, c *metadata.Changes) {
	t.Helper()
	rawUpdates, err := json.Marshal(c.Updates())
	if err != nil {
		t.Fatal(err)
	}
	rawReqs, err := json.Marshal(c.Requirements())
	if err != nil {
		t.Fatal(err)
	}
	updates, err := metadata.ParseUpdates(rawUpdates)
	if err != nil {
		t.Fatalf("read back %s: %v", rawUpdates, err)
	}
	reqs, err := metadata.ParseRequirements(rawReqs)
	if err != nil {
		t.Fatalf("read back %s: %v", rawReqs, err)
	}
	got, err := metadata.Apply(c.Base(), reqs, updates)
	if err != nil {
		t.Fatalf("replay %s after %s: %v", rawUpdates, rawReqs, err)
	}
	if !reflect.DeepEqual(got, c.Metadata()) {
		t.Fatalf("replaying %s gives other metadata than the changes built", rawUpdates)
	}
}

func mustBuild(t *testing.T, md *metadata.Metadata, ms *action.ManageSnapshots) (*metadata.Metadata, []metadata.Update) {
	t.Helper()
	next, updates, err := build(t, md, ms)
	if err != nil {
		t.Fatal(err)
	}
	return next, updates
}

// refused checks that building ms on md fails with kind, naming every
// one of names, and that ms's updates never reach the metadata.
func refused(t *testing.T, md *metadata.Metadata, ms *action.ManageSnapshots, kind errkind.Kind, names ...string) {
	t.Helper()
	updates, err := ms.Build(md)
	if err == nil {
		t.Fatalf("built %v, want a %v error", updates, kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error %q is not %v", err, kind)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %s", err, n)
		}
	}
	if updates != nil {
		t.Errorf("a refused build gave updates %v", updates)
	}
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

func refAt(t *testing.T, md *metadata.Metadata, name, typ string, snapshot int64) metadata.Ref {
	t.Helper()
	r, ok := md.Refs[name]
	if !ok {
		t.Fatalf("no ref %q; refs %v", name, md.Refs)
	}
	if r.Type != typ || r.SnapshotID != snapshot {
		t.Fatalf("ref %q is a %s at %d, want a %s at %d", name, r.Type, r.SnapshotID, typ, snapshot)
	}
	return r
}

func ms() *action.ManageSnapshots { return new(action.ManageSnapshots) }

func TestCreateBranchAndTag(t *testing.T) {
	md := hiveMetadata(t)
	next, updates := mustBuild(t, md, ms().CreateBranch("audit", hive[2]).CreateTag("release", 0).CreateBranch("head", 0))
	refAt(t, next, "audit", metadata.RefBranch, hive[2])
	refAt(t, next, "release", metadata.RefTag, hive[5])
	refAt(t, next, "head", metadata.RefBranch, hive[5])
	if len(updates) != 3 || *next.CurrentSnapshotID != hive[5] || len(next.SnapshotLog) != len(md.SnapshotLog) {
		t.Errorf("creating refs gave %v and moved main to %d", updates, *next.CurrentSnapshotID)
	}
	// 0 is main as the chain leaves it.
	next, _ = mustBuild(t, md, ms().RollbackTo(hive[3]).CreateTag("rolled", 0))
	refAt(t, next, "rolled", metadata.RefTag, hive[3])

	refused(t, md, ms().CreateBranch("audit", 42), errkind.NotFound, "42", `"audit"`)
	refused(t, md, ms().CreateTag("t", 42), errkind.NotFound, "42")
	refused(t, md, ms().CreateBranch("main", hive[1]), errkind.InvalidArgument, `"main"`, "already exists")
	refused(t, md, ms().CreateTag("t", hive[1]).CreateBranch("t", hive[2]), errkind.InvalidArgument, `"t"`, "already exists")
	refused(t, md, ms().CreateBranch("", hive[1]), errkind.InvalidArgument, "empty")
	// A table whose snapshots are all staged has no main yet: main can
	// be created, as a branch only.
	staged := md.Clone()
	staged.CurrentSnapshotID, staged.Refs = nil, map[string]metadata.Ref{}
	refused(t, staged, ms().CreateTag("main", hive[1]), errkind.InvalidArgument, "main", "branch")
	next, _ = mustBuild(t, staged, ms().CreateBranch("main", hive[1]))
	if *next.CurrentSnapshotID != hive[1] {
		t.Errorf("main created at %d", *next.CurrentSnapshotID)
	}
}

// A table never written to has no snapshot to branch from: Java would
// commit an empty snapshot, floe refuses.
func TestCreateBranchOnATableWithoutSnapshots(t *testing.T) {
	md := hiveMetadata(t).Clone()
	md.Snapshots, md.SnapshotLog, md.CurrentSnapshotID, md.Refs = nil, nil, nil, map[string]metadata.Ref{}
	refused(t, md, ms().CreateBranch("b", 0), errkind.InvalidArgument, `"b"`, "no current snapshot")
	refused(t, md, ms().CreateTag("t", 0), errkind.InvalidArgument, "no current snapshot")
	refused(t, md, ms().RollbackToTime(1), errkind.InvalidArgument, "no current snapshot")
	refused(t, md, ms().RollbackTo(hive[0]), errkind.NotFound, id(hive[0]))
}

func TestRemoveBranchAndTag(t *testing.T) {
	md := branchedMetadata(t)
	next, updates := mustBuild(t, md, ms().RemoveBranch("dev").RemoveTag("v1"))
	if _, ok := next.Refs["dev"]; ok {
		t.Error("dev was not removed")
	}
	if _, ok := next.Refs["v1"]; ok {
		t.Error("v1 was not removed")
	}
	if len(updates) != 2 || next.SnapshotByID(devID) == nil {
		t.Errorf("removing refs gave %v; dev's snapshot must stay until expiry", updates)
	}
	refused(t, md, ms().RemoveBranch("v1"), errkind.InvalidArgument, `"v1"`, "tag")
	refused(t, md, ms().RemoveTag("dev"), errkind.InvalidArgument, `"dev"`, "branch")
	refused(t, md, ms().RemoveTag("main"), errkind.InvalidArgument, `"main"`, "branch")
	refused(t, md, ms().RemoveBranch("main"), errkind.InvalidArgument, "main")
	refused(t, md, ms().RemoveBranch("nope"), errkind.NotFound, `"nope"`)
	refused(t, md, ms().RemoveTag("nope"), errkind.NotFound, `"nope"`)
	refused(t, md, ms().RemoveTag("v1").RemoveTag("v1"), errkind.NotFound, `"v1"`)
}

func TestRenameBranch(t *testing.T) {
	md := branchedMetadata(t)
	next, _ := mustBuild(t, md, ms().RenameBranch("old", "older"))
	r := refAt(t, next, "older", metadata.RefBranch, hive[0])
	if _, ok := next.Refs["old"]; ok || *r.MinSnapshotsToKeep != 4 || *r.MaxRefAgeMs != 3_600_000 {
		t.Errorf("rename left old=%v, retention %+v", ok, r)
	}
	// The old name is free again for a ref of another type.
	next, _ = mustBuild(t, md, ms().RenameBranch("old", "older").CreateTag("old", hive[4]))
	refAt(t, next, "old", metadata.RefTag, hive[4])

	refused(t, md, ms().RenameBranch("main", "trunk"), errkind.InvalidArgument, "main")
	refused(t, md, ms().RenameBranch("v1", "v2"), errkind.InvalidArgument, `"v1"`, "tag")
	refused(t, md, ms().RenameBranch("dev", "v1"), errkind.InvalidArgument, `"v1"`, "already exists")
	refused(t, md, ms().RenameBranch("dev", "dev"), errkind.InvalidArgument, `"dev"`, "already exists")
	refused(t, md, ms().RenameBranch("dev", ""), errkind.InvalidArgument, "empty")
	refused(t, md, ms().RenameBranch("nope", "x"), errkind.NotFound, `"nope"`)
}

func TestReplaceBranchAndTag(t *testing.T) {
	md := branchedMetadata(t)
	// Replacing need not move forward, and keeps retention.
	next, _ := mustBuild(t, md, ms().ReplaceBranch("old", devID).ReplaceTag("v1", hive[0]))
	if r := refAt(t, next, "old", metadata.RefBranch, devID); *r.MinSnapshotsToKeep != 4 {
		t.Errorf("replace dropped retention: %+v", r)
	}
	refAt(t, next, "v1", metadata.RefTag, hive[0])
	// main may be replaced with a snapshot off its history: it becomes
	// current, and is logged.
	next, _ = mustBuild(t, md, ms().ReplaceBranch("main", devID))
	if *next.CurrentSnapshotID != devID || next.SnapshotLog[len(next.SnapshotLog)-1].SnapshotID != devID {
		t.Errorf("main replaced: current %d, log %v", *next.CurrentSnapshotID, next.SnapshotLog)
	}
	// The same snapshot changes nothing.
	if _, updates := mustBuild(t, md, ms().ReplaceBranch("dev", devID).ReplaceTag("v1", hive[2])); len(updates) != 0 {
		t.Errorf("replacing refs with their own snapshots gave %v", updates)
	}

	refused(t, md, ms().ReplaceBranch("v1", hive[0]), errkind.InvalidArgument, `"v1"`, "tag")
	refused(t, md, ms().ReplaceTag("dev", hive[0]), errkind.InvalidArgument, `"dev"`, "branch")
	refused(t, md, ms().ReplaceBranch("nope", hive[0]), errkind.NotFound, `"nope"`)
	refused(t, md, ms().ReplaceTag("v1", 42), errkind.NotFound, "42", `"v1"`)
	refused(t, md, ms().ReplaceBranch("dev", 0), errkind.NotFound, "snapshot 0")
}

func TestReplaceBranchWithAnotherRef(t *testing.T) {
	md := branchedMetadata(t)
	// Any direction; the other ref is untouched; retention stays.
	next, updates := mustBuild(t, md, ms().ReplaceBranchWith("old", "dev").ReplaceBranchWith("main", "v1"))
	if r := refAt(t, next, "old", metadata.RefBranch, devID); *r.MinSnapshotsToKeep != 4 {
		t.Errorf("retention lost: %+v", r)
	}
	refAt(t, next, "main", metadata.RefBranch, hive[2])
	refAt(t, next, "dev", metadata.RefBranch, devID)
	refAt(t, next, "v1", metadata.RefTag, hive[2])
	if len(updates) != 2 {
		t.Errorf("updates %v", updates)
	}
	// A missing branch is created at the other ref's snapshot, as Java does.
	next, _ = mustBuild(t, md, ms().ReplaceBranchWith("fresh", "v1"))
	if r := refAt(t, next, "fresh", metadata.RefBranch, hive[2]); r.MinSnapshotsToKeep != nil || r.MaxRefAgeMs != nil {
		t.Errorf("a created branch took retention: %+v", r)
	}
	refused(t, md, ms().ReplaceBranchWith("v1", "dev"), errkind.InvalidArgument, `"v1"`, "tag")
	refused(t, md, ms().ReplaceBranchWith("dev", "nope"), errkind.NotFound, `"nope"`)
}

func TestFastForwardBranch(t *testing.T) {
	md := branchedMetadata(t)
	// old (the first snapshot) is an ancestor of main and of dev.
	next, _ := mustBuild(t, md, ms().FastForwardBranch("old", "main"))
	if r := refAt(t, next, "old", metadata.RefBranch, hive[5]); *r.MinSnapshotsToKeep != 4 {
		t.Errorf("retention lost: %+v", r)
	}
	next, _ = mustBuild(t, md, ms().FastForwardBranch("old", "dev"))
	refAt(t, next, "old", metadata.RefBranch, devID)
	// Publishing an audit branch: main, rolled back to where dev left it,
	// moves forward to dev's snapshot, which becomes current.
	next, _ = mustBuild(t, md, ms().RollbackTo(hive[1]).FastForwardBranch("main", "dev"))
	refAt(t, next, "main", metadata.RefBranch, devID)
	if *next.CurrentSnapshotID != devID {
		t.Errorf("current snapshot %d after fast-forwarding main", *next.CurrentSnapshotID)
	}
	// A branch that does not exist is created at the target, as Java does.
	next, _ = mustBuild(t, md, ms().FastForwardBranch("audit", "v1"))
	refAt(t, next, "audit", metadata.RefBranch, hive[2])
	// Already there: nothing.
	if _, updates := mustBuild(t, md, ms().FastForwardBranch("dev", "dev")); len(updates) != 0 {
		t.Errorf("fast-forwarding a branch to itself gave %v", updates)
	}

	// main and dev diverged at the second snapshot: neither moves forward
	// to the other.
	refused(t, md, ms().FastForwardBranch("main", "dev"), errkind.InvalidArgument, `"main"`, `"dev"`, id(hive[5]), id(devID), "not an ancestor")
	refused(t, md, ms().FastForwardBranch("dev", "main"), errkind.InvalidArgument, `"main"`, `"dev"`, "not an ancestor")
	// Backwards is not forwards.
	refused(t, md, ms().FastForwardBranch("main", "v1"), errkind.InvalidArgument, `"main"`, `"v1"`)
	refused(t, md, ms().FastForwardBranch("v1", "main"), errkind.InvalidArgument, `"v1"`, "tag")
	refused(t, md, ms().FastForwardBranch("dev", "nope"), errkind.NotFound, `"nope"`)
}

func TestRollbackTo(t *testing.T) {
	md := hiveMetadata(t)
	next, updates := mustBuild(t, md, ms().RollbackTo(hive[3]))
	if *next.CurrentSnapshotID != hive[3] || len(updates) != 1 {
		t.Fatalf("rolled back to %d with %v", *next.CurrentSnapshotID, updates)
	}
	if last := next.SnapshotLog[len(next.SnapshotLog)-1]; last.SnapshotID != hive[3] || len(next.SnapshotLog) != len(md.SnapshotLog)+1 {
		t.Errorf("snapshot log ends %v", last)
	}
	// Rolled back, the later snapshots are no longer main's ancestors.
	refused(t, md, ms().RollbackTo(hive[3]).RollbackTo(hive[4]), errkind.InvalidArgument, id(hive[4]), id(hive[3]), "not an ancestor")
	refused(t, md, ms().RollbackTo(42), errkind.NotFound, "42")
	// Its own snapshot changes nothing.
	if _, updates := mustBuild(t, md, ms().RollbackTo(hive[5])); len(updates) != 0 {
		t.Errorf("rollback to the current snapshot gave %v", updates)
	}

	// A snapshot of another branch is no ancestor of main, but can be
	// made current directly.
	bm := branchedMetadata(t)
	refused(t, bm, ms().RollbackTo(devID), errkind.InvalidArgument, id(devID), id(hive[5]))
	next, _ = mustBuild(t, bm, ms().SetCurrentSnapshot(devID))
	refAt(t, next, "main", metadata.RefBranch, devID)
	// and back again: any snapshot.
	next, _ = mustBuild(t, bm, ms().SetCurrentSnapshot(devID).SetCurrentSnapshot(hive[4]))
	refAt(t, next, "main", metadata.RefBranch, hive[4])
	refused(t, bm, ms().SetCurrentSnapshot(42), errkind.NotFound, "42")
}

func TestRollbackToTime(t *testing.T) {
	md := hiveMetadata(t)
	ts := func(i int) int64 { return md.Snapshots[i].TimestampMs }
	for _, c := range []struct {
		ms   int64
		want int64
	}{
		{ts(3) - 1, hive[2]},
		{ts(3), hive[2]}, // strictly before, as Java
		{ts(3) + 1, hive[3]},
		{ts(5) + 1_000_000, hive[5]},
		{ts(0) + 1, hive[0]},
	} {
		next, _ := mustBuild(t, md, ms().RollbackToTime(c.ms))
		if got := *next.CurrentSnapshotID; got != c.want {
			t.Errorf("roll back to time %d: %d, want %d", c.ms, got, c.want)
		}
	}
	refused(t, md, ms().RollbackToTime(ts(0)), errkind.NotFound, id(ts(0)))
	// Only main's ancestors count: after a rollback to the third
	// snapshot, a later time still finds the third.
	next, _ := mustBuild(t, md, ms().RollbackTo(hive[2]).RollbackToTime(ts(5)+1))
	if *next.CurrentSnapshotID != hive[2] {
		t.Errorf("rollback to time found %d, not main's ancestor %d", *next.CurrentSnapshotID, hive[2])
	}
	// dev's own snapshot is newer than all of main's, but not main's.
	bm := branchedMetadata(t)
	next, _ = mustBuild(t, bm, ms().RollbackToTime(devTime(bm)+1))
	if *next.CurrentSnapshotID != hive[5] {
		t.Errorf("rollback to time took %d, off main's history", *next.CurrentSnapshotID)
	}
}

func devTime(md *metadata.Metadata) int64 { return md.SnapshotByID(devID).TimestampMs }

func TestRetentionSettings(t *testing.T) {
	md := branchedMetadata(t)
	next, updates := mustBuild(t, md, ms().
		SetMinSnapshotsToKeep("dev", 7).SetMaxSnapshotAgeMs("dev", 86_400_000).SetMaxRefAgeMs("dev", 5).
		SetMaxRefAgeMs("v1", 60_000).SetMinSnapshotsToKeep("main", 2).SetMaxRefAgeMs("old", 9))
	r := refAt(t, next, "dev", metadata.RefBranch, devID)
	if *r.MinSnapshotsToKeep != 7 || *r.MaxSnapshotAgeMs != 86_400_000 || *r.MaxRefAgeMs != 5 {
		t.Errorf("dev retention %+v", r)
	}
	if r := refAt(t, next, "v1", metadata.RefTag, hive[2]); *r.MaxRefAgeMs != 60_000 || r.MinSnapshotsToKeep != nil {
		t.Errorf("v1 retention %+v", r)
	}
	if r := refAt(t, next, "old", metadata.RefBranch, hive[0]); *r.MaxRefAgeMs != 9 || *r.MinSnapshotsToKeep != 4 {
		t.Errorf("old retention %+v", r)
	}
	// main's retention changes; its snapshot does not, so it is not logged
	// again.
	if *refAt(t, next, "main", metadata.RefBranch, hive[5]).MinSnapshotsToKeep != 2 || len(next.SnapshotLog) != len(md.SnapshotLog)+1 {
		t.Errorf("main: log %d entries, base %d", len(next.SnapshotLog), len(md.SnapshotLog))
	}
	// One update per ref, whatever the number of settings.
	if len(updates) != 4 {
		t.Errorf("updates %v", updates)
	}
	// Settings on a ref created in the same chain.
	next, _ = mustBuild(t, md, ms().CreateBranch("b", hive[3]).SetMinSnapshotsToKeep("b", 3))
	if *refAt(t, next, "b", metadata.RefBranch, hive[3]).MinSnapshotsToKeep != 3 {
		t.Error("retention of a new branch lost")
	}

	refused(t, md, ms().SetMinSnapshotsToKeep("v1", 2), errkind.InvalidArgument, `"v1"`, "tag")
	refused(t, md, ms().SetMaxSnapshotAgeMs("v1", 2), errkind.InvalidArgument, `"v1"`, "tag")
	refused(t, md, ms().SetMinSnapshotsToKeep("dev", 0), errkind.InvalidArgument, `"dev"`, "0")
	refused(t, md, ms().SetMaxSnapshotAgeMs("dev", -1), errkind.InvalidArgument, "-1")
	refused(t, md, ms().SetMaxRefAgeMs("v1", 0), errkind.InvalidArgument, `"v1"`)
	refused(t, md, ms().SetMaxRefAgeMs("nope", 10), errkind.NotFound, `"nope"`)
	refused(t, md, ms().SetMinSnapshotsToKeep("nope", 10), errkind.NotFound, `"nope"`)
}

// The main snapshot-log entry was counted above for the settings test
// to hold: retention on main is set with a set-snapshot-ref of main,
// which logs main's snapshot again, as Java's setRef of main does not.

// A tag turned into a branch of the same name is removed first: a
// set-snapshot-ref cannot change a ref's type.
func TestRefChangingTypeIsRemovedThenSet(t *testing.T) {
	md := branchedMetadata(t)
	next, updates := mustBuild(t, md, ms().RemoveTag("v1").CreateBranch("v1", hive[3]))
	refAt(t, next, "v1", metadata.RefBranch, hive[3])
	if len(updates) != 2 || updates[0].Action() != "remove-snapshot-ref" || updates[1].Action() != "set-snapshot-ref" {
		t.Errorf("updates %v", updates)
	}
}

// Build yields the net change: a ref created and removed, or moved and
// moved back, is no update at all.
func TestBuildYieldsTheNetChange(t *testing.T) {
	md := branchedMetadata(t)
	for _, m := range []*action.ManageSnapshots{
		ms(),
		ms().CreateBranch("b", 0).RemoveBranch("b"),
		ms().RollbackTo(hive[2]).SetCurrentSnapshot(hive[5]),
		ms().RenameBranch("dev", "d").RenameBranch("d", "dev"),
		ms().ReplaceTag("v1", hive[0]).ReplaceTag("v1", hive[2]),
	} {
		if updates, err := m.Build(md); err != nil || len(updates) != 0 {
			t.Errorf("gave %v, %v", updates, err)
		}
	}
	// main moved twice is logged once, at its final snapshot.
	next, updates := mustBuild(t, md, ms().RollbackTo(hive[1]).SetCurrentSnapshot(devID))
	if len(updates) != 1 || len(next.SnapshotLog) != len(md.SnapshotLog)+1 {
		t.Errorf("updates %v, log %v", updates, next.SnapshotLog)
	}
}

// The first refusal, in operation order, is Build's error; one found
// without metadata is Err at once. Refusals commit nothing.
func TestFirstRefusalWins(t *testing.T) {
	md := branchedMetadata(t)
	m := ms().CreateBranch("dev", 0).RemoveBranch("main").SetMaxRefAgeMs("v1", -5)
	if err := m.Err(); !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "main") {
		t.Errorf("Err %v, want the refusal to remove main", err)
	}
	refused(t, md, m, errkind.InvalidArgument, `"dev"`, "already exists")
	if err := ms().CreateTag("x", 0).Err(); err != nil {
		t.Errorf("Err %v before any metadata", err)
	}
}

// Build holds only what the caller asked: rebuilt on newer metadata (a
// retried commit), 0 is main's snapshot there, and checks run again.
func TestBuildRerunsOnNewerMetadata(t *testing.T) {
	old := hiveMetadata(t)
	m := ms().CreateBranch("b", 0).RollbackTo(hive[4])
	next, _ := mustBuild(t, old, m)
	refAt(t, next, "b", metadata.RefBranch, hive[5])

	// Someone rolled main back to the fourth snapshot meanwhile.
	moved, _ := mustBuild(t, old, ms().RollbackTo(hive[3]))
	refused(t, moved, m, errkind.InvalidArgument, id(hive[4]), "not an ancestor")
	m2 := ms().CreateBranch("b", 0)
	next, _ = mustBuild(t, moved, m2)
	refAt(t, next, "b", metadata.RefBranch, hive[3])
	// The same builder again on the first metadata: the same updates.
	first, _ := m2.Build(old)
	again, _ := m2.Build(old)
	if !reflect.DeepEqual(first, again) || first[0].(metadata.SetSnapshotRef).Ref.SnapshotID != hive[5] {
		t.Errorf("rebuilt %v then %v", first, again)
	}
}

// A rollback racing a commit to main: the rollback's changes assert main
// is where it was, so applied after the other commit they conflict and
// change nothing.
func TestRollbackRacingAnAppendConflicts(t *testing.T) {
	base := hiveMetadata(t)
	updates, err := ms().RollbackTo(hive[2]).Build(base)
	if err != nil {
		t.Fatal(err)
	}
	c := metadata.Edit(base)
	if err := c.Apply(updates...); err != nil {
		t.Fatal(err)
	}
	// The append lands first.
	appended := metadata.Edit(base)
	parent := hive[5]
	if err := appended.Apply(
		metadata.AddSnapshot{Snapshot: metadata.Snapshot{SnapshotID: 77, ParentSnapshotID: &parent, SequenceNumber: base.LastSequenceNumber + 1, TimestampMs: base.LastUpdatedMs + 1, ManifestList: "x.avro"}},
		metadata.SetSnapshotRef{Name: metadata.MainBranch, Ref: metadata.Ref{SnapshotID: 77, Type: metadata.RefBranch}},
	); err != nil {
		t.Fatal(err)
	}
	_, err = metadata.Apply(appended.Metadata(), c.Requirements(), c.Updates())
	if !errors.Is(err, errkind.Conflict) || !strings.Contains(err.Error(), "main") {
		t.Errorf("rollback applied after an append: %v, want a conflict on main", err)
	}
	// A branch created beside it does not touch main, and commits.
	updates, _ = ms().CreateTag("t", hive[1]).Build(base)
	c = metadata.Edit(base)
	if err := c.Apply(updates...); err != nil {
		t.Fatal(err)
	}
	if _, err := metadata.Apply(appended.Metadata(), c.Requirements(), c.Updates()); err != nil {
		t.Errorf("a tag created while main moved: %v", err)
	}
}

// The REST form of set-snapshot-ref carries the retention settings, and
// leaves out those not set.
func TestSetSnapshotRefJSONCarriesRetention(t *testing.T) {
	md := branchedMetadata(t)
	_, updates := mustBuild(t, md, ms().
		SetMinSnapshotsToKeep("dev", 3).SetMaxSnapshotAgeMs("dev", 1000).SetMaxRefAgeMs("dev", 2000).
		SetMaxRefAgeMs("v1", 4000))
	if len(updates) != 2 {
		t.Fatalf("updates %v", updates)
	}
	var got []map[string]any
	raw, err := json.Marshal(updates)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	n := func(v int64) json.Number { return json.Number(id(v)) }
	want := []map[string]any{
		{"action": "set-snapshot-ref", "ref-name": "dev", "snapshot-id": n(devID), "type": "branch",
			"min-snapshots-to-keep": n(3), "max-snapshot-age-ms": n(1000), "max-ref-age-ms": n(2000)},
		{"action": "set-snapshot-ref", "ref-name": "v1", "snapshot-id": n(hive[2]), "type": "tag", "max-ref-age-ms": n(4000)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON %s", raw)
	}
}

// Java, iceberg-go and iceberg-rust refuse to read a snapshot log out of
// time order (by more than a minute). A rollback makes an old snapshot
// current again: it is logged when it became current, not when it was
// first committed, and time travel after it finds it.
func TestRollbackKeepsTheSnapshotLogInTimeOrder(t *testing.T) {
	md := hiveMetadata(t)
	for _, m := range []*action.ManageSnapshots{ms().RollbackTo(hive[0]), ms().RollbackToTime(md.Snapshots[2].TimestampMs), ms().SetCurrentSnapshot(hive[1])} {
		next, _ := mustBuild(t, md, m)
		log := next.SnapshotLog
		for i := 1; i < len(log); i++ {
			if log[i].TimestampMs < log[i-1].TimestampMs {
				t.Fatalf("snapshot log entry %d (%v) is older than the one before (%v)", i, log[i], log[i-1])
			}
		}
		last := log[len(log)-1]
		if last.TimestampMs < md.LastUpdatedMs || last.SnapshotID != *next.CurrentSnapshotID {
			t.Errorf("logged %v, before the table's last update %d", last, md.LastUpdatedMs)
		}
		if s, err := next.SnapshotAsOf(md.LastUpdatedMs); err != nil || s.SnapshotID != *next.CurrentSnapshotID {
			t.Errorf("as of the rollback: %v, %v", s, err)
		}
	}
}

// Branch a table, keep the branch's last three snapshots, tag main and
// roll main back one commit: one change, as the REST protocol sends it.
func ExampleManageSnapshots() {
	fx, _ := fixtures.Get(refsFixture)
	raw, _ := os.ReadFile(fx.Metadata)
	md, _ := metadata.Parse(raw)

	var ms action.ManageSnapshots
	ms.CreateBranch("audit", 0).SetMinSnapshotsToKeep("audit", 3).
		CreateTag("before-rollback", 0).
		RollbackTo(*md.CurrentSnapshot().ParentSnapshotID)
	updates, err := ms.Build(md)
	if err != nil {
		panic(err)
	}
	for _, u := range updates {
		b, _ := json.Marshal(u)
		fmt.Println(string(b))
	}
	// Output:
	// {"action":"set-snapshot-ref","ref-name":"audit","snapshot-id":1497619269847778439,"type":"branch","min-snapshots-to-keep":3}
	// {"action":"set-snapshot-ref","ref-name":"before-rollback","snapshot-id":1497619269847778439,"type":"tag"}
	// {"action":"set-snapshot-ref","ref-name":"main","snapshot-id":752781918366351945,"type":"branch"}
}
