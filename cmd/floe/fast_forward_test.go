package main

import (
	"reflect"
	"strings"
	"testing"
)

// The branch form of write-audit-publish: append and delete --branch
// audit change only audit (created from main), fast-forward main --to
// audit publishes them; fast-forwarding a branch that is not behind is
// refused and commits nothing.
func TestBranchWritesAndFastForward(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v3_row_lineage")
	out := mustRun(t, "append", dir, rowsFile(t, 10, 11), "--branch", "audit")
	if !strings.Contains(out, "(branch audit)") {
		t.Errorf("append --branch says %q", out)
	}
	out = mustRun(t, "delete", dir, "i = 10", "--branch", "audit")
	head := writtenSnapshot(t, out)
	if !strings.Contains(out, "(branch audit): deleted 1 rows") {
		t.Errorf("delete --branch says %q", out)
	}
	if n := len(scanRows(t, dir)); n != 3 {
		t.Errorf("main reads %d rows, want 3 (the writes went to audit)", n)
	}
	if n := len(scanRows(t, dir, "--ref", "audit")); n != 4 {
		t.Errorf("audit reads %d rows, want 4", n)
	}
	res := runChange(t, "fast-forward", dir, "main", "--to", "audit")
	if !res.Committed || res.Command != "fast-forward" || !reflect.DeepEqual(res.Actions, []string{"fast-forward"}) || *res.SnapshotID != head ||
		!reflect.DeepEqual(res.Refs, map[string]*refResult{"main": {Type: "branch", SnapshotID: head, PreviousSnapshotID: ptr(lineageS4)}}) {
		t.Errorf("fast-forward: %+v", res)
	}
	if n := len(scanRows(t, dir)); n != 4 {
		t.Errorf("main reads %d rows after the fast-forward, want 4", n)
	}
	// main moves on; audit is now behind it, so audit cannot be the
	// target of main's fast-forward.
	mustRun(t, "append", dir, rowsFile(t, 12))
	refuse(t, dir, []string{`"main"`, `"audit"`}, "fast-forward", dir, "main", "--to", "audit")
	refuse(t, dir, []string{`"nope"`}, "fast-forward", dir, "main", "--to", "nope")
	refuse(t, dir, []string{"usage: floe fast-forward"}, "fast-forward", dir, "main")
	// The other way round moves audit up to main.
	res = runChange(t, "fast-forward", dir, "audit", "--to", "main")
	if res.Refs["audit"] == nil || res.Refs["audit"].SnapshotID != *res.SnapshotID {
		t.Errorf("fast-forward audit --to main: %+v", res)
	}
}
