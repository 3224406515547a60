package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/pgtest"
	"github.com/floedb/floe/internal/weedtest"
)

// The test binary doubles as the CLI: with FLOE_TEST_AS_CLI set it runs
// its arguments as a floe command line, so a test can start real floe
// processes that hold at a chosen point (FLOE_TEST_HOLD, read only here).
func TestMain(m *testing.M) {
	if os.Getenv("FLOE_TEST_AS_CLI") == "" {
		code := m.Run()
		pgtest.StopShared()
		weedtest.StopShared()
		os.Exit(code)
	}
	if dir := os.Getenv("FLOE_TEST_HOLD"); dir != "" {
		testHookInputRead = func() { holdUntilReleased(dir) }
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// holdUntilReleased says it is held (dir/held) and waits for dir/go.
func holdUntilReleased(dir string) {
	if err := os.WriteFile(filepath.Join(dir, "held"), nil, 0o644); err != nil {
		panic(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			return
		}
	}
	panic("held for two minutes")
}

// floeProcess is a floe command line run as a process of this binary.
func floeProcess(t *testing.T, holdDir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FLOE_TEST_AS_CLI=1")
	if holdDir != "" {
		cmd.Env = append(cmd.Env, "FLOE_TEST_HOLD="+holdDir)
	}
	return cmd
}

// Two `floe append --token T` processes on one table at once: the loser
// passes its token check and writes its rows while the winner commits, so
// only its commit finds the token. One snapshot is left, holding the
// winner's rows; the loser's files are removed and it says the commit
// already existed.
func TestAppendSameTokenRaceLeavesOneSnapshotAndNoOrphans(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	writeTestFile(t, schema, `{"type": "struct", "schema-id": 0, "fields": [
	  {"id": 1, "name": "id", "required": true, "type": "long"},
	  {"id": 2, "name": "who", "required": false, "type": "string"}]}`)
	loc := filepath.Join(dir, "t")
	mustRun(t, "create", loc, "--schema", schema)
	loserRows, winnerRows := filepath.Join(dir, "loser.jsonl"), filepath.Join(dir, "winner.jsonl")
	writeTestFile(t, loserRows, `{"id": 1, "who": "loser"}`+"\n"+`{"id": 2, "who": "loser"}`+"\n")
	writeTestFile(t, winnerRows, `{"id": 3, "who": "winner"}`+"\n")

	hold := t.TempDir()
	loser := floeProcess(t, hold, "append", loc, loserRows, "--token", "T")
	var loserOut, loserErr strings.Builder
	loser.Stdout, loser.Stderr = &loserOut, &loserErr
	if err := loser.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- loser.Wait() }()
	for {
		if _, err := os.Stat(filepath.Join(hold, "held")); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the first append exited before it was held: %v\n%s%s", err, loserOut.String(), loserErr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}

	// The winner starts after the loser checked the token, and commits.
	out, err := floeProcess(t, "", "append", loc, winnerRows, "--token", "T").CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": 1 rows in 1 files") {
		t.Fatalf("the second append: %v\n%s", err, out)
	}
	writeTestFile(t, filepath.Join(hold, "go"), "")
	if err := <-exited; err != nil {
		t.Fatalf("the first append: %v\n%s%s", err, loserOut.String(), loserErr.String())
	}
	if got := loserOut.String(); !strings.Contains(got, `token "T" was already committed; nothing appended`) {
		t.Errorf("the first append printed %q, want that the token was already committed", got)
	}

	tbl, err := table.Open(context.Background(), loc, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tbl.Metadata.Snapshots); n != 1 {
		t.Errorf("%d snapshots, want 1", n)
	}
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, task := range plan.Tasks {
		live = append(live, filepath.Clean(strings.TrimPrefix(task.Path, "file://")))
	}
	slices.Sort(live)
	if onDisk := dataFilesUnder(t, filepath.Join(loc, "data")); !slices.Equal(onDisk, live) {
		t.Errorf("data files on disk:\n%v\nthe table's:\n%v", onDisk, live)
	}
	rows := scanRows(t, loc)
	if len(rows) != 1 || rows[0]["who"] != "winner" {
		t.Errorf("rows %v, want the winner's one row", rows)
	}
}

// dataFilesUnder lists the Parquet files below dir, sorted.
func dataFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".parquet") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
