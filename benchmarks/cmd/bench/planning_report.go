package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// planningRun is one operation on one scan at one thread count: the best
// wall and CPU time of its repeats and the largest peak RSS among them.
type planningRun struct {
	Op       string `json:"op"`
	Scan     string `json:"scan"` // "full" or "filtered"
	Threads  int    `json:"threads"`
	TableKey string `json:"table"` // "full" or "tenth" (the scaling check)
	// Status is "ok", "WRONG: ..." (planned other files than the layout
	// says) or "error: ...".
	Status    string  `json:"status"`
	Files     int64   `json:"files"`
	Tasks     int64   `json:"tasks"`
	Records   int64   `json:"records"`
	WallMs    float64 `json:"wall_ms"`
	CPUMs     float64 `json:"cpu_ms"`
	PeakRSSMB float64 `json:"peak_rss_mib"`
}

type planningResults struct {
	Time      string         `json:"time"`
	GoVersion string         `json:"go_version"`
	CPUs      int            `json:"cpus"`
	Repeat    int            `json:"repeat"`
	Table     *planningTable `json:"table"`
	// Tenth is the same layout with a tenth of the manifests: floe's
	// streaming planning must need no more memory on the full table.
	Tenth  *planningTable    `json:"tenth_table"`
	Filter string            `json:"filter"`
	Want   map[string]int64  `json:"expected_files"`
	Runs   []planningRun     `json:"runs"`
	Ratios map[string]string `json:"ratios"`
	// Targets are the goals and whether this run met them.
	Targets []string `json:"targets"`
}

// planningThreads are the thread counts measured: the APIs take a
// concurrency, and the machine the results are kept for has two cores.
var planningThreads = []int{1, 2}

// planningOps are what is measured on each table and scan.
var planningOps = []string{opFloeScan, opFloeTable, opFloeStream, opIcebergPlan}

// measurePlanning generates (or reuses) the table and its tenth, runs
// every measurement repeat times in child processes, and judges them.
func measurePlanning(ctx context.Context, dir string, p planningParams, repeat int, logf func(string, ...any)) (*planningResults, error) {
	tbl, err := generatePlanning(dir, p, logf)
	if err != nil {
		return nil, err
	}
	tp := p
	tp.Manifests = max(p.Manifests/10, 1)
	tenth, err := generatePlanning(dir, tp, logf)
	if err != nil {
		return nil, err
	}
	filter := filterFor(p)
	wantFiles, wantRecords := expectedFiltered(p, filter)
	res := &planningResults{
		Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), Repeat: repeat,
		Table: tbl, Tenth: tenth, Filter: filter.text(), Ratios: map[string]string{},
		Want: map[string]int64{"full": int64(tbl.Files), "filtered": int64(wantFiles)},
	}
	type want struct {
		files   int64 // -1: not reported
		records int64
	}
	type measurement struct {
		job  planningJob
		run  planningRun
		want want
	}
	var ms []*measurement
	add := func(t *planningTable, key, op string, filtered bool, threads int, w want) {
		scanName := "full"
		if filtered {
			scanName = "filtered"
		}
		ms = append(ms, &measurement{
			job:  planningJob{Op: op, MetadataPath: t.MetadataPath, Filtered: filtered, Threads: threads, Filter: filter},
			run:  planningRun{Op: op, Scan: scanName, Threads: threads, TableKey: key, Status: "ok"},
			want: w,
		})
	}
	for _, threads := range planningThreads {
		for _, op := range planningOps {
			add(tbl, "full", op, false, threads, want{int64(tbl.Files), tbl.Records})
			add(tbl, "full", op, true, threads, want{int64(wantFiles), wantRecords})
		}
		add(tbl, "full", opFloeCount, false, threads, want{-1, tbl.Records})
	}
	add(tbl, "full", opFloor, false, 1, want{})
	// The metadata tables (planning_inspect.go), full, at one thread.
	for _, pair := range inspectPairs {
		for _, op := range []string{pair.floe, pair.iceberg} {
			add(tbl, "full", op, false, 1, want{inspectRows(op, p), 0})
		}
	}
	// The scaling check: floe's streaming paths on a tenth of the table.
	for _, op := range []string{opFloeStream, opFloeCount} {
		w := want{int64(tenth.Files), tenth.Records}
		if op == opFloeCount {
			w.files = -1
		}
		add(tenth, "tenth", op, false, 1, w)
	}
	// Round robin, so a slow spell of the machine falls on every
	// measurement rather than on one side of a ratio.
	for round := range repeat {
		for _, m := range ms {
			if m.run.Status != "ok" {
				continue
			}
			if round == 0 {
				logf("planning: %s, %s scan, %d thread(s), %s table ...", m.run.Op, m.run.Scan, m.run.Threads, m.run.TableKey)
			}
			reply, rssKiB, err := runPlanningChild(ctx, m.job)
			if err != nil {
				m.run.Status = "error: " + err.Error()
				continue
			}
			// A count tells no files (want.files -1): its records are checked.
			if (m.want.files >= 0 && reply.Files != m.want.files) || reply.Records != m.want.records {
				m.run.Status = fmt.Sprintf("WRONG: %d files of %d records, want %d of %d", reply.Files, reply.Records, m.want.files, m.want.records)
			}
			r := &m.run
			r.Files, r.Tasks, r.Records = reply.Files, reply.Tasks, reply.Records
			if round == 0 || reply.WallMs < r.WallMs {
				r.WallMs = reply.WallMs
			}
			if round == 0 || reply.CPUMs < r.CPUMs {
				r.CPUMs = reply.CPUMs
			}
			r.PeakRSSMB = max(r.PeakRSSMB, float64(rssKiB)/1024)
		}
	}
	for _, m := range ms {
		res.Runs = append(res.Runs, m.run)
	}
	res.judge()
	return res, nil
}

func (r *planningResults) find(op, scanName string, threads int, key string) *planningRun {
	for i := range r.Runs {
		if x := &r.Runs[i]; x.Op == op && x.Scan == scanName && x.Threads == threads && x.TableKey == key {
			return x
		}
	}
	return nil
}

// speedTarget and rssSlack are the goals: floe's scan planning at
// least 3× faster than iceberg-go's, and floe's streaming planning of the
// full table needing no more than that of its tenth (with slack for
// the runtime's own variation).
const (
	speedTarget = 3.0
	rssSlackMB  = 32
)

// judge fills the ratios and targets from the runs.
func (r *planningResults) judge() {
	fast := true
	for _, threads := range planningThreads {
		for _, s := range []string{"full", "filtered"} {
			f, g := r.find(opFloeScan, s, threads, "full"), r.find(opIcebergPlan, s, threads, "full")
			if f == nil || g == nil || f.Status != "ok" || g.Status != "ok" || f.WallMs <= 0 {
				fast = false
				continue
			}
			key := fmt.Sprintf("%s scan, %d thread(s), floe scan.New ÷ iceberg-go", s, threads)
			r.Ratios[key+": wall"] = fmt.Sprintf("%.3f× (%.1f× faster)", f.WallMs/g.WallMs, g.WallMs/f.WallMs)
			r.Ratios[key+": CPU"] = fmt.Sprintf("%.3f×", f.CPUMs/g.CPUMs)
			r.Ratios[key+": peak RSS"] = fmt.Sprintf("%.3f×", f.PeakRSSMB/g.PeakRSSMB)
			if g.WallMs/f.WallMs < speedTarget {
				fast = false
			}
		}
	}
	r.Targets = append(r.Targets, fmt.Sprintf("scan.New planning ≥ %.0f× faster than iceberg-go's PlanFiles (every scan, every thread count) — %s", speedTarget, metText(fast)))
	for _, op := range []string{opFloeStream, opFloeCount} {
		full, tenth := r.find(op, "full", 1, "full"), r.find(op, "full", 1, "tenth")
		ok := full != nil && tenth != nil && full.Status == "ok" && tenth.Status == "ok" && full.PeakRSSMB <= tenth.PeakRSSMB+rssSlackMB
		detail := "no valid measurement"
		if full != nil && tenth != nil {
			detail = fmt.Sprintf("%.0f MiB for %d files, %.0f MiB for %d", full.PeakRSSMB, r.Table.Files, tenth.PeakRSSMB, r.Tenth.Files)
		}
		r.Targets = append(r.Targets, fmt.Sprintf("%s peak RSS bounded by the manifests in flight, not the table (%s; ≤ +%d MiB) — %s", op, detail, rssSlackMB, metText(ok)))
	}
	r.judgeInspect()
}

func metText(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// floeOK reports whether every floe measurement ran and planned what the
// layout says (iceberg-go's failures are reported, not fatal).
func (r *planningResults) floeOK() bool {
	for _, run := range r.Runs {
		if !isIcebergGoOp(run.Op) && run.Status != "ok" {
			return false
		}
	}
	return true
}

func (r *planningResults) print(w io.Writer) {
	fmt.Fprintf(w, "\nplanning: %d data files in %d manifests (%.0f MiB of manifests), %d records; no data file exists\n",
		r.Table.Files, r.Table.Params.Manifests, r.Table.ManifestMiB, r.Table.Records)
	fmt.Fprintf(w, "filtered scan: %s (expected %d files)\n", r.Filter, r.Want["filtered"])
	fmt.Fprintf(w, "each in a child process; best wall and CPU of %d, largest peak RSS; %s, %d CPUs\n\n", r.Repeat, r.GoVersion, r.CPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\tscan\tthreads\ttable\tfiles\ttasks\trecords\twall ms\tCPU ms\tpeak RSS MiB\tstatus\t")
	for _, run := range r.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%s\t\n", run.Op, run.Scan, run.Threads, run.TableKey,
			run.Files, run.Tasks, run.Records, run.WallMs, run.CPUMs, run.PeakRSSMB, run.Status)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nratios (floe ÷ iceberg-go, one run):")
	for _, k := range slices.Sorted(maps.Keys(r.Ratios)) {
		fmt.Fprintf(w, "  %s: %s\n", k, r.Ratios[k])
	}
	fmt.Fprintln(w, "\nplanning targets:")
	for _, t := range r.Targets {
		fmt.Fprintf(w, "  %s\n", strings.TrimSpace(t))
	}
}
