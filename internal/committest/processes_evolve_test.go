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

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// evolveWorkerEnv hands a child process its job:
// "<table location>|<worker index>|<appends>|<directory for its data>".
const evolveWorkerEnv = "FLOE_COMMITTEST_EVOLVE_WORKER"

// Processes append and add columns to one table at once. Appends never
// conflict: each is rebuilt on whatever schema is current by then. Two
// schema changes from one version do: the loser commits nothing and adds
// its column again on the newer schema. In the end every row is there
// once and every column once, each with an id of its own.
func TestProcessesAppendAndEvolveConcurrently(t *testing.T) {
	procs, appends := 8, 8
	if testing.Short() {
		procs, appends = 4, 4
	}
	st := localStore(t)
	tbl := st.create(t, 2, nil, nil)
	loc := tbl.Metadata.Location
	dataDir := t.TempDir()
	jobs := make([]string, procs)
	for p := range procs {
		jobs[p] = fmt.Sprintf("%s=%s|%d|%d|%s", evolveWorkerEnv, loc, p, appends, filepath.Join(dataDir, strconv.Itoa(p)))
	}
	outputs := runWorkers(t, "TestEvolveWorkerProcess", jobs, st.env(t))
	if t.Failed() {
		return
	}
	conflicts := 0
	for _, out := range outputs {
		conflicts += strings.Count(string(out), "schema conflict, retrying")
	}
	md := st.open(t, loc).Metadata
	schema := md.CurrentSchema()
	ids := map[int]string{}
	for p := range procs {
		for a := range appends {
			if a%2 != 0 {
				continue
			}
			name := evolveColumn(p, a)
			f, ok := schema.FindFieldByName(name)
			if !ok {
				t.Fatalf("column %s missing from the final schema %s", name, schema)
			}
			if other, dup := ids[f.ID]; dup {
				t.Fatalf("columns %s and %s share id %d", name, other, f.ID)
			}
			ids[f.ID] = name
		}
	}
	if len(md.Snapshots) != procs*appends {
		t.Fatalf("%d snapshots, want %d", len(md.Snapshots), procs*appends)
	}
	var want []int64
	for p := range procs {
		for a := range appends {
			for r := range rowsPerAppend {
				want = append(want, workerID(p, a, r))
			}
		}
	}
	checkIDs(t, "after concurrent appends and schema changes", st.scanIDs(t, loc, nil), union(want))
	t.Logf("%d processes: %d appends, %d columns added, %d schema conflicts retried", procs, procs*appends, len(ids), conflicts)
}

func evolveColumn(worker, step int) string { return fmt.Sprintf("w%d_step%d", worker, step) }

// TestEvolveWorkerProcess is the child side of
// TestProcessesAppendAndEvolveConcurrently: it appends one file at a time
// under a token and, before every other append, adds a column of its own,
// retrying a schema change that lost to another from the same version.
func TestEvolveWorkerProcess(t *testing.T) {
	job := os.Getenv(evolveWorkerEnv)
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
	ctx := context.Background()
	tbl := st.open(t, parts[0])
	for a, f := range data.files {
		if a%2 == 0 {
			for attempt := 0; ; attempt++ {
				_, err := tbl.Apply(ctx, new(action.UpdateSchema).AddColumn(evolveColumn(worker, a), iceberg.LongType{}))
				if err == nil {
					break
				}
				if !errors.Is(err, table.ErrConflict) || attempt == 100 {
					t.Fatalf("add column at step %d: %v", a, err)
				}
				fmt.Println("schema conflict, retrying")
				if err := tbl.Refresh(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		token := fmt.Sprintf("worker-%d/append-%d", worker, a)
		if _, err := tbl.Append(ctx, []manifest.DataFile{f}, table.CommitOptions{Token: token}); err != nil {
			t.Fatalf("append %d: %v", a, err)
		}
	}
}
