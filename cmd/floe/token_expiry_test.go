package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// floe append --token, more appends, floe expire --retain-last 1, then a
// retry of every append with its token: nothing is appended twice, on a
// path table and through a SQL catalog.
func TestAppendTokenRetriedAfterExpiry(t *testing.T) {
	dir := t.TempDir()
	cat := "sqlite:" + filepath.Join(dir, "cat.db")
	catArgs := []string{"--catalog", cat, "--catalog-prop", "warehouse=" + filepath.Join(dir, "wh")}
	mustRun(t, append([]string{"catalog", "create-namespace", "db"}, catArgs...)...)
	for _, target := range []struct {
		name  string
		table string
		args  []string
	}{
		{"path", filepath.Join(dir, "t"), nil},
		{"sqlite", "db.events", catArgs},
	} {
		t.Run(target.name, func(t *testing.T) {
			run := func(args ...string) string {
				t.Helper()
				return mustRun(t, append(args, target.args...)...)
			}
			var inputs []string
			for i := range 4 {
				in := filepath.Join(t.TempDir(), "rows.jsonl")
				writeTestFile(t, in, fmt.Sprintf("{\"id\": %d}\n{\"id\": %d}\n", 2*i, 2*i+1))
				inputs = append(inputs, in)
				run("append", target.table, in, "--token", fmt.Sprintf("T%d", i))
			}
			if out := run("expire", target.table, "--retain-last", "1", "--older-than", "0s"); !strings.Contains(out, "expired 3 snapshots") {
				t.Fatalf("expire: %s", out)
			}
			for i, in := range inputs {
				if out := run("append", target.table, in, "--token", fmt.Sprintf("T%d", i)); !strings.Contains(out, "already committed") {
					t.Errorf("retry of T%d after expiry: %s", i, out)
				}
			}
			rows := scanRows(t, append([]string{target.table}, target.args...)...)
			if len(rows) != 8 {
				t.Errorf("%d rows after the retries, want 8", len(rows))
			}
		})
	}
}
