package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The change commands name a catalog's table as the other commands do
// and commit through the catalog: alter, branch, tag, a staged write
// published by cherry-pick, fast-forward and rollback on a SQLite
// catalog's table, each new version the catalog's.
func TestChangeCommandsThroughSQLiteCatalog(t *testing.T) {
	dir := t.TempDir()
	cat := []string{"--catalog", "sqlite:" + filepath.Join(dir, "cat.db")}
	rows := filepath.Join(dir, "rows.jsonl")
	writeTestFile(t, rows, `{"id": 1, "who": "a"}`+"\n"+`{"id": 2, "who": "b"}`+"\n")
	run := func(args ...string) changeResult { t.Helper(); return runChange(t, append(args, cat...)...) }
	first := writtenSnapshot(t, mustRun(t, append([]string{"append", "db.t", rows, "--catalog-prop", "warehouse=" + filepath.Join(dir, "wh"), "--create-namespace"}, cat...)...))

	res := run("alter", "db.t", "add-column", "n", "long", "add-partition-field", "who:truncate[1]", "set-property", "write.wap.enabled=true")
	if res.SchemaID != 1 || res.SpecID != 1 || !res.Committed {
		t.Errorf("alter: %+v", res)
	}
	info := mustRun(t, append([]string{"info", "db.t"}, cat...)...)
	if !strings.Contains(info, res.MetadataLocation) || !strings.Contains(info, "who_trunc_1 = truncate[1](who)") {
		t.Errorf("the catalog's table is not the altered one (%s):\n%s", res.MetadataLocation, info)
	}
	run("tag", "create", "db.t", "v1")
	staged := writtenSnapshot(t, mustRun(t, append([]string{"append", "db.t", rows, "--wap-id", "w1"}, cat...)...))
	if res = run("cherry-pick", "db.t", id(staged)); res.PublishedWapID != "w1" || *res.SnapshotID != staged {
		t.Errorf("cherry-pick: %+v", res)
	}
	mustRun(t, append([]string{"append", "db.t", rows, "--branch", "audit"}, cat...)...)
	if res = run("fast-forward", "db.t", "main", "--to", "audit"); res.Refs["main"] == nil {
		t.Errorf("fast-forward: %+v", res)
	}
	if n := len(scanRows(t, append([]string{"db.t"}, cat...)...)); n != 6 {
		t.Errorf("main reads %d rows, want 6", n)
	}
	if res = run("rollback", "db.t", "--to-snapshot", id(first)); *res.SnapshotID != first {
		t.Errorf("rollback: %+v", res)
	}
	if n := len(scanRows(t, append([]string{"db.t"}, cat...)...)); n != 2 {
		t.Errorf("after the rollback main reads %d rows, want 2", n)
	}
	if n := len(scanRows(t, append([]string{"db.t", "--ref", "v1"}, cat...)...)); n != 2 {
		t.Errorf("tag v1 reads %d rows, want 2", n)
	}
}
