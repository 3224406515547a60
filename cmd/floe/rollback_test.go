package main

import (
	"reflect"
	"testing"
)

// Rollback moves main to an ancestor, by id or by time, writing no
// snapshot; a snapshot off main's history, one the table lacks and a
// time before any snapshot are refused and commit nothing.
func TestRollbackCommand(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v3_row_lineage")
	_, md := openMetadata(t, dir)
	s3 := md.SnapshotByID(lineageS3)

	res := runChange(t, "rollback", dir, "--to-timestamp", id(s3.TimestampMs+1))
	if !res.Committed || !reflect.DeepEqual(res.Actions, []string{"rollback-to-timestamp"}) || res.SnapshotID == nil || *res.SnapshotID != lineageS3 ||
		!reflect.DeepEqual(res.Refs, map[string]*refResult{"main": {Type: "branch", SnapshotID: lineageS3, PreviousSnapshotID: ptr(lineageS4)}}) {
		t.Errorf("rollback --to-timestamp: %+v", res)
	}
	if n := len(scanRows(t, dir)); n != 3 {
		t.Errorf("after rolling back to S3: %d rows, want 3", n)
	}
	res = runChange(t, "rollback", dir, "--to-snapshot", id(lineageS2))
	if *res.SnapshotID != lineageS2 || len(res.SnapshotIDs) != 0 || res.Command != "rollback" {
		t.Errorf("rollback --to-snapshot: %+v", res)
	}
	if n := len(scanRows(t, dir)); n != 2 {
		t.Errorf("after rolling back to S2: %d rows, want 2", n)
	}
	for _, c := range []struct {
		want []string
		args []string
	}{
		// S4 is no longer an ancestor of main.
		{[]string{id(lineageS4)}, []string{"--to-snapshot", id(lineageS4)}},
		{[]string{"123"}, []string{"--to-snapshot", "123"}},
		{[]string{"--to-snapshot", `"x"`}, []string{"--to-snapshot", "x"}},
		{[]string{"--to-timestamp", `"yesterday"`}, []string{"--to-timestamp", "yesterday"}},
		{[]string{"usage: floe rollback"}, nil},
		{[]string{"usage: floe rollback"}, []string{"--to-snapshot", id(lineageS1), "--to-timestamp", "1"}},
		{nil, []string{"--to-timestamp", "1000"}},
	} {
		refuse(t, dir, c.want, append([]string{"rollback", dir}, c.args...)...)
	}
	// An RFC 3339 time reads as its milliseconds.
	res = runChange(t, "rollback", dir, "--to-timestamp", "2026-02-18T11:45:00Z")
	if *res.SnapshotID != lineageS1 {
		t.Errorf("rollback to 11:45:00: main at %d, want S1", *res.SnapshotID)
	}
}
