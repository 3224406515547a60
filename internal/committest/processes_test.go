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
	"time"

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
	testProcessesAppend(t, localStore(t), procs, appends, nil)
}

// testProcessesAppend runs the append workers against a new table of st
// created with props.
func testProcessesAppend(t *testing.T, st store, procs, appends int, props map[string]string) {
	tbl := st.create(t, 2, nil, props)
	loc := tbl.Metadata.Location
	dataDir := t.TempDir()
	jobs := make([]string, procs)
	for p := range procs {
		jobs[p] = fmt.Sprintf("%s=%s|%d|%d|%s", workerEnv, loc, p, appends, filepath.Join(dataDir, strconv.Itoa(p)))
	}
	start := time.Now()
	runWorkers(t, "TestAppendWorkerProcess", jobs, st.env(t))
	if t.Failed() {
		return
	}
	t.Logf("%d processes made %d appends in %v", procs, procs*appends, time.Since(start).Round(time.Millisecond))
	fresh := st.open(t, loc)
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
	checkIDs(t, "after concurrent appends", st.scanIDs(t, loc, nil), union(want))
}

// runWorkers runs this test binary's worker test once per job (an
// environment entry), all at once, with env added, and returns their
// outputs; a worker that fails fails the test.
func runWorkers(t *testing.T, worker string, jobs []string, env []string) [][]byte {
	t.Helper()
	var wg sync.WaitGroup
	outputs := make([][]byte, len(jobs))
	errs := make([]error, len(jobs))
	for p, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^"+worker+"$", "-test.count=1")
			cmd.Env = append(append(os.Environ(), env...), job)
			outputs[p], errs[p] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for p := range jobs {
		if errs[p] != nil {
			t.Errorf("worker %d: %v\n%s", p, errs[p], outputs[p])
		}
	}
	return outputs
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
	st := storeFromEnv(t, parts[0])
	data := st.writeDataIn(t, parts[3], iceberg.PartitionSpec{}, rows, rowsPerAppend)
	if len(data.files) != appends {
		t.Fatalf("%d files for %d appends", len(data.files), appends)
	}
	ctx := context.Background()
	tbl := st.open(t, parts[0])
	for a, f := range data.files {
		token := fmt.Sprintf("worker-%d/append-%d", worker, a)
		if _, err := tbl.Append(ctx, []manifest.DataFile{f}, table.CommitOptions{Token: token}); err != nil {
			t.Fatalf("append %d: %v", a, err)
		}
	}
}
