package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// commitRun is one run of the commit section.
type commitRun struct {
	Peer  string `json:"peer"`
	Mode  string `json:"mode"` // "append" (write + commit) or "append_files" (commit only)
	Merge bool   `json:"manifest_merge"`
	// Wanted is the commits asked for; Commits those made (fewer when a
	// history run ran out of its budget, or a commit failed).
	Wanted  int `json:"commits_wanted"`
	Commits int `json:"commits"`
	// Status is "ok", "partial: ...", "WRONG: ..." (the table does not
	// hold what was committed) or "error: ...".
	Status           string  `json:"status"`
	WallSeconds      float64 `json:"wall_s,omitempty"`
	CPUSeconds       float64 `json:"cpu_s,omitempty"`
	AppendsPerSecond float64 `json:"appends_per_s,omitempty"`
	CPUMsPerCommit   float64 `json:"cpu_ms_per_commit,omitempty"`
	P50Ms            float64 `json:"p50_ms,omitempty"`
	P95Ms            float64 `json:"p95_ms,omitempty"`
	MaxMs            float64 `json:"max_ms,omitempty"`
	FirstTenthMs     float64 `json:"first_tenth_mean_ms,omitempty"`
	LastTenthMs      float64 `json:"last_tenth_mean_ms,omitempty"`
	// The table afterwards, as the peer's own planning sees it.
	Files         int   `json:"files"`
	Rows          int64 `json:"rows"`
	Manifests     int   `json:"manifests"`
	MetadataBytes int64 `json:"metadata_json_bytes"`
	// History runs only: planning a full scan from the metadata file, best
	// of Repeat.
	PlanWallMs *float64 `json:"plan_wall_ms,omitempty"`
	PlanCPUMs  *float64 `json:"plan_cpu_ms,omitempty"`
	// At is floe's history run seen at the count of commits iceberg-go's
	// reached within its budget, when that was fewer.
	At *commitCheckpoint `json:"at_peer_commits,omitempty"`
}

// commitCheckpoint is a history run part way: its appends/s so far (from
// the commits' latencies) and planning then.
type commitCheckpoint struct {
	Commits          int     `json:"commits"`
	AppendsPerSecond float64 `json:"appends_per_s"`
	Manifests        int     `json:"manifests"`
	MetadataBytes    int64   `json:"metadata_json_bytes"`
	PlanWallMs       float64 `json:"plan_wall_ms"`
	PlanCPUMs        float64 `json:"plan_cpu_ms"`
}

type commitResults struct {
	Time            string            `json:"time"`
	GoVersion       string            `json:"go_version"`
	CPUs            int               `json:"cpus"`
	Threads         int               `json:"threads"`
	Repeat          int               `json:"repeat"`
	RowsPerCommit   int               `json:"rows_per_commit"`
	MinCountToMerge int               `json:"min_count_to_merge"`
	Small           []commitRun       `json:"small_commits"`
	History         []commitRun       `json:"history"`
	Ratios          map[string]string `json:"ratios"`
	Targets         []string          `json:"targets"`
}

func findCommitRun(runs []commitRun, peer, mode string, merge bool) *commitRun {
	for i := range runs {
		if r := &runs[i]; r.Peer == peer && r.Mode == mode && r.Merge == merge {
			return r
		}
	}
	return nil
}

// timed reports whether a run's times measure what was asked: all its
// commits made and the table right.
func (r *commitRun) timed() bool { return r != nil && r.Status == "ok" }

// judge works out the ratios and checks the target.
func (r *commitResults) judge(historyN int) {
	for _, mode := range []string{"append", "append_files"} {
		for _, merge := range []bool{true, false} {
			f, g := findCommitRun(r.Small, "floe", mode, merge), findCommitRun(r.Small, "iceberg-go", mode, merge)
			key := fmt.Sprintf("%s merge %s: ", mode, onOff(merge))
			r.Ratios[key+"appends/s"] = ratioText(f, g, func(x *commitRun) float64 { return x.AppendsPerSecond })
			// The median latency shrugs off the stalls a shared disk
			// gives a few fsyncs; CPU time shrugs off waiting altogether.
			r.Ratios[key+"p50 latency"] = ratioText(f, g, func(x *commitRun) float64 { return x.P50Ms })
			r.Ratios[key+"CPU/commit"] = ratioText(f, g, func(x *commitRun) float64 { return x.CPUMsPerCommit })
		}
	}
	for _, merge := range []bool{true, false} {
		f, g := findCommitRun(r.History, "floe", "append_files", merge), findCommitRun(r.History, "iceberg-go", "append_files", merge)
		r.historyRatios(f, g, historyN, merge)
	}
	bound := r.MinCountToMerge + manifestSlack
	target := fmt.Sprintf("floe, merging on: manifests in the current snapshot after %d commits ≤ min-count-to-merge (%d) + %d = %d",
		historyN, r.MinCountToMerge, manifestSlack, bound)
	if f := findCommitRun(r.History, "floe", "append_files", true); f.timed() && f.Commits == historyN {
		r.Targets = append(r.Targets, fmt.Sprintf("%s: %d — %s", target, f.Manifests, verdict(f.Manifests <= bound)))
	} else {
		r.Targets = append(r.Targets, target+": no valid measurement — NOT met")
	}
}

// historyRatios compares the history runs at the same count of commits
// (planning by CPU time, which a loaded machine disturbs less than wall):
// the full count when both made it, else the count iceberg-go reached
// within its budget, with floe's checkpoint there.
func (r *commitResults) historyRatios(f, g *commitRun, historyN int, merge bool) {
	switch {
	case f.timed() && g != nil && strings.HasPrefix(g.Status, "partial") && f.At != nil && f.At.Commits == g.Commits && g.PlanCPUMs != nil:
		key := fmt.Sprintf("history merge %s, first %d commits (iceberg-go's within its budget): ", onOff(merge), g.Commits)
		r.Ratios[key+"appends/s"] = fmt.Sprintf("%.2f×", f.At.AppendsPerSecond/g.AppendsPerSecond)
		r.Ratios[key+"plan CPU"] = fmt.Sprintf("%.2f×", f.At.PlanCPUMs / *g.PlanCPUMs)
	case f.timed() && g.timed() && f.PlanCPUMs != nil && g.PlanCPUMs != nil:
		key := fmt.Sprintf("history merge %s, %d commits: ", onOff(merge), historyN)
		r.Ratios[key+"appends/s"] = fmt.Sprintf("%.2f×", f.AppendsPerSecond/g.AppendsPerSecond)
		r.Ratios[key+"plan CPU"] = fmt.Sprintf("%.2f×", *f.PlanCPUMs / *g.PlanCPUMs)
	default:
		r.Ratios[fmt.Sprintf("history merge %s", onOff(merge))] = "n/a (" + why(f, g) + ")"
	}
}

func ratioText(f, g *commitRun, value func(*commitRun) float64) string {
	if !f.timed() || !g.timed() {
		return "n/a (" + why(f, g) + ")"
	}
	return fmt.Sprintf("%.2f×", value(f)/value(g))
}

func why(f, g *commitRun) string {
	for _, x := range []*commitRun{f, g} {
		switch {
		case x == nil:
			return "not run"
		case x.Status != "ok":
			return x.Peer + " " + shortStatus(x.Status)
		}
	}
	return "no planning time"
}

// floeOK is false when a floe run failed or left a wrong table.
func (r *commitResults) floeOK() bool {
	for _, runs := range [][]commitRun{r.Small, r.History} {
		for _, run := range runs {
			if run.Peer == "floe" && run.Status != "ok" {
				return false
			}
		}
	}
	return true
}

func (r *commitResults) print(w io.Writer) {
	fmt.Fprintf(w, "\ncommits: fresh unpartitioned v2 tables on the local disk, %d rows per commit; 1 thread (GOMAXPROCS=1), %d CPUs; %s\n",
		r.RowsPerCommit, r.CPUs, r.GoVersion)
	fmt.Fprintln(w, "  append: write a Parquet file and commit it; append_files: commit one file written beforehand (commit cost alone)")
	fmt.Fprintln(w, "  floe: table.Create + Append (fsyncs its files); iceberg-go v0.7.0: Hadoop catalog, AppendTable / AddDataFiles per transaction")
	header := fmt.Sprintf("%-10s %-12s %-5s %7s %9s %8s %7s %7s %7s %9s %9s %6s %9s", "peer", "mode", "merge", "commits",
		"appends/s", "CPU ms", "p50 ms", "p95 ms", "max ms", "first10%", "last10%", "mfst", "md.json")
	row := func(run commitRun, extra string) {
		if run.Status != "ok" && !strings.HasPrefix(run.Status, "partial") {
			fmt.Fprintf(w, "%-10s %-12s %-5s %7d  %s\n", run.Peer, run.Mode, onOff(run.Merge), run.Commits, shortStatus(run.Status))
			return
		}
		fmt.Fprintf(w, "%-10s %-12s %-5s %7d %9.1f %8.2f %7.2f %7.2f %7.1f %9.2f %9.2f %6d %9s%s", run.Peer, run.Mode, onOff(run.Merge), run.Commits,
			run.AppendsPerSecond, run.CPUMsPerCommit, run.P50Ms, run.P95Ms, run.MaxMs, run.FirstTenthMs, run.LastTenthMs, run.Manifests,
			bytesText(uint64(run.MetadataBytes)), extra)
		if run.Status != "ok" {
			fmt.Fprintf(w, "  %s", run.Status)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nsmall commits (CPU ms: process CPU per commit; first10%%/last10%%: mean latency ms of the first and last tenth)\n%s\n", header)
	for _, run := range r.Small {
		row(run, "")
	}
	fmt.Fprintf(w, "\nhistory: commit-only appends, then planning a full scan from the metadata file (open + plan, best of %d)\n%s %9s %8s\n",
		r.Repeat, header, "plan ms", "plan CPU")
	for _, run := range r.History {
		extra := ""
		if run.PlanWallMs != nil {
			extra = fmt.Sprintf(" %9.2f %8.2f", *run.PlanWallMs, *run.PlanCPUMs)
		}
		row(run, extra)
		if a := run.At; a != nil {
			fmt.Fprintf(w, "  %s, merging %s, at %d commits: %.1f appends/s so far, %d manifests, md.json %s, plan %.2f ms (CPU %.2f)\n",
				run.Peer, onOff(run.Merge), a.Commits, a.AppendsPerSecond, a.Manifests, bytesText(uint64(a.MetadataBytes)), a.PlanWallMs, a.PlanCPUMs)
		}
	}
	fmt.Fprintln(w, "\nmfst: manifests in the current snapshot; md.json: size of the current metadata file")
	fmt.Fprintln(w, "ratios floe÷iceberg-go (appends/s above 1: floe faster; latency and CPU below 1: floe faster):")
	for _, k := range slices.Sorted(maps.Keys(r.Ratios)) {
		fmt.Fprintf(w, "  %-75s %s\n", k, r.Ratios[k])
	}
	fmt.Fprintln(w, "\ncommit targets:")
	for _, t := range r.Targets {
		fmt.Fprintln(w, "  "+t)
	}
}
