package committest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// Random sequences of appends, partition overwrites and file removals:
// for every pair of snapshots (from before to), the incremental append
// scan returns exactly the ids the appends after from up to to wrote,
// tracked here as they were committed, not read back.
func TestIncrementalAppendScanRandomSequences(t *testing.T) {
	st := localStore(t)
	for seed := uint64(1); seed <= 3; seed++ {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(seed, 29))
		tbl := st.create(t, 2, &byInt, map[string]string{table.PropManifestMinCountToMerge: "3"})
		loc := tbl.Metadata.Location
		var snaps []int64
		appended := map[int64][]int64{} // snapshot → ids its append wrote
		var live []string               // data files that can be removed
		next := int64(0)
		for step := 0; step < 10; step++ {
			n := 1 + rng.IntN(12)
			w := st.writeData(t, byInt, rowsIn(seed*100+uint64(step), next, n, int32(1+rng.IntN(3))), 5)
			next += int64(n)
			var r table.CommitResult
			var err error
			switch op := rng.IntN(4); {
			case op <= 1 || len(live) == 0:
				r, err = tbl.Append(ctx, w.files, table.CommitOptions{})
				if err == nil {
					appended[r.SnapshotID] = w.allIDs()
				}
			case op == 2:
				r, err = tbl.ReplacePartitions(ctx, w.files, table.CommitOptions{})
			default:
				k := rng.IntN(len(live))
				r, err = tbl.Commit(ctx, nil, []string{live[k]}, table.CommitOptions{})
				live = append(live[:k], live[k+1:]...)
			}
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			snaps = append(snaps, r.SnapshotID)
			// Files a replace dropped are no longer removable; what is
			// left is read from the table.
			live = live[:0]
			plan, err := st.open(t, loc).PlanFiles(ctx, table.SnapshotSelector{})
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range plan.Tasks {
				live = append(live, task.File.FilePath)
			}
		}
		for i := -1; i < len(snaps); i++ {
			for j := i + 1; j < len(snaps); j++ {
				var want []int64
				for _, s := range snaps[i+1 : j+1] {
					want = append(want, appended[s]...)
				}
				opts := scan.Options{ToSnapshotID: &snaps[j]}
				if i >= 0 {
					opts.FromSnapshotID = &snaps[i]
				}
				got := incrementalIDs(t, loc, opts, 0)
				checkIDs(t, fmt.Sprintf("seed %d, snapshots %d to %d", seed, i, j), got, union(want))
			}
		}
	}
}
