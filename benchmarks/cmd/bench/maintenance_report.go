package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// maintRun is one measurement.
type maintRun struct {
	Op string `json:"op"`
	// Files is whose small files the input is ("floe" or "duckdb"; the
	// upsert part's base is floe's).
	Files  string `json:"files"`
	Status string `json:"status"` // "ok", "WRONG: ...", "error: ..."
	// InBytes is the data read and rewritten (compaction).
	InBytes   int64   `json:"in_bytes,omitempty"`
	Rows      int64   `json:"rows"`
	OutFiles  int     `json:"out_files"`
	WallMs    float64 `json:"wall_ms"`
	CPUMs     float64 `json:"cpu_ms"`
	PeakRSSMB float64 `json:"peak_rss_mib"`
	// MBPerCPUSecond is the compaction throughput per core: input MB
	// (10^6 bytes) per CPU second; MBPerSecond per wall second.
	MBPerCPUSecond float64 `json:"mb_per_cpu_second,omitempty"`
	MBPerSecond    float64 `json:"mb_per_second,omitempty"`
	Detail         string  `json:"detail,omitempty"`
}

type maintResults struct {
	Time      string      `json:"time"`
	GoVersion string      `json:"go_version"`
	CPUs      int         `json:"cpus"`
	Threads   int         `json:"threads"`
	Params    maintParams `json:"params"`
	// LoadBefore and LoadAfter are /proc/loadavg: the machine is shared.
	LoadBefore string            `json:"load_before"`
	LoadAfter  string            `json:"load_after"`
	DuckBytes  int64             `json:"duckdb_files_bytes"`
	FloeBytes  int64             `json:"floe_files_bytes"`
	Runs       []maintRun        `json:"runs"`
	Ratios     map[string]string `json:"ratios"`
	Targets    []string          `json:"targets"`
	Notes      []string          `json:"notes"`
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// batchesReader is batches as a reader, owning them.
type batchesReader struct {
	array.RecordReader
	batches []arrow.RecordBatch
}

func (b batchesReader) Release() {
	b.RecordReader.Release()
	for _, rec := range b.batches {
		rec.Release()
	}
}

// collectBatches reads rr whole into memory.
func collectBatches(rr array.RecordReader) (array.RecordReader, error) {
	var batches []arrow.RecordBatch
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		batches = append(batches, rec)
	}
	if err := rr.Err(); err != nil {
		for _, rec := range batches {
			rec.Release()
		}
		return nil, err
	}
	out, err := array.NewRecordReader(rr.Schema(), batches)
	if err != nil {
		return nil, err
	}
	return batchesReader{out, batches}, nil
}

// measureMaintenance generates (or reuses) the data and runs each
// measurement once, each on a table of its own under dir/runs (removed
// at the end).
func measureMaintenance(ctx context.Context, dir string, p maintParams, threads int, profilePrefix string, logf func(string, ...any)) (*maintResults, error) {
	d, err := generateMaint(ctx, dir, p, logf)
	if err != nil {
		return nil, err
	}
	runs, err := filepath.Abs(filepath.Join(dir, "runs"))
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(runs); err != nil {
		return nil, err
	}
	defer os.RemoveAll(runs)
	res := &maintResults{Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Threads: threads, Params: d.Params, LoadBefore: loadAvg(), DuckBytes: d.DuckBytes, FloeBytes: d.FloeBytes}
	totalRows := int64(p.Files) * p.RowsPerFile
	n := 0
	fresh := func(files []string) (string, error) {
		n++
		t, err := tableWithFiles(ctx, filepath.Join(runs, fmt.Sprintf("t%02d", n)), files)
		if err != nil {
			return "", err
		}
		return t.MetadataLocation, nil
	}
	run := func(r maintRun, job maintJob, wantRows int64, wantFiles int) maintRun {
		job.Threads = threads
		logf("measuring %s on %s files ...", r.Op, r.Files)
		reply, rss, err := runMaintChild(ctx, job)
		r.Rows, r.OutFiles, r.WallMs, r.CPUMs, r.Detail = reply.Rows, reply.OutFiles, reply.WallMs, reply.CPUMs, reply.Detail
		r.PeakRSSMB = float64(rss) / 1024
		switch {
		case err != nil:
			r.Status = "error: " + err.Error()
		case r.Rows != wantRows:
			r.Status = fmt.Sprintf("WRONG: %d rows, want %d", r.Rows, wantRows)
		case wantFiles > 0 && r.OutFiles > wantFiles:
			r.Status = fmt.Sprintf("WRONG: %d files after, want at most %d", r.OutFiles, wantFiles)
		default:
			r.Status = "ok"
		}
		if r.InBytes > 0 && r.CPUMs > 0 {
			r.MBPerCPUSecond = float64(r.InBytes) / 1e6 / (r.CPUMs / 1000)
			r.MBPerSecond = float64(r.InBytes) / 1e6 / (r.WallMs / 1000)
		}
		res.Runs = append(res.Runs, r)
		return r
	}
	// At most one output file per 512 MiB of input, plus one.
	wantFiles := func(bytes int64) int { return int(bytes>>29) + 1 }
	for _, src := range []struct {
		name  string
		files []string
		bytes int64
	}{{"floe", d.FloeFiles, d.FloeBytes}, {"duckdb", d.DuckFiles, d.DuckBytes}} {
		for _, op := range []string{opMaintFloeCompact, opMaintIcebergCompact} {
			md, err := fresh(src.files)
			if err != nil {
				return nil, err
			}
			job := maintJob{Op: op, MetadataPath: md}
			if op == opMaintFloeCompact && profilePrefix != "" {
				job.CPUProfile = profilePrefix + "-" + src.name + ".prof"
			}
			run(maintRun{Op: op, Files: src.name, InBytes: src.bytes}, job, totalRows, wantFiles(src.bytes))
		}
		out := filepath.Join(runs, "duckdb-"+src.name+".parquet")
		run(maintRun{Op: opMaintDuckCopy, Files: src.name, InBytes: src.bytes}, maintJob{Op: opMaintDuckCopy, Files: src.files, Out: out}, totalRows, 1)
	}
	if p.UpsertBase > 0 {
		half := p.UpsertKeys / 2
		appendMD, err := fresh(d.UpsertBaseFiles)
		if err != nil {
			return nil, err
		}
		run(maintRun{Op: opMaintAppend, Files: "floe"}, maintJob{Op: opMaintAppend, MetadataPath: appendMD, Input: d.UpsertInput}, p.UpsertBase+p.UpsertKeys, 0)
		upsertMD, err := fresh(d.UpsertBaseFiles)
		if err != nil {
			return nil, err
		}
		up := run(maintRun{Op: opMaintUpsert, Files: "floe"}, maintJob{Op: opMaintUpsert, MetadataPath: upsertMD, Input: d.UpsertInput}, p.UpsertBase+half, 0)
		if want := fmt.Sprintf("%d updated, %d inserted", half, p.UpsertKeys-half); up.Status == "ok" && up.Detail != want {
			res.Runs[len(res.Runs)-1].Status = fmt.Sprintf("WRONG: %s, want %s", up.Detail, want)
		}
		spreadMD, err := fresh(d.UpsertBaseFiles)
		if err != nil {
			return nil, err
		}
		up = run(maintRun{Op: opMaintUpsert, Files: maintSpreadKeys}, maintJob{Op: opMaintUpsert, MetadataPath: spreadMD, Input: d.UpsertSpreadInput}, p.UpsertBase+half, 0)
		if want := fmt.Sprintf("%d updated, %d inserted", half, p.UpsertKeys-half); up.Status == "ok" && up.Detail != want {
			res.Runs[len(res.Runs)-1].Status = fmt.Sprintf("WRONG: %s, want %s", up.Detail, want)
		}
		run(maintRun{Op: opMaintScan, Files: "base"}, maintJob{Op: opMaintScan, MetadataPath: d.UpsertBase}, p.UpsertBase, 0)
		// The upserts' tables, reopened at their newest metadata files.
		run(maintRun{Op: opMaintScan, Files: "after upsert"}, maintJob{Op: opMaintScan, MetadataPath: filepath.Dir(filepath.Dir(upsertMD))}, p.UpsertBase+half, 0)
		run(maintRun{Op: opMaintScan, Files: "after " + maintSpreadKeys}, maintJob{Op: opMaintScan, MetadataPath: filepath.Dir(filepath.Dir(spreadMD))}, p.UpsertBase+half, 0)
	}
	res.LoadAfter = loadAvg()
	res.judge()
	return res, nil
}

func (r *maintResults) find(op, files string) *maintRun {
	for i := range r.Runs {
		if r.Runs[i].Op == op && r.Runs[i].Files == files && r.Runs[i].Status == "ok" {
			return &r.Runs[i]
		}
	}
	return nil
}

// judge works out the ratios and the goals.
func (r *maintResults) judge() {
	r.Ratios = map[string]string{}
	for _, files := range []string{"floe", "duckdb"} {
		f, g, d := r.find(opMaintFloeCompact, files), r.find(opMaintIcebergCompact, files), r.find(opMaintDuckCopy, files)
		if f != nil && d != nil {
			ratio := f.MBPerCPUSecond / d.MBPerCPUSecond
			key := "compaction per core floe/duckdb (" + files + " files)"
			r.Ratios[key] = fmt.Sprintf("%.2f× (wall %.2f×)", ratio, f.MBPerSecond/d.MBPerSecond)
			r.Targets = append(r.Targets, fmt.Sprintf("%s ≥ 1.0×: %.2f× %s", key, ratio, metText(ratio >= 1)))
		}
		if f != nil && g != nil {
			r.Ratios["compaction per core floe/iceberg-go ("+files+" files)"] = fmt.Sprintf("%.2f× (wall %.2f×)",
				f.MBPerCPUSecond/g.MBPerCPUSecond, f.MBPerSecond/g.MBPerSecond)
		}
	}
	a, u := r.find(opMaintAppend, "floe"), r.find(opMaintUpsert, "floe")
	if a != nil && u != nil {
		ratio := u.WallMs / a.WallMs
		r.Ratios["upsert/append wall"] = fmt.Sprintf("%.2f× (CPU %.2f×)", ratio, u.CPUMs/a.CPUMs)
		cpu := u.CPUMs / a.CPUMs
		r.Targets = append(r.Targets, fmt.Sprintf("upsert ≤ 2× append: wall %.2f× %s; CPU %.2f× %s", ratio, metText(ratio <= 2), cpu, metText(cpu <= 2)))
	}
	if sp := r.find(opMaintUpsert, maintSpreadKeys); a != nil && sp != nil {
		r.Ratios["upsert ("+maintSpreadKeys+")/append wall"] = fmt.Sprintf("%.2f× (CPU %.2f×)", sp.WallMs/a.WallMs, sp.CPUMs/a.CPUMs)
	}
	if b, s := r.find(opMaintScan, "base"), r.find(opMaintScan, "after "+maintSpreadKeys); b != nil && s != nil {
		r.Ratios["scan after upsert ("+maintSpreadKeys+")/plain scan wall"] = fmt.Sprintf("%.2f× (CPU %.2f×)", s.WallMs/b.WallMs, s.CPUMs/b.CPUMs)
	}
	b, s := r.find(opMaintScan, "base"), r.find(opMaintScan, "after upsert")
	if b != nil && s != nil {
		ratio := s.WallMs / b.WallMs
		r.Ratios["scan after upsert/plain scan wall"] = fmt.Sprintf("%.2f× (CPU %.2f×)", ratio, s.CPUMs/b.CPUMs)
		cpu := s.CPUMs / b.CPUMs
		r.Targets = append(r.Targets, fmt.Sprintf("scan after upsert ≤ 1.5× plain scan: wall %.2f× %s; CPU %.2f× %s", ratio, metText(ratio <= 1.5), cpu, metText(cpu <= 1.5)))
	}
	r.Notes = append(r.Notes,
		"one run of each measurement, each in a child process of its own; the machine's cores are shared with other work (load averages above), so wall times of sub-second operations (append, upsert, scans) are noisy: their CPU ratios are the steadier reading",
		"floe's compaction plans one group for an unpartitioned table under max-file-group-size-bytes (100 GiB), so it rewrites with one writer; DuckDB's COPY uses its threads",
		"compaction input: the same rows as small files written by floe's writer and by DuckDB (COPY ... zstd), registered with add_files in a fresh unpartitioned v2 table per measurement; every peer writes zstd",
		"iceberg-go: v0.7.0's table/compaction (Analyze with DefaultConfig, then Table.RewriteDataFiles), committed to an in-memory catalog",
		"the upsert's input (goals above): its existing keys are the base's last ids, in one file, as when recent rows change again; "+maintSpreadKeys+": every file holds some, so the upsert reads every file's columns to match and compare rows (no goal set)",
		"per core = input MB (10^6 bytes) / CPU seconds of the child process (user+sys, every thread)",
		"peak RSS is the child's high-water mark, which on Linux starts at the parent's RSS when it forked (higher when this run generated the data)")
}

// floeOK is false when a floe measurement failed or was wrong.
func (r *maintResults) floeOK() bool {
	for _, run := range r.Runs {
		if strings.HasPrefix(run.Op, "floe") && run.Status != "ok" {
			return false
		}
	}
	return true
}

func (r *maintResults) print(w io.Writer) {
	fmt.Fprintf(w, "maintenance: %s, %s, %d CPUs, %d threads per measurement\n", r.Time, r.GoVersion, r.CPUs, r.Threads)
	fmt.Fprintf(w, "load average before %s, after %s\n", r.LoadBefore, r.LoadAfter)
	fmt.Fprintf(w, "compaction table: %d files × %d rows (floe's files %.1f MB, DuckDB's %.1f MB); upsert: %d keys into %d rows\n\n",
		r.Params.Files, r.Params.RowsPerFile, float64(r.FloeBytes)/1e6, float64(r.DuckBytes)/1e6, r.Params.UpsertKeys, r.Params.UpsertBase)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\tfiles\twall ms\tCPU ms\tMB/s per core\tMB/s wall\tpeak RSS MiB\trows\tfiles after\tstatus\t")
	for _, run := range r.Runs {
		per, wall := "", ""
		if run.MBPerCPUSecond > 0 {
			per, wall = fmt.Sprintf("%.1f", run.MBPerCPUSecond), fmt.Sprintf("%.1f", run.MBPerSecond)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%s\t%s\t%.0f\t%d\t%d\t%s\t\n", run.Op, run.Files, run.WallMs, run.CPUMs, per, wall, run.PeakRSSMB, run.Rows, run.OutFiles, run.Status)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, run := range r.Runs {
		if run.Detail != "" {
			fmt.Fprintf(w, "%s on %s: %s\n", run.Op, run.Files, run.Detail)
		}
	}
	fmt.Fprintln(w, "\nratios:")
	for _, k := range slices.Sorted(maps.Keys(r.Ratios)) {
		fmt.Fprintf(w, "  %s: %s\n", k, r.Ratios[k])
	}
	fmt.Fprintln(w, "\ngoals:")
	for _, t := range r.Targets {
		fmt.Fprintf(w, "  %s\n", t)
	}
	fmt.Fprintln(w, "\nnotes:")
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
}
