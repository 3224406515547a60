package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// The planning section (go run ./cmd/bench -planning) plans scans of a
// table of many data files (planning_data.go) without reading any: a full
// scan and a filtered one (a date range the partitions decide and a
// category the column metrics decide), floe against iceberg-go v0.7.0, at
// one and two threads; and floe's count(*), which the manifests answer
// (no data file exists, so an answer proves none was opened). Each
// measurement runs in a child process of its own (this program again,
// planningChildArg), so its peak RSS is its own and not what an earlier
// measurement left on the heap.
var (
	planningOnly      = flag.Bool("planning", false, "run only the planning section: floe and iceberg-go planning full and filtered scans of a table of -planning-manifests × -planning-files-per-manifest data files")
	planningManifests = flag.Int("planning-manifests", 1000, "manifests of the planning table")
	planningPerMan    = flag.Int("planning-files-per-manifest", 1000, "data-file entries per manifest of the planning table")
	planningDir       = flag.String("planning-data", "data/planning", "where the planning tables are written (reused when there)")
	planningJSON      = flag.String("planning-json", "results/latest-planning.json", "where to write the planning section's results; the printed report goes next to it as .txt (empty: nowhere)")
)

// planningChildArg, as this program's first argument, makes it one
// measurement of the planning section; checked in init, before flags are
// parsed, so the test binary re-running itself works too.
const planningChildArg = "-planning-child"

func init() {
	if len(os.Args) == 3 && os.Args[1] == planningChildArg {
		var job planningJob
		if err := json.Unmarshal([]byte(os.Args[2]), &job); err != nil {
			fmt.Fprintf(os.Stderr, "planning child: %v\n", err)
			os.Exit(2)
		}
		reply, err := runPlanningJob(context.Background(), job)
		if err != nil {
			fmt.Fprintf(os.Stderr, "planning child: %v\n", err)
			os.Exit(1)
		}
		if err := json.NewEncoder(os.Stdout).Encode(reply); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// The measured operations.
const (
	opFloeScan    = "scan.New"             // floe's public path: scan.New, then its tasks
	opFloeTable   = "table.PlanFiles"      // floe's table planning, every task held
	opFloeStream  = "table.StreamFiles"    // floe's table planning, streamed
	opFloeCount   = "scan.CountRows"       // count(*) from the streamed manifests
	opIcebergPlan = "iceberg-go PlanFiles" // iceberg-go's Scan.PlanFiles
	// opFloor does nothing: the peak RSS of the child process itself (the
	// runtime, this binary's code and DuckDB's), below every other.
	opFloor = "no-op (process floor)"
)

// planningJob is one measurement, as the child is told it.
type planningJob struct {
	Op           string `json:"op"`
	MetadataPath string `json:"metadata_path"`
	Filtered     bool   `json:"filtered"`
	Threads      int    `json:"threads"`
	Filter       planningFilter
}

// planningReply is what the child measured: what it planned, and the time
// from opening the table to the last task consumed.
type planningReply struct {
	Files   int64   `json:"files"`
	Tasks   int64   `json:"tasks"`
	Records int64   `json:"records"`
	WallMs  float64 `json:"wall_ms"`
	CPUMs   float64 `json:"cpu_ms"`
}

// planningFilter is the filtered scan: event_date in [FromDay, ToDay)
// (days since the epoch) and category = Category.
type planningFilter struct {
	FromDay, ToDay int32
	Category       string
}

func (f planningFilter) text() string {
	return fmt.Sprintf("event_date >= '%s' and event_date < '%s' and category = '%s'",
		formatDay(f.FromDay), formatDay(f.ToDay), f.Category)
}

func formatDay(d int32) string { return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02") }

// filterFor picks a filter of about a tenth of the days and a tenth of
// the files within them, whatever the table's size.
func filterFor(p planningParams) planningFilter {
	from := p.Manifests / 3
	n := max(p.Manifests/10, 1)
	return planningFilter{FromDay: int32(planFirstDay + from), ToDay: int32(planFirstDay + from + n), Category: category(7)}
}

// expectedFiltered is what the filter must plan, from the generator's
// layout rather than from any planner: the files of the days in range
// whose two categories include the one asked for.
func expectedFiltered(p planningParams, f planningFilter) (files int, records int64) {
	for m := range p.Manifests {
		day := int32(planFirstDay + m)
		if day < f.FromDay || day >= f.ToDay {
			continue
		}
		for i := range p.FilesPerManifest {
			k := i % planCategories
			if category(k) <= f.Category && f.Category <= category(k+1) {
				files++
				records += planFileRecords(m*p.FilesPerManifest + i)
			}
		}
	}
	return files, records
}

func runPlanningJob(ctx context.Context, job planningJob) (planningReply, error) {
	runtime.GOMAXPROCS(job.Threads)
	var reply planningReply
	u0, s0 := processCPU()
	start := time.Now()
	var err error
	switch job.Op {
	case opFloor:
	case opIcebergPlan:
		err = icebergGoPlan(ctx, job, &reply)
	case opIcebergInspectFiles, opIcebergInspectEntries, opIcebergInspectParts:
		err = icebergGoInspect(ctx, job, &reply)
	case opFloeInspectFiles, opFloeInspectEntries, opFloeInspectPartitions:
		err = floeInspect(ctx, job, &reply)
	default:
		err = floePlan(ctx, job, &reply)
	}
	reply.WallMs = float64(time.Since(start).Microseconds()) / 1000
	u1, s1 := processCPU()
	reply.CPUMs = float64((u1 - u0 + s1 - s0).Microseconds()) / 1000
	return reply, err
}

func floePlan(ctx context.Context, job planningJob, reply *planningReply) error {
	t, err := table.Open(ctx, job.MetadataPath, table.Options{})
	if err != nil {
		return err
	}
	var filter expr.Expr
	if job.Filtered {
		if filter, err = expr.ParseFilter(job.Filter.text()); err != nil {
			return err
		}
	}
	switch job.Op {
	case opFloeStream:
		// What a consumer of the stream keeps: the counts.
		_, err := t.StreamFiles(ctx, table.SnapshotSelector{}, filter, false, func(task table.DataFileTask) error {
			reply.Files++
			reply.Tasks++
			reply.Records += task.File.RecordCount
			return nil
		})
		return err
	case opFloeCount:
		// Files stay 0: CountRows plans without telling how many.
		reply.Records, err = scan.CountRows(ctx, t, scan.Options{Filter: filter, Threads: job.Threads})
		return err
	case opFloeTable:
		plan, err := t.PlanFilesFiltered(ctx, table.SnapshotSelector{}, filter, false)
		if err != nil {
			return err
		}
		reply.Files, reply.Tasks, reply.Records = int64(len(plan.Tasks)), int64(len(plan.Tasks)), plan.RecordCount()
		return nil
	case opFloeScan:
		s, err := scan.New(ctx, t, scan.Options{Filter: filter, Threads: job.Threads})
		if err != nil {
			return err
		}
		// A file's byte-range tasks are consecutive (scan.New cuts each
		// file into its splits in place), so a file is counted where its
		// path changes: a set of 1 M paths here cost a fifth of the
		// measured CPU, charged to floe's planning. The report's file
		// count checks the rule.
		last := ""
		for _, task := range s.Tasks() {
			reply.Tasks++
			if task.Path != last {
				last = task.Path
				reply.Files++
				reply.Records += task.RecordCount
			}
		}
		return nil
	}
	return fmt.Errorf("unknown operation %q", job.Op)
}

func icebergGoPlan(ctx context.Context, job planningJob, reply *planningReply) error {
	tbl, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"bench", "planning"}, job.MetadataPath,
		icebergio.LoadFSFunc(nil, job.MetadataPath), nil)
	if err != nil {
		return err
	}
	opts := []icebergtable.ScanOption{icebergtable.WithMaxConcurrency(job.Threads)}
	if job.Filtered {
		f := job.Filter
		date := iceberg.Reference("event_date")
		opts = append(opts, icebergtable.WithRowFilter(iceberg.NewAnd(
			iceberg.GreaterThanEqual(date, iceberg.Date(f.FromDay)),
			iceberg.LessThan(date, iceberg.Date(f.ToDay)),
			iceberg.EqualTo(iceberg.Reference("category"), f.Category))))
	}
	tasks, err := tbl.Scan(opts...).PlanFiles(ctx)
	if err != nil {
		return err
	}
	reply.Files, reply.Tasks = int64(len(tasks)), int64(len(tasks))
	for _, task := range tasks {
		reply.Records += task.File.Count()
	}
	return nil
}

// runPlanningChild runs one job in a child process and returns its reply
// and its peak RSS.
func runPlanningChild(ctx context.Context, job planningJob) (planningReply, int64, error) {
	self, err := os.Executable()
	if err != nil {
		return planningReply{}, 0, err
	}
	arg, err := json.Marshal(job)
	if err != nil {
		return planningReply{}, 0, err
	}
	cmd := exec.CommandContext(ctx, self, planningChildArg, string(arg))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return planningReply{}, 0, fmt.Errorf("%s: %w: %s", job.Op, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var reply planningReply
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil {
		return planningReply{}, 0, fmt.Errorf("%s printed %q: %w", job.Op, stdout.String(), err)
	}
	var rssKiB int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssKiB = ru.Maxrss // KiB on Linux
	}
	return reply, rssKiB, nil
}

// runPlanningSection measures, prints and saves the planning section;
// false when a floe measurement failed or planned the wrong files.
func runPlanningSection(repeat int, logf func(string, ...any)) bool {
	p := planningParams{Manifests: *planningManifests, FilesPerManifest: *planningPerMan}
	res, err := measurePlanning(context.Background(), *planningDir, p, repeat, logf)
	if err != nil {
		logf("bench: %v", err)
		return false
	}
	if !publish("planning", *planningJSON, res, logf) {
		return false
	}
	return res.floeOK()
}
