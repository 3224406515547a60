package main

import (
	"reflect"
	"strconv"
	"testing"
)

// The four snapshots Spark wrote into impala_iceberg_v3_row_lineage, in
// order: three appends of one row each, then a rewrite of the three.
const (
	lineageS1 = 8059325670730066324
	lineageS2 = 7384452996480084466
	lineageS3 = 2872597867664652808
	lineageS4 = 5398841822738664432
)

func id(n int64) string { return strconv.FormatInt(n, 10) }

func ptr(n int64) *int64 { return &n }

// Branches and tags are created at a snapshot (main's by default),
// renamed and dropped, each one commit that says which refs moved; a
// branch reads as its snapshot.
func TestBranchAndTagCommands(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v3_row_lineage")
	res := runChange(t, "branch", "create", dir, "audit", "--snapshot", id(lineageS2), "--min-snapshots-to-keep", "2", "--max-ref-age-ms", "86400000")
	if !res.Committed || !reflect.DeepEqual(res.Actions, []string{"create-branch"}) || res.Command != "branch" ||
		!reflect.DeepEqual(res.Refs, map[string]*refResult{"audit": {Type: "branch", SnapshotID: lineageS2}}) {
		t.Errorf("branch create: %+v", res)
	}
	if res.SnapshotID == nil || *res.SnapshotID != lineageS4 || len(res.SnapshotIDs) != 0 {
		t.Errorf("branch create moved main or wrote a snapshot: %+v", res)
	}
	_, md := openMetadata(t, dir)
	if r := md.Refs["audit"]; r.MinSnapshotsToKeep == nil || *r.MinSnapshotsToKeep != 2 || r.MaxRefAgeMs == nil || *r.MaxRefAgeMs != 86400000 || r.MaxSnapshotAgeMs != nil {
		t.Errorf("audit's retention: %+v", r)
	}
	if n := len(scanRows(t, dir, "--ref", "audit")); n != 2 {
		t.Errorf("branch audit reads %d rows, want S2's 2", n)
	}

	res = runChange(t, "branch", "rename", dir, "audit", "review")
	if !reflect.DeepEqual(res.Refs, map[string]*refResult{"audit": nil, "review": {Type: "branch", SnapshotID: lineageS2}}) {
		t.Errorf("branch rename: refs %v", res.Refs)
	}
	res = runChange(t, "branch", "replace", dir, "review", "--snapshot", id(lineageS3))
	if !reflect.DeepEqual(res.Refs, map[string]*refResult{"review": {Type: "branch", SnapshotID: lineageS3, PreviousSnapshotID: ptr(lineageS2)}}) {
		t.Errorf("branch replace: refs %v", res.Refs)
	}
	res = runChange(t, "tag", "create", dir, "v1")
	if !reflect.DeepEqual(res.Refs, map[string]*refResult{"v1": {Type: "tag", SnapshotID: lineageS4}}) || res.Command != "tag" {
		t.Errorf("tag create (main's snapshot): %+v", res)
	}
	runChange(t, "tag", "create", dir, "first", "--snapshot", id(lineageS1))
	if n := len(scanRows(t, dir, "--ref", "first")); n != 1 {
		t.Errorf("tag first reads %d rows, want 1", n)
	}

	// Refusals name what is wrong and commit nothing.
	for _, c := range []struct {
		want []string
		args []string
	}{
		{[]string{`"review"`}, []string{"branch", "create", dir, "review"}},
		{[]string{"main cannot be removed"}, []string{"branch", "drop", dir, "main"}},
		{[]string{"123"}, []string{"tag", "create", dir, "t2", "--snapshot", "123"}},
		{[]string{`"nope"`}, []string{"branch", "rename", dir, "nope", "other"}},
		{[]string{`"v1"`}, []string{"branch", "drop", dir, "v1"}},
		{[]string{`"review"`}, []string{"tag", "drop", dir, "review"}},
		{[]string{"--snapshot", `"x"`}, []string{"branch", "create", dir, "b", "--snapshot", "x"}},
		{[]string{"--snapshot"}, []string{"branch", "replace", dir, "review"}},
		{[]string{`"move"`, "create, drop, rename, replace"}, []string{"branch", "move", dir, "b"}},
		{[]string{`"rename"`, "create, drop, replace"}, []string{"tag", "rename", dir, "v1", "v2"}},
		{[]string{"usage: floe branch"}, []string{"branch", "create", dir}},
		{[]string{"unknown flag --min-snapshots-to-keep"}, []string{"tag", "create", dir, "t3", "--min-snapshots-to-keep", "1"}},
		{[]string{"min-snapshots-to-keep"}, []string{"branch", "create", dir, "b", "--min-snapshots-to-keep", "0"}},
		{[]string{"drop takes no --snapshot"}, []string{"branch", "drop", dir, "review", "--snapshot", id(lineageS1)}},
	} {
		refuse(t, dir, c.want, c.args...)
	}

	res = runChange(t, "tag", "drop", dir, "v1")
	if !reflect.DeepEqual(res.Refs, map[string]*refResult{"v1": nil}) {
		t.Errorf("tag drop: refs %v", res.Refs)
	}
	runChange(t, "branch", "drop", dir, "review")
	_, md = openMetadata(t, dir)
	if len(md.Refs) != 2 || md.Refs["first"].SnapshotID != lineageS1 || md.Refs["main"].SnapshotID != lineageS4 {
		t.Errorf("refs at the end: %+v", md.Refs)
	}
}
