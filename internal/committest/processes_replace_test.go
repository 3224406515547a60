package committest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/table"
)

// replaceWorkerEnv hands a child process its job: "<metadata file the
// worker plans on>|<worker index>|<directory for its data>".
const replaceWorkerEnv = "FLOE_COMMITTEST_REPLACE_WORKER"

// What a replace worker prints about its commit.
const (
	replacedMark = "REPLACED "
	conflictMark = "CONFLICT"
)

const replaceRows = 5

// Several processes, all planning on the same version, replace the same
// partition at once: exactly one commit succeeds, the others fail with
// ErrConflict, and the partition holds the winner's rows alone while the
// other partitions are untouched.
func TestProcessesReplaceOnePartition(t *testing.T) {
	testProcessesReplaceOnePartition(t, localStore(t), 4, nil)
}

func testProcessesReplaceOnePartition(t *testing.T, st store, procs int, props map[string]string) {
	ctx := context.Background()
	tbl := st.create(t, 2, &byInt, props)
	loc := tbl.Metadata.Location
	base := st.writeData(t, byInt, rowsIn(1, 0, 30, 1, 2, 3), 5)
	if _, err := tbl.Append(ctx, base.files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	jobs := make([]string, procs)
	for p := range procs {
		jobs[p] = fmt.Sprintf("%s=%s|%d|%s", replaceWorkerEnv, tbl.MetadataLocation, p, filepath.Join(dataDir, strconv.Itoa(p)))
	}
	outputs := runWorkers(t, "TestReplaceWorkerProcess", jobs, st.env(t))
	if t.Failed() {
		return
	}
	winner, conflicts := -1, 0
	for p, out := range outputs {
		switch {
		case strings.Contains(string(out), replacedMark):
			if winner >= 0 {
				t.Fatalf("workers %d and %d both replaced partition 2", winner, p)
			}
			winner = p
		case strings.Contains(string(out), conflictMark):
			conflicts++
		default:
			t.Fatalf("worker %d said neither: %s", p, out)
		}
	}
	if winner < 0 || conflicts != procs-1 {
		t.Fatalf("winner %d, %d conflicts of %d workers", winner, conflicts, procs)
	}
	var winnerIDs []int64
	for r := range replaceRows {
		winnerIDs = append(winnerIDs, replaceID(winner, r))
	}
	want := union(without(base.allIDs(), base.idsIn(2)), winnerIDs)
	checkIDs(t, "after the concurrent replaces", st.scanIDs(t, loc, nil), want)
	if n := len(st.open(t, loc).Metadata.Snapshots); n != 2 {
		t.Fatalf("%d snapshots, want the append and one replace", n)
	}
}

func replaceID(worker, row int) int64 { return 1_000_000 + int64(worker)*1000 + int64(row) }

// TestReplaceWorkerProcess is the child side of
// testProcessesReplaceOnePartition; it does nothing in a normal run.
func TestReplaceWorkerProcess(t *testing.T) {
	job := os.Getenv(replaceWorkerEnv)
	if job == "" {
		t.Skip("only run as a worker process")
	}
	parts := strings.Split(job, "|")
	if len(parts) != 3 {
		t.Fatalf("bad job %q", job)
	}
	worker, _ := strconv.Atoi(parts[1])
	// Data goes beside the table (the metadata file's grandparent).
	st := storeFromEnv(t, parentOf(parentOf(parts[0])))
	rows := rowsIn(uint64(worker), 0, replaceRows, 2)
	for r := range rows {
		rows[r][0] = replaceID(worker, r)
	}
	data := st.writeDataIn(t, parts[2], byInt, rows, replaceRows)
	// Opening the metadata file pins the version every worker plans on.
	tbl := st.open(t, parts[0])
	id, err := snapshotIDOf(tbl.ReplacePartitions(context.Background(), data.files, table.CommitOptions{}))
	switch {
	case err == nil:
		fmt.Printf("%s%d\n", replacedMark, id)
	case errors.Is(err, table.ErrConflict):
		fmt.Printf("%s: %v\n", conflictMark, err)
	default:
		t.Fatal(err)
	}
}

func parentOf(location string) string {
	return location[:strings.LastIndexByte(location, '/')]
}
