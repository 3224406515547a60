package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floedb/floe/internal/pgtest"
	"github.com/floedb/floe/internal/weedtest"
)

// A table in a SQLite catalog, from the command line: append creates it
// (and its namespace, asked to), commits go through the catalog, a token is found
// again, and the catalog commands list, rename, register and drop.
func TestCatalogCommands(t *testing.T) {
	dir := t.TempDir()
	cat := "sqlite:" + filepath.Join(dir, "cat.db")
	rows := filepath.Join(dir, "rows.jsonl")
	writeTestFile(t, rows, `{"id": 1, "who": "a"}`+"\n"+`{"id": 2, "who": "b"}`+"\n")
	mustRun(t, "append", "db.events", rows, "--catalog", cat, "--catalog-prop", "warehouse="+filepath.Join(dir, "wh"), "--create-namespace")
	if out := mustRun(t, "append", "db.events", rows, "--catalog", cat, "--token", "t1"); !strings.Contains(out, "2 rows in 1 files") {
		t.Fatalf("second append: %s", out)
	}
	if out := mustRun(t, "append", "db.events", rows, "--catalog", cat, "--token", "t1"); !strings.Contains(out, "already committed") {
		t.Fatalf("retried append: %s", out)
	}
	if out := mustRun(t, "scan", "db.events", "--catalog", cat, "--filter", "id = 2"); strings.Count(out, `"id":2`) != 2 {
		t.Errorf("scan: %s", out)
	}
	if out := mustRun(t, "info", "db.events", "--catalog", cat); !strings.Contains(out, filepath.ToSlash(filepath.Join(dir, "wh", "db", "events"))) {
		t.Errorf("info does not show the table under the warehouse: %s", out)
	}
	if out := mustRun(t, "catalog", "namespaces", "--catalog", cat); out != "db\n" {
		t.Errorf("namespaces: %q", out)
	}
	mustRun(t, "catalog", "create-namespace", "other", "--catalog", cat)
	mustRun(t, "catalog", "rename", "db.events", "other.moved", "--catalog", cat)
	if out := mustRun(t, "catalog", "tables", "other", "--catalog", cat); out != "other.moved\n" {
		t.Errorf("tables after rename: %q", out)
	}
	if info := mustRun(t, "info", "other.moved", "--catalog", cat, "--json"); strings.Count(info, `"manifest-list"`) != 2 {
		t.Errorf("the renamed table has lost snapshots: %s", info)
	}
	mustRun(t, "catalog", "drop-table", "other.moved", "--catalog", cat)
	if status, _, errOut := runCLI(t, "scan", "other.moved", "--catalog", cat); status == 0 || !strings.Contains(errOut, "no such table") {
		t.Errorf("scan of a dropped table: %d %s", status, errOut)
	}
	if status, _, errOut := runCLI(t, "catalog", "drop-namespace", "nope", "--catalog", cat); status == 0 || !strings.Contains(errOut, "no such namespace") {
		t.Errorf("dropping a missing namespace: %d %s", status, errOut)
	}
	if status, _, errOut := runCLI(t, "scan", "db.events", "--catalog", "postgresql://u:hunter2@127.0.0.1/db"); status == 0 || strings.Contains(errOut, "hunter2") {
		t.Errorf("an unsupported catalog: %d %s", status, errOut)
	}
}

// 8 processes × 25 appends through one SQL catalog, SQLite and
// PostgreSQL: exactly 200 snapshots, every row once.
func TestCatalogConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 200 processes")
	}
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		concurrentAppends(t, dir, "db.t", "sqlite:"+filepath.Join(dir, "cat.db"), "warehouse="+filepath.Join(dir, "wh"))
	})
	t.Run("postgresql", func(t *testing.T) {
		dir := t.TempDir()
		concurrentAppends(t, dir, "db.t", pgtest.Shared(t).NewDatabase(t), "warehouse="+filepath.Join(dir, "wh"))
	})
	t.Run("rest", func(t *testing.T) {
		w := weedtest.Shared(t)
		var props []string
		for k, v := range w.Properties() {
			props = append(props, k+"="+v)
		}
		concurrentAppends(t, t.TempDir(), w.Namespace("procs")+".t", w.CatalogURL, props...)
	})
}

// concurrentAppends runs 8 processes that append 25 times each to table
// name of catalog cat (with the catalog properties given), each append
// with its own token, and checks every row is there once in its own
// snapshot. Eight writers racing without a lock (REST: the server
// decides) can lose more than Iceberg's default 4 retries in a row, so
// the table allows more, as a table with that many writers would.
func concurrentAppends(t *testing.T, dir, name, cat string, props ...string) {
	const procs, each = 8, 25
	catalogArgs := []string{"--catalog", cat}
	for _, p := range props {
		catalogArgs = append(catalogArgs, "--catalog-prop", p)
	}
	schema := filepath.Join(dir, "schema.json")
	writeTestFile(t, schema, `{"type": "struct", "schema-id": 0, "fields": [
		{"id": 1, "name": "id", "type": "long", "required": false},
		{"id": 2, "name": "who", "type": "string", "required": false}]}`)
	mustRun(t, append([]string{"create", name, "--schema", schema, "--property", "commit.retry.num-retries=100", "--create-namespace"}, catalogArgs...)...)
	seed := filepath.Join(dir, "seed.jsonl")
	writeTestFile(t, seed, `{"id": -1, "who": "seed"}`+"\n")
	mustRun(t, append([]string{"append", name, seed}, catalogArgs...)...)
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				rows := filepath.Join(dir, fmt.Sprintf("rows-%d-%d.jsonl", p, i))
				writeTestFile(t, rows, fmt.Sprintf(`{"id": %d, "who": "p%d"}`+"\n", p*1000+i, p))
				args := append([]string{"append", name, rows, "--token", fmt.Sprintf("p%d-%d", p, i)}, catalogArgs...)
				out, err := floeProcess(t, "", args...).CombinedOutput()
				if err != nil || !strings.Contains(string(out), "1 rows in 1 files") {
					errs <- fmt.Errorf("process %d append %d: %v: %s", p, i, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	out := mustRun(t, append([]string{"scan", name, "--columns", "id"}, catalogArgs...)...)
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		ids = append(ids, line)
	}
	slices.Sort(ids)
	if len(ids) != procs*each+1 || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("%d rows (%d distinct), want %d", len(ids), len(slices.Compact(slices.Clone(ids))), procs*each+1)
	}
	info := mustRun(t, append([]string{"info", name, "--json"}, catalogArgs...)...)
	if n := strings.Count(info, `"manifest-list"`); n != procs*each+1 {
		t.Errorf("%d snapshots, want %d", n, procs*each+1)
	}
}

// A directory is a filesystem warehouse catalog: append creates the
// namespace (asked to) and the table where FLOE_WAREHOUSE would, the catalog
// commands list them, and drop-table --purge removes the files.
func TestCatalogWarehouseDirectory(t *testing.T) {
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	rows := filepath.Join(dir, "rows.jsonl")
	writeTestFile(t, rows, `{"id": 1, "who": "a"}`+"\n")
	mustRun(t, "append", "db.events", rows, "--catalog", wh, "--create-namespace")
	mustRun(t, "append", "db.events", rows, "--catalog", "file://"+filepath.ToSlash(wh))
	if out := mustRun(t, "scan", "db.events", "--warehouse", wh); strings.Count(out, `"id":1`) != 2 {
		t.Errorf("the table is not where a warehouse keeps it: %s", out)
	}
	if out := mustRun(t, "catalog", "namespaces", "--catalog", wh); out != "db\n" {
		t.Errorf("namespaces: %q", out)
	}
	if out := mustRun(t, "catalog", "tables", "db", "--catalog", wh); out != "db.events\n" {
		t.Errorf("tables: %q", out)
	}
	if status, _, errOut := runCLI(t, "catalog", "rename", "db.events", "db.other", "--catalog", wh); status == 0 || !strings.Contains(errOut, "filesystem warehouse") {
		t.Errorf("rename in a warehouse: %d %s", status, errOut)
	}
	mustRun(t, "catalog", "drop-table", "db.events", "--purge", "--catalog", wh)
	if out := mustRun(t, "catalog", "tables", "db", "--catalog", wh); out != "" {
		t.Errorf("tables after drop: %q", out)
	}
}
