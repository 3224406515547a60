package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/compaction"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// The maintenance section (go run ./cmd/bench -maintenance) measures
// compaction and upsert (maintenance_data.go makes the data):
//   - compaction of a table of many small files, once of files floe wrote
//     and once of the same rows in files DuckDB wrote: floe's
//     maintain.RewriteDataFiles, iceberg-go v0.7.0's compaction
//     (compaction.Analyze, then Table.RewriteDataFiles) and DuckDB reading
//     and rewriting the same files (COPY (SELECT * FROM read_parquet(...))
//     TO ...), as MB of input rewritten per CPU second (per core) and per
//     wall second;
//   - ops.Upsert of a file of keys half of which the base table holds,
//     against ops.Append of the same rows, and a scan of the table after
//     the upsert against a scan of the base table.
//
// Each measurement runs once, in a child process of its own (this program
// again, maintChildArg), on a table made for it, so its CPU time and peak
// RSS are its own.
var (
	maintenanceOnly = flag.Bool("maintenance", false, "run only the maintenance section: compaction of -maintenance-files small files (floe, iceberg-go, DuckDB) and upsert of -upsert-keys keys into a -upsert-rows table")
	maintFiles      = flag.Int("maintenance-files", 1000, "small files of the compaction table")
	maintFileRows   = flag.Int64("maintenance-file-rows", 20_000, "rows of each small file")
	maintUpsertRows = flag.Int64("upsert-rows", 10_000_000, "rows of the upsert base table (0: no upsert part)")
	maintUpsertKeys = flag.Int64("upsert-keys", 1_000_000, "keys upserted, half of them new")
	maintThreads    = flag.Int("maintenance-threads", 2, "GOMAXPROCS and DuckDB threads of each measurement")
	maintDir        = flag.String("maintenance-data", "data/maintenance", "where the maintenance data and tables are written (the data is reused when there)")
	maintProfile    = flag.String("maintenance-cpuprofile", "", "write a CPU profile of each floe compaction child to <this>-<files>.prof")
	maintJSON       = flag.String("maintenance-json", "results/latest-maintenance.json", "where to write the maintenance section's results; the printed report goes next to it as .txt (empty: nowhere)")
)

const maintChildArg = "-maintenance-child"

func init() {
	if len(os.Args) == 2 && os.Args[1] == maintChildArg {
		// The job comes on stdin: its file lists outgrow an argument list.
		var job maintJob
		if err := json.NewDecoder(os.Stdin).Decode(&job); err != nil {
			fmt.Fprintf(os.Stderr, "maintenance child: %v\n", err)
			os.Exit(2)
		}
		// Not on init's goroutine: the runtime locks it to its thread while
		// packages initialise, and iter.Pull coroutines created there
		// (iceberg-go's writer makes them) abort when resumed elsewhere.
		var reply maintReply
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			reply, err = runMaintJob(context.Background(), job)
		}()
		<-done
		if err != nil {
			fmt.Fprintf(os.Stderr, "maintenance child: %v\n", err)
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
	opMaintFloeCompact    = "floe RewriteDataFiles"
	opMaintIcebergCompact = "iceberg-go RewriteDataFiles"
	opMaintDuckCopy       = "duckdb COPY read_parquet"
	opMaintAppend         = "floe ops.Append"
	opMaintUpsert         = "floe ops.Upsert"
	// maintSpreadKeys labels the upsert whose existing keys reach every
	// file of the base table.
	maintSpreadKeys = "keys spread"
	opMaintScan     = "floe scan"
)

// maintJob is one measurement, as the child is told it.
type maintJob struct {
	Op           string   `json:"op"`
	Threads      int      `json:"threads"`
	MetadataPath string   `json:"metadata_path,omitempty"` // the table operated on
	Files        []string `json:"files,omitempty"`         // DuckDB's input files
	Out          string   `json:"out,omitempty"`           // DuckDB's output file
	Input        string   `json:"input,omitempty"`         // the upsert/append rows
	CPUProfile   string   `json:"cpu_profile,omitempty"`   // where to write a CPU profile of the timed part
}

// maintReply is what the child measured. Rows and OutFiles are checked
// after the timed part: the rows the result holds and its data files.
type maintReply struct {
	WallMs   float64 `json:"wall_ms"`
	CPUMs    float64 `json:"cpu_ms"`
	Rows     int64   `json:"rows"`
	OutFiles int     `json:"out_files"`
	Detail   string  `json:"detail,omitempty"`
}

func runMaintJob(ctx context.Context, job maintJob) (maintReply, error) {
	runtime.GOMAXPROCS(job.Threads)
	var reply maintReply
	// Inputs are read before the clock starts: the operations take rows
	// in memory.
	var prepared func() error
	var err error
	switch job.Op {
	case opMaintFloeCompact:
		prepared, err = floeCompactJob(ctx, job, &reply)
	case opMaintIcebergCompact:
		prepared, err = icebergCompactJob(ctx, job, &reply)
	case opMaintDuckCopy:
		prepared, err = duckCopyJob(job, &reply)
	case opMaintAppend, opMaintUpsert:
		prepared, err = writeRowsJob(ctx, job, &reply)
	case opMaintScan:
		prepared, err = scanJob(ctx, job, &reply)
	default:
		err = fmt.Errorf("unknown operation %q", job.Op)
	}
	if err != nil {
		return reply, err
	}
	if job.CPUProfile != "" {
		f, err := os.Create(job.CPUProfile)
		if err != nil {
			return reply, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return reply, err
		}
	}
	u0, s0 := processCPU()
	start := time.Now()
	err = prepared()
	if job.CPUProfile != "" {
		pprof.StopCPUProfile()
	}
	reply.WallMs = float64(time.Since(start).Microseconds()) / 1000
	u1, s1 := processCPU()
	reply.CPUMs = float64((u1 - u0 + s1 - s0).Microseconds()) / 1000
	if err != nil {
		return reply, err
	}
	if job.MetadataPath != "" && job.Op != opMaintIcebergCompact {
		// The table's newest version: the operation committed after the
		// metadata file the job names.
		t, err := table.Open(ctx, tableDir(job.MetadataPath), table.Options{})
		if err != nil {
			return reply, err
		}
		if job.Op != opMaintScan {
			reply.Rows, err = scan.CountRows(ctx, t, scan.Options{})
			if err != nil {
				return reply, err
			}
		}
		plan, err := t.PlanFilesFiltered(ctx, table.SnapshotSelector{}, nil, false)
		if err != nil {
			return reply, err
		}
		reply.OutFiles = len(plan.Tasks)
	}
	return reply, nil
}

func floeCompactJob(ctx context.Context, job maintJob, reply *maintReply) (func() error, error) {
	t, err := table.Open(ctx, job.MetadataPath, table.Options{})
	if err != nil {
		return nil, err
	}
	return func() error {
		res, err := maintain.RewriteDataFiles(ctx, t, maintain.RewriteDataFilesOptions{MaxConcurrentGroups: job.Threads})
		if err == nil {
			reply.Detail = fmt.Sprintf("%d groups, %d → %d files", len(res.Groups), res.RewrittenDataFiles, res.AddedDataFiles)
		}
		return err
	}, nil
}

// tableDir is the table location of a metadata file path (location/metadata/vN.metadata.json).
func tableDir(p string) string {
	if strings.HasSuffix(p, ".metadata.json") {
		return filepath.Dir(filepath.Dir(p))
	}
	return p
}

// memCatalog commits iceberg-go's changes in memory: the benchmark times
// the compaction (reading, writing data files and manifests), not a
// catalog.
type memCatalog struct{ md icebergtable.Metadata }

func (c *memCatalog) LoadTable(context.Context, icebergtable.Identifier) (*icebergtable.Table, error) {
	return nil, fmt.Errorf("memCatalog: no LoadTable")
}

func (c *memCatalog) CommitTable(_ context.Context, _ icebergtable.Identifier, _ []icebergtable.Requirement, updates []icebergtable.Update) (icebergtable.Metadata, string, error) {
	md, err := icebergtable.UpdateTableMetadata(c.md, updates, "")
	if err != nil {
		return nil, "", err
	}
	c.md = md
	return md, "", nil
}

func icebergCompactJob(ctx context.Context, job maintJob, reply *maintReply) (func() error, error) {
	static, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"bench", "maintenance"}, job.MetadataPath,
		icebergio.LoadFSFunc(nil, job.MetadataPath), nil)
	if err != nil {
		return nil, err
	}
	cat := &memCatalog{md: static.Metadata()}
	tbl := icebergtable.New(static.Identifier(), static.Metadata(), job.MetadataPath, icebergio.LoadFSFunc(nil, job.MetadataPath), cat)
	return func() error {
		plan, err := compaction.Analyze(ctx, tbl, compaction.DefaultConfig())
		if err != nil {
			return err
		}
		groups := make([]icebergtable.CompactionTaskGroup, len(plan.Groups))
		for i, g := range plan.Groups {
			groups[i] = icebergtable.CompactionTaskGroup{PartitionKey: g.PartitionKey, Tasks: g.Tasks, TotalSizeBytes: g.TotalSizeBytes}
		}
		res, err := tbl.RewriteDataFiles(ctx, groups, icebergtable.RewriteDataFilesOptions{
			GroupOptions: []icebergtable.CompactionGroupOption{icebergtable.WithCompactionScanConcurrency(job.Threads)}})
		if err != nil {
			return err
		}
		reply.Detail = fmt.Sprintf("%d groups, %d → %d files", len(groups), res.RemovedDataFiles, res.AddedDataFiles)
		if res.Table == nil {
			return fmt.Errorf("iceberg-go committed no table")
		}
		tasks, err := res.Table.Scan().PlanFiles(ctx)
		if err != nil {
			return err
		}
		// A file larger than the split size is planned as several tasks.
		seen := map[string]bool{}
		for _, task := range tasks {
			if p := task.File.FilePath(); !seen[p] {
				seen[p] = true
				reply.OutFiles++
				reply.Rows += task.File.Count()
			}
		}
		return nil
	}, nil
}

func duckCopyJob(job maintJob, reply *maintReply) (func() error, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{fmt.Sprintf("SET threads = %d", job.Threads), "SET enable_object_cache = false"} {
		if _, err := db.Exec(stmt); err != nil {
			return nil, err
		}
	}
	return func() error {
		defer db.Close()
		if err := duckCopy(db, "SELECT * FROM read_parquet("+sqlList(job.Files)+")", job.Out); err != nil {
			return err
		}
		reply.OutFiles = 1
		return db.QueryRow("SELECT count(*) FROM read_parquet(" + sqlString(job.Out) + ")").Scan(&reply.Rows)
	}, nil
}

// writeRowsJob appends or upserts (by id) the input file's rows.
func writeRowsJob(ctx context.Context, job maintJob, reply *maintReply) (func() error, error) {
	t, err := table.Open(ctx, job.MetadataPath, table.Options{})
	if err != nil {
		return nil, err
	}
	rr, closeFile, err := parquetReader(ctx, job.Input)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	defer rr.Release()
	// Read whole first (Upsert reads its input whole anyway).
	rows, err := collectBatches(rr)
	if err != nil {
		return nil, err
	}
	return func() error {
		defer rows.Release()
		if job.Op == opMaintAppend {
			_, err := ops.Append(ctx, t, rows, table.CommitOptions{})
			return err
		}
		res, err := ops.Upsert(ctx, t, rows, ops.UpsertOptions{JoinCols: []string{"id"},
			WhenMatchedUpdateAll: true, WhenNotMatchedInsertAll: true, Threads: job.Threads})
		if err == nil {
			reply.Detail = fmt.Sprintf("%d updated, %d inserted", res.RowsUpdated, res.RowsInserted)
		}
		return err
	}, nil
}

// scanJob reads every column of every row with floe's reader.
func scanJob(ctx context.Context, job maintJob, reply *maintReply) (func() error, error) {
	t, err := table.Open(ctx, job.MetadataPath, table.Options{})
	if err != nil {
		return nil, err
	}
	return func() error {
		sc, err := scan.New(ctx, t, scan.Options{Threads: job.Threads})
		if err != nil {
			return err
		}
		rr, err := sc.Reader(ctx, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		defer rr.Release()
		for rr.Next() {
			reply.Rows += rr.RecordBatch().NumRows()
		}
		return rr.Err()
	}, nil
}

// runMaintChild runs one job in a child process and returns its reply and
// peak RSS in KiB.
func runMaintChild(ctx context.Context, job maintJob) (maintReply, int64, error) {
	self, err := os.Executable()
	if err != nil {
		return maintReply{}, 0, err
	}
	arg, err := json.Marshal(job)
	if err != nil {
		return maintReply{}, 0, err
	}
	cmd := exec.CommandContext(ctx, self, maintChildArg)
	cmd.Stdin = bytes.NewReader(arg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return maintReply{}, 0, fmt.Errorf("%s: %w: %s", job.Op, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var reply maintReply
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil {
		return maintReply{}, 0, fmt.Errorf("%s printed %q: %w", job.Op, stdout.String(), err)
	}
	var rssKiB int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssKiB = ru.Maxrss
	}
	return reply, rssKiB, nil
}

// runMaintenanceSection measures, prints and saves the maintenance
// section; false when a floe measurement failed or returned wrong rows.
func runMaintenanceSection(logf func(string, ...any)) bool {
	p := maintParams{Files: *maintFiles, RowsPerFile: *maintFileRows, UpsertBase: *maintUpsertRows, UpsertKeys: *maintUpsertKeys}
	res, err := measureMaintenance(context.Background(), *maintDir, p, *maintThreads, *maintProfile, logf)
	if err != nil {
		logf("bench: %v", err)
		return false
	}
	if !publish("maintenance", *maintJSON, res, logf) {
		return false
	}
	return res.floeOK()
}
