package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// The commit section (go run ./cmd/bench -commits) measures small commits
// to a fresh unpartitioned v2 table on the local disk, floe against
// iceberg-go v0.7.0 (its Hadoop file-system catalog), each on one thread:
//
//   - append: each commit writes a 100-row batch as a new Parquet file
//     (floe's writer; iceberg-go's AppendTable) and commits it;
//   - append_files: each commit adds one data file written beforehand
//     (floe's Append of its entry; iceberg-go's AddDataFiles of the same
//     file and metrics), so the commit alone is timed;
//
// both with manifest merging on and off. Then the history runs: 1,000
// commit-only appends to each peer's table, merging on and off, after
// which the section times planning a full scan from the metadata file and
// reports the current snapshot's manifests and the metadata file's size.
// iceberg-go's commits slow down with history faster than floe's, so its
// history runs stop at -commits-budget; floe then also plans at the count
// iceberg-go reached, so the two are compared at the same history. Every run is checked afterwards through the peer's own planning: the
// table must hold exactly the files and rows committed.
var (
	commitsOnly   = flag.Bool("commits", false, "run only the commit section: appends/s of small commits and planning after many, floe and iceberg-go")
	commitsN      = flag.Int("commits-n", 200, "commits per small-commit run")
	commitsPlanN  = flag.Int("commits-history", 1000, "commits before the planning measurement")
	commitsBudget = flag.Duration("commits-budget", 25*time.Second, "wall time an iceberg-go history run may take; one that exceeds it stops early and says so, and floe also plans at the count it reached")
	commitsDir    = flag.String("commits-dir", "", "scratch directory of the commit section's tables (default: a temporary directory, removed afterwards)")
	commitsJSON   = flag.String("commits-json", "results/latest-commits.json", "where to write the commit section's results; the printed report goes next to it as .txt (empty: nowhere)")
)

// defaultMinCountToMerge is commit.manifest.min-count-to-merge when unset,
// the spec's documented default, which the history runs leave in place.
const defaultMinCountToMerge = 100

// manifestSlack is how far past min-count-to-merge the merging target lets
// the manifest count go: the newest bin merges once it holds min-count
// manifests, and each new commit adds one.
const manifestSlack = 2

var commitPeers = []string{"floe", "iceberg-go"}

// commitCase is one run: a peer, a kind of commit, merging on or off, and
// how many commits.
type commitCase struct {
	peer    string
	mode    string // "append" or "append_files"
	merge   bool
	commits int
	budget  time.Duration // 0: none
	history bool          // plan afterwards
	// checkpoint, when not zero, is a commit count at which the run also
	// plans (outside its timing): the count the peer's run of the same
	// case reached within its budget, so both are compared at the same
	// history.
	checkpoint int
}

// runCommitSection measures, prints and saves the commit section; false
// when a floe run failed or left a table that does not hold what it
// committed (a peer's failure is reported, not fatal).
func runCommitSection(repeat int, logf func(string, ...any)) bool {
	runtime.GOMAXPROCS(1)
	dir := *commitsDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "floe-bench-commits-")
		if err != nil {
			logf("bench: %v", err)
			return false
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	res, err := measureCommits(dir, *commitsN, *commitsPlanN, *commitsBudget, repeat, logf)
	if err != nil {
		logf("bench: %v", err)
		return false
	}
	if !publish("commit", *commitsJSON, res, logf) {
		return false
	}
	return res.floeOK()
}

// measureCommits runs every case in a fresh table under dir.
func measureCommits(dir string, n, historyN int, budget time.Duration, repeat int, logf func(string, ...any)) (*commitResults, error) {
	ctx := context.Background()
	logf("writing %d data files of %d rows for the commit-only runs ...", max(n, historyN), commitRows)
	fx, err := newCommitFixture(ctx, filepath.Join(dir, "staged"), n, max(n, historyN))
	if err != nil {
		return nil, err
	}
	defer fx.release()

	var cases []commitCase
	for _, peer := range commitPeers {
		for _, mode := range []string{"append", "append_files"} {
			for _, merge := range []bool{true, false} {
				cases = append(cases, commitCase{peer: peer, mode: mode, merge: merge, commits: n})
			}
		}
	}
	res := &commitResults{
		Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), Threads: 1,
		Repeat: repeat, RowsPerCommit: commitRows, MinCountToMerge: defaultMinCountToMerge, Ratios: map[string]string{},
	}
	// The history runs: iceberg-go first, as it may stop short of historyN
	// within its budget; floe then also plans at the count it reached.
	// floe has no budget: its run is what the target is judged on.
	for _, merge := range []bool{true, false} {
		cases = append(cases, commitCase{peer: "iceberg-go", mode: "append_files", merge: merge, commits: historyN, budget: budget, history: true})
	}
	for _, merge := range []bool{true, false} {
		cases = append(cases, commitCase{peer: "floe", mode: "append_files", merge: merge, commits: historyN, history: true})
	}
	for i, c := range cases {
		if c.peer == "floe" && c.history {
			if peer := findCommitRun(res.History, "iceberg-go", c.mode, c.merge); peer != nil && peer.Commits > 0 && peer.Commits < c.commits {
				c.checkpoint = peer.Commits
			}
		}
		logf("%s: %d %s commits, merging %s ...", c.peer, c.commits, c.mode, onOff(c.merge))
		run := runCommitCase(ctx, filepath.Join(dir, fmt.Sprintf("t%02d-%s", i, c.peer)), c, fx, repeat)
		if c.history {
			res.History = append(res.History, run)
		} else {
			res.Small = append(res.Small, run)
		}
	}
	res.judge(historyN)
	return res, nil
}

// runCommitCase makes one table, times its commits and checks it.
func runCommitCase(ctx context.Context, dir string, c commitCase, fx *commitFixture, repeat int) commitRun {
	run := commitRun{Peer: c.peer, Mode: c.mode, Merge: c.merge, Wanted: c.commits}
	tbl, err := newCommitTable(ctx, c.peer, dir, c.merge, fx)
	if err != nil {
		run.Status = "error: create: " + err.Error()
		return run
	}
	defer tbl.close()
	commit := tbl.appendFile
	if c.mode == "append" {
		commit = tbl.appendBatch
	}
	var checkpoint func(done int) error
	if c.checkpoint > 0 {
		checkpoint = func(done int) error {
			if done != c.checkpoint {
				return nil
			}
			at, err := planPoint(ctx, tbl, done, repeat)
			run.At = at
			return err
		}
	}
	latencies, wall, cpu, err := timeCommits(ctx, c.commits, c.budget, commit, checkpoint)
	run.Commits = len(latencies)
	if err != nil {
		run.Status = "error: " + err.Error()
		return run
	}
	run.setTimes(latencies, wall, cpu)
	if run.At != nil {
		run.At.AppendsPerSecond = float64(run.At.Commits) / sumDurations(latencies[:run.At.Commits]).Seconds()
	}
	st, err := tbl.state(ctx)
	if err != nil {
		run.Status = "error: inspect: " + err.Error()
		return run
	}
	run.Files, run.Rows, run.Manifests, run.MetadataBytes = st.Files, st.Rows, st.Manifests, st.MetadataBytes
	switch {
	case st.Files != run.Commits || st.Rows != int64(run.Commits*commitRows):
		run.Status = fmt.Sprintf("WRONG: table holds %d files, %d rows after %d commits", st.Files, st.Rows, run.Commits)
		return run
	case run.Commits < c.commits:
		run.Status = fmt.Sprintf("partial: %d of %d commits within the %s budget", run.Commits, c.commits, c.budget)
	default:
		run.Status = "ok"
	}
	if c.history {
		wallMs, cpuMs, err := timePlan(tbl, st.Files, repeat)
		if err != nil {
			run.Status = "error: plan: " + err.Error()
		} else {
			run.PlanWallMs, run.PlanCPUMs = &wallMs, &cpuMs
		}
	}
	return run
}

// timePlan times the peer's planning, best of repeat, and checks it found
// every file.
func timePlan(tbl commitTable, files, repeat int) (wallMs, cpuMs float64, err error) {
	best, err := measure(repeat, tbl.plan())
	if err != nil {
		return 0, 0, err
	}
	if best.Result.Rows != int64(files) {
		return 0, 0, fmt.Errorf("WRONG: planning found %d files, want %d", best.Result.Rows, files)
	}
	return ms(best.Wall), ms(best.CPU), nil
}

// planPoint inspects and plans the table part way through a history run.
func planPoint(ctx context.Context, tbl commitTable, done, repeat int) (*commitCheckpoint, error) {
	st, err := tbl.state(ctx)
	if err != nil {
		return nil, err
	}
	if st.Files != done {
		return nil, fmt.Errorf("WRONG: table holds %d files after %d commits", st.Files, done)
	}
	wallMs, cpuMs, err := timePlan(tbl, st.Files, repeat)
	if err != nil {
		return nil, err
	}
	return &commitCheckpoint{Commits: done, Manifests: st.Manifests, MetadataBytes: st.MetadataBytes, PlanWallMs: wallMs, PlanCPUMs: cpuMs}, nil
}

// timeCommits makes up to n commits, stopping early once budget (when not
// zero) has passed, and returns each commit's latency and the wall and
// process CPU time of them all. checkpoint, when not nil, runs after each
// commit with the count so far, its time left out.
func timeCommits(ctx context.Context, n int, budget time.Duration, commit func(context.Context, int) error, checkpoint func(int) error) ([]time.Duration, time.Duration, time.Duration, error) {
	runtime.GC()
	latencies := make([]time.Duration, 0, n)
	var paused, pausedCPU time.Duration
	user0, sys0 := processCPU()
	start := time.Now()
	for i := range n {
		t0 := time.Now()
		if err := commit(ctx, i); err != nil {
			return latencies, 0, 0, fmt.Errorf("commit %d: %w", i+1, err)
		}
		latencies = append(latencies, time.Since(t0))
		if checkpoint != nil {
			p0, cpu0 := time.Now(), processCPUTotal()
			err := checkpoint(i + 1)
			paused, pausedCPU = paused+time.Since(p0), pausedCPU+processCPUTotal()-cpu0
			if err != nil {
				return latencies, 0, 0, fmt.Errorf("after commit %d: %w", i+1, err)
			}
		}
		if budget > 0 && time.Since(start)-paused > budget {
			break
		}
	}
	wall := time.Since(start) - paused
	user1, sys1 := processCPU()
	return latencies, wall, user1 - user0 + sys1 - sys0 - pausedCPU, nil
}

func processCPUTotal() time.Duration {
	user, sys := processCPU()
	return user + sys
}

func (r *commitRun) setTimes(latencies []time.Duration, wall, cpu time.Duration) {
	n := len(latencies)
	if n == 0 {
		return
	}
	r.WallSeconds, r.CPUSeconds = wall.Seconds(), cpu.Seconds()
	r.AppendsPerSecond = float64(n) / wall.Seconds()
	r.CPUMsPerCommit = ms(cpu) / float64(n)
	// The mean of the first and last tenth shows how commits slow down as
	// the table's history grows.
	tenth := max(n/10, 1)
	r.FirstTenthMs, r.LastTenthMs = meanMs(latencies[:tenth]), meanMs(latencies[n-tenth:])
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	r.P50Ms, r.P95Ms, r.MaxMs = ms(sorted[n/2]), ms(sorted[min(n*95/100, n-1)]), ms(sorted[n-1])
}

func meanMs(d []time.Duration) float64 { return ms(sumDurations(d)) / float64(len(d)) }

func sumDurations(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
