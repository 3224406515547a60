package main

import (
	"strings"
	"testing"
	"time"
)

// TestCommitSection runs the commit section small: every floe table must
// hold exactly what was committed; without merging a fast append adds one
// manifest per commit, with merging past min-count-to-merge commits there
// must be fewer; an iceberg-go history run cut short by its budget must
// leave floe's run a checkpoint at the same count, and the ratios be
// taken there.
func TestCommitSection(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a few hundred commits")
	}
	const small, history = 5, defaultMinCountToMerge + 20
	res, err := measureCommits(t.TempDir(), small, history, time.Nanosecond, 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Small) != 8 || len(res.History) != 4 {
		t.Fatalf("%d small runs and %d history runs, want 8 and 4", len(res.Small), len(res.History))
	}
	for _, run := range append(res.Small, res.History...) {
		if run.Peer != "floe" {
			continue
		}
		if run.Status != "ok" || run.Commits != run.Wanted || run.Files != run.Commits || run.Rows != int64(run.Commits*commitRows) {
			t.Errorf("floe %s merge %v: %s, %d of %d commits, %d files, %d rows", run.Mode, run.Merge, run.Status, run.Commits, run.Wanted, run.Files, run.Rows)
		}
		if run.AppendsPerSecond <= 0 || run.P50Ms <= 0 || run.MetadataBytes <= 0 {
			t.Errorf("floe %s merge %v: not timed or not inspected: %+v", run.Mode, run.Merge, run)
		}
	}
	on, off := findCommitRun(res.History, "floe", "append_files", true), findCommitRun(res.History, "floe", "append_files", false)
	if off.Manifests != history {
		t.Errorf("merging off: %d manifests after %d appends, want one per append", off.Manifests, history)
	}
	if on.Manifests >= history || on.Manifests > defaultMinCountToMerge+manifestSlack {
		t.Errorf("merging on: %d manifests after %d appends, want them merged", on.Manifests, history)
	}
	if on.PlanWallMs == nil || off.PlanWallMs == nil {
		t.Errorf("history runs not planned: %v %v", on.PlanWallMs, off.PlanWallMs)
	}
	for _, merge := range []bool{true, false} {
		g, f := findCommitRun(res.History, "iceberg-go", "append_files", merge), findCommitRun(res.History, "floe", "append_files", merge)
		if !strings.HasPrefix(g.Status, "partial") || g.Commits != 1 {
			t.Errorf("iceberg-go merge %v under a 1ns budget: %s after %d commits", merge, g.Status, g.Commits)
			continue
		}
		if f.At == nil || f.At.Commits != g.Commits || f.At.PlanWallMs <= 0 {
			t.Errorf("floe merge %v: checkpoint %+v, want one at %d commits", merge, f.At, g.Commits)
		}
		key := "history merge " + onOff(merge) + ", first 1 commits (iceberg-go's within its budget): plan CPU"
		if v, ok := res.Ratios[key]; !ok || !strings.HasSuffix(v, "×") {
			t.Errorf("ratio %q = %q; ratios %v", key, v, res.Ratios)
		}
	}
	if len(res.Targets) != 1 || !strings.HasSuffix(res.Targets[0], "— met") {
		t.Errorf("targets %q, want the manifest bound met", res.Targets)
	}
}

// TestCommitTargetVerdict checks the target is judged on the measured
// count: a count past the bound fails it, and so does a run that did not
// reach the history or failed.
func TestCommitTargetVerdict(t *testing.T) {
	bound := defaultMinCountToMerge + manifestSlack
	for _, tc := range []struct {
		run  commitRun
		want string
	}{
		{commitRun{Status: "ok", Commits: 1000, Manifests: bound}, "— met"},
		{commitRun{Status: "ok", Commits: 1000, Manifests: bound + 1}, "— NOT met"},
		{commitRun{Status: "ok", Commits: 999, Manifests: 10}, "no valid measurement — NOT met"},
		{commitRun{Status: "error: boom", Commits: 1000, Manifests: 10}, "no valid measurement — NOT met"},
	} {
		run := tc.run
		run.Peer, run.Mode, run.Merge = "floe", "append_files", true
		res := &commitResults{MinCountToMerge: defaultMinCountToMerge, Ratios: map[string]string{}, History: []commitRun{run}}
		res.judge(1000)
		if len(res.Targets) != 1 || !strings.HasSuffix(res.Targets[0], tc.want) {
			t.Errorf("%+v: targets %q, want one ending %q", tc.run, res.Targets, tc.want)
		}
	}
}
