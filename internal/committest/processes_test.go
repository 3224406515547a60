package committest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// workerEnv hands a child process of this test binary its job:
// "<table location>|<worker index>|<appends>|<directory for its data>".
const workerEnv = "FLOE_COMMITTEST_APPEND_WORKER"

const rowsPerAppend = 3

// Several processes append to one table at once, one data file per
// commit: every commit becomes exactly one snapshot and every row is read
// back exactly once.
func TestProcessesAppendConcurrently(t *testing.T) {
	procs, appends := 8, 25
	if testing.Short() {
		procs, appends = 4, 6
	}
	tbl := create(t, 2, nil, nil)
	loc := tbl.Metadata.Location
	dataDir := t.TempDir()
	var wg sync.WaitGroup
	outputs := make([][]byte, procs)
	errs := make([]error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestAppendWorkerProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d|%d|%s", workerEnv, loc, p, appends, filepath.Join(dataDir, strconv.Itoa(p))))
			outputs[p], errs[p] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for p := range procs {
		if errs[p] != nil {
			t.Errorf("worker %d: %v\n%s", p, errs[p], outputs[p])
		}
	}
	if t.Failed() {
		return
	}
	fresh, err := table.Open(context.Background(), loc, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := fresh.Metadata
	if len(md.Snapshots) != procs*appends {
		t.Fatalf("%d snapshots, want %d", len(md.Snapshots), procs*appends)
	}
	if n := len(md.Ancestors(md.CurrentSnapshot())); n != procs*appends {
		t.Fatalf("the current snapshot has %d ancestors, want %d", n, procs*appends)
	}
	tokens := map[string]bool{}
	for _, s := range md.Snapshots {
		tok := s.Summary[table.SummaryToken]
		if tok == "" || tokens[tok] {
			t.Fatalf("snapshot %d has token %q (seen before: %v)", s.SnapshotID, tok, tokens[tok])
		}
		tokens[tok] = true
	}
	var want []int64
	for p := range procs {
		for a := range appends {
			for r := range rowsPerAppend {
				want = append(want, workerID(p, a, r))
			}
		}
	}
	checkIDs(t, "after concurrent appends", scanIDs(t, loc, nil), union(want))
}

func workerID(worker, append, row int) int64 {
	return int64(worker)*1_000_000 + int64(append)*1000 + int64(row)
}

// TestAppendWorkerProcess is the child side of
// TestProcessesAppendConcurrently; it does nothing in a normal run.
func TestAppendWorkerProcess(t *testing.T) {
	job := os.Getenv(workerEnv)
	if job == "" {
		t.Skip("only run as a worker process")
	}
	parts := strings.Split(job, "|")
	if len(parts) != 4 {
		t.Fatalf("bad job %q", job)
	}
	worker, _ := strconv.Atoi(parts[1])
	appends, _ := strconv.Atoi(parts[2])
	var rows [][]any
	for a := range appends {
		for r, row := range rowsIn(uint64(worker*100+a), 0, rowsPerAppend) {
			row[0] = workerID(worker, a, r)
			rows = append(rows, row)
		}
	}
	data := writeDataIn(t, parts[3], iceberg.PartitionSpec{}, rows, rowsPerAppend)
	if len(data.files) != appends {
		t.Fatalf("%d files for %d appends", len(data.files), appends)
	}
	ctx := context.Background()
	tbl, err := table.Open(ctx, parts[0], table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for a, f := range data.files {
		token := fmt.Sprintf("worker-%d/append-%d", worker, a)
		if _, err := tbl.Append(ctx, []manifest.DataFile{f}, table.CommitOptions{Token: token}); err != nil {
			t.Fatalf("append %d: %v", a, err)
		}
	}
}
