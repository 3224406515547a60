package table

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/internal/crashtest"
)

// crashEnv hands the child process its job: "<table>|<data dir>|<step>".
const crashEnv = "FLOE_TABLE_CRASH_AT"

const crashToken = "step-1"

// A process committing an append is killed (SIGKILL) at each step of the
// commit. Whatever the step, the table opens and plans a consistent
// snapshot whose files all exist, and retrying the append with the same
// token leaves the rows in the table exactly once.
func TestCrashAtEachCommitStep(t *testing.T) {
	ctx := context.Background()
	for _, step := range []string{"data", "manifests", "manifest-list", "published", "hint"} {
		t.Run(step, func(t *testing.T) {
			tbl := createTable(t, 2, nil, nil)
			base := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
			if _, err := tbl.Append(ctx, base, CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			dataDir := t.TempDir()
			crashtest.RunKilled(t, "TestCrashChildProcess", fmt.Sprintf("%s=%s|%s|%s", crashEnv, tbl.Metadata.Location, dataDir, step))

			// The table after the crash.
			after := reopen(t, tbl)
			plan, err := after.PlanFiles(ctx, SnapshotSelector{})
			if err != nil {
				t.Fatalf("plan after a crash at %s: %v", step, err)
			}
			for _, task := range plan.Tasks {
				if !exists(task.Path) {
					t.Fatalf("crash at %s: the table lists missing file %s", step, task.Path)
				}
			}
			committed := step == "published" || step == "hint"
			if n := len(after.Metadata.Snapshots); n != 1 && !committed || n != 2 && committed {
				t.Fatalf("crash at %s: %d snapshots", step, n)
			}

			// The retry, with the files the killed process wrote.
			added := filesIn(t, dataDir)
			res, err := after.Append(ctx, added, CommitOptions{Token: crashToken})
			if err != nil {
				t.Fatal(err)
			}
			// A crash after publishing leaves the token committed: the
			// retry finds it and commits nothing.
			if res.TokenFound != committed {
				t.Fatalf("crash at %s: retry found the token: %v, want %v", step, res.TokenFound, committed)
			}
			id := res.SnapshotID
			final := reopen(t, tbl)
			if n := len(final.Metadata.Snapshots); n != 2 {
				t.Fatalf("crash at %s: %d snapshots after the retry, want 2", step, n)
			}
			if final.Metadata.CurrentSnapshot().SnapshotID != id {
				t.Fatalf("retry returned %d, current is %d", id, final.Metadata.CurrentSnapshot().SnapshotID)
			}
			want := pathsOf(append(slices.Clone(base), added...))
			if got := livePaths(t, final); !slices.Equal(got, want) {
				t.Fatalf("crash at %s: live files %v, want %v", step, got, want)
			}
		})
	}
}

// TestCrashChildProcess is the child side of TestCrashAtEachCommitStep: it
// writes the data files, then commits them and kills itself at the step
// it was given. It does nothing in a normal run.
func TestCrashChildProcess(t *testing.T) {
	job := os.Getenv(crashEnv)
	if job == "" {
		t.Skip("only run as a child process")
	}
	parts := strings.Split(job, "|")
	location, dataDir, step := parts[0], parts[1], parts[2]
	added := writeFiles(t, dataDir, iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 5)
	if step == "data" {
		crashtest.Kill()
	}
	tbl, err := Open(context.Background(), location, Options{})
	if err != nil {
		t.Fatal(err)
	}
	crashtest.KillAt(step)
	if _, err := tbl.Append(context.Background(), added, CommitOptions{Token: crashToken}); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("the commit passed step %s without stopping", step)
}
