package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rowsFile writes JSON lines of the lineage table's one column i.
func rowsFile(t *testing.T, values ...int) string {
	t.Helper()
	var b strings.Builder
	for _, v := range values {
		b.WriteString(`{"i": ` + strconv.Itoa(v) + "}\n")
	}
	p := filepath.Join(t.TempDir(), "rows.jsonl")
	writeTestFile(t, p, b.String())
	return p
}

var snapshotOut = regexp.MustCompile(`(?m)^snapshot (-?\d+)`)

// writtenSnapshot is the snapshot id a write command's output names.
func writtenSnapshot(t *testing.T, out string) int64 {
	t.Helper()
	m := snapshotOut.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no snapshot in %q", out)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// Write-audit-publish through the CLI: with write.wap.enabled an append
// with --wap-id is staged (main does not move, the snapshot reads by
// id), cherry-pick publishes it once, by fast-forward when main has not
// moved and by a new snapshot when it has; a second publish of a wap id
// is refused and commits nothing.
func TestWriteAuditPublish(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v3_row_lineage")
	// Without the property a wap id is refused rather than published.
	refuse(t, dir, []string{`"w0"`, "write.wap.enabled"}, "append", dir, rowsFile(t, 7), "--wap-id", "w0")
	runChange(t, "alter", dir, "set-property", "write.wap.enabled=true")

	out := mustRun(t, "append", dir, rowsFile(t, 100), "--wap-id", "w1")
	staged := writtenSnapshot(t, out)
	if !strings.Contains(out, "staged, wap.id w1") {
		t.Errorf("append --wap-id says %q", out)
	}
	if n := len(scanRows(t, dir)); n != 3 {
		t.Errorf("main reads %d rows after staging, want 3", n)
	}
	if n := len(scanRows(t, dir, "--snapshot", id(staged))); n != 4 {
		t.Errorf("the staged snapshot reads %d rows, want 4", n)
	}
	res := runChange(t, "cherry-pick", dir, id(staged))
	if !res.Committed || res.PublishedWapID != "w1" || len(res.SnapshotIDs) != 0 || *res.SnapshotID != staged ||
		res.Refs["main"] == nil || *res.Refs["main"].PreviousSnapshotID != lineageS4 {
		t.Errorf("cherry-pick (fast-forward): %+v", res)
	}
	if n := len(scanRows(t, dir)); n != 4 {
		t.Errorf("main reads %d rows after publishing, want 4", n)
	}
	refuse(t, dir, []string{id(staged)}, "cherry-pick", dir, id(staged))

	// Staged, then main moves: the publish is a new snapshot.
	w2 := writtenSnapshot(t, mustRun(t, "append", dir, rowsFile(t, 200, 201), "--wap-id", "w2"))
	mustRun(t, "append", dir, rowsFile(t, 300))
	res = runChange(t, "cherry-pick", dir, id(w2))
	if len(res.SnapshotIDs) != 1 || res.SnapshotIDs[0] == w2 || *res.SnapshotID != res.SnapshotIDs[0] || res.PublishedWapID != "w2" {
		t.Errorf("cherry-pick (new snapshot): %+v", res)
	}
	if n := len(scanRows(t, dir)); n != 7 {
		t.Errorf("main reads %d rows, want 7", n)
	}
	// A second snapshot staged under w2 is not published again.
	w2b := writtenSnapshot(t, mustRun(t, "append", dir, rowsFile(t, 400), "--wap-id", "w2"))
	refuse(t, dir, []string{"w2"}, "cherry-pick", dir, id(w2b))
	for _, c := range []struct {
		want []string
		args []string
	}{
		{[]string{"123"}, []string{"123"}},
		{[]string{"SNAPSHOT_ID", `"x"`}, []string{"x"}},
		{[]string{"usage: floe cherry-pick"}, nil},
	} {
		refuse(t, dir, c.want, append([]string{"cherry-pick", dir}, c.args...)...)
	}
}

// --stage stages a snapshot without a wap id, and without the property;
// delete --stage takes rows out of the staged snapshot only.
func TestStageWithoutWapID(t *testing.T) {
	dir := copyFixture(t, "impala_iceberg_v3_row_lineage")
	out := mustRun(t, "delete", dir, "i = 1", "--stage")
	staged := writtenSnapshot(t, out)
	if !strings.Contains(out, "(staged; publish with floe cherry-pick)") {
		t.Errorf("delete --stage says %q", out)
	}
	if n := len(scanRows(t, dir)); n != 3 {
		t.Errorf("main reads %d rows after a staged delete, want 3", n)
	}
	if n := len(scanRows(t, dir, "--snapshot", id(staged))); n != 2 {
		t.Errorf("the staged delete reads %d rows, want 2", n)
	}
	// Its parent is main's head, so publishing it fast-forwards.
	res := runChange(t, "cherry-pick", dir, id(staged))
	if *res.SnapshotID != staged || len(res.SnapshotIDs) != 0 {
		t.Errorf("cherry-pick of a staged delete: %+v", res)
	}
}
