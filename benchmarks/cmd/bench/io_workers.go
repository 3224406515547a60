package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// ioWorkerArg, as this program's first argument, makes it a worker of
// part 4 instead of the benchmark; it is checked in init, before flags are
// parsed, so it also works in the test binary, which re-runs itself.
const ioWorkerArg = "-io-worker"

func init() {
	if len(os.Args) == 3 && os.Args[1] == ioWorkerArg {
		if err := runIOWorker(context.Background(), os.Args[2], os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench worker: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// ioWorkerJob is what a worker is told: the table (for its FileIO) and
// the files holding its serialised task groups.
type ioWorkerJob struct {
	Location    string            `json:"location"`
	LocationMap map[string]string `json:"location_map,omitempty"`
	Groups      []string          `json:"groups"`
}

// ioWorkerReply is what a worker prints: the digest of every batch of its
// groups.
type ioWorkerReply struct {
	Groups      int       `json:"groups"`
	Digest      rowDigest `json:"digest"`
	WallSeconds float64   `json:"wall_s"`
}

// runIOWorker reads the job's groups one after another and prints its
// reply as JSON.
func runIOWorker(ctx context.Context, jobPath string, out io.Writer) error {
	data, err := os.ReadFile(jobPath)
	if err != nil {
		return err
	}
	var job ioWorkerJob
	if err := json.Unmarshal(data, &job); err != nil {
		return fmt.Errorf("job %s: %w", jobPath, err)
	}
	files, err := table.Options{LocationMap: job.LocationMap}.FileIO(job.Location)
	if err != nil {
		return err
	}
	start := time.Now()
	reply := ioWorkerReply{Groups: len(job.Groups)}
	var g digester
	alloc := newMallocator()
	for _, path := range job.Groups {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		group, err := scan.UnmarshalTaskGroup(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rr, err := group.Reader(ctx, files, alloc, scan.ReadOptions{}) // the scan sets none: the defaults
		if err == nil {
			err = digest(rr, &g, &reply.Digest)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	reply.WallSeconds = time.Since(start).Seconds()
	return json.NewEncoder(out).Encode(reply)
}

// ioProcessRun is part 4.
type ioProcessRun struct {
	Status    string          `json:"status"`
	SplitSize int64           `json:"split_size"`
	Groups    int             `json:"task_groups"`
	Tasks     int             `json:"tasks"`
	Workers   []ioWorkerReply `json:"workers,omitempty"`
	// Single is the one-process scan of the same plan, Combined the
	// workers' digests added; Expected is the generator's answer.
	Single            rowDigest         `json:"single_process"`
	Combined          rowDigest         `json:"workers_combined"`
	Expected          lineitem.Expected `json:"expected"`
	SingleWallSeconds float64           `json:"single_wall_s,omitempty"`
	// WorkersWallSeconds is from starting the workers to the last reply,
	// process start-up included.
	WorkersWallSeconds float64 `json:"workers_wall_s,omitempty"`
}

// measureProcesses plans a full scan of every column, reads it in this
// process, then hands its task groups round-robin to worker processes and
// compares the digests. The split size cuts the data into about 16
// groups, so the files' byte ranges (not only whole files) are shared
// out.
func measureProcesses(ctx context.Context, tbl *lineitem.Table, workers int, dataBytes int64) *ioProcessRun {
	run := &ioProcessRun{SplitSize: max(dataBytes/16, 64<<10)}
	if err := run.measure(ctx, tbl, workers); err != nil {
		run.Status = "FAIL: " + err.Error()
		return run
	}
	var problems []string
	if run.Combined != run.Single {
		problems = append(problems, fmt.Sprintf("the workers returned %v, the single process %v", run.Combined, run.Single))
	}
	if run.Single.Rows != run.Expected.Rows || run.Single.SumPartKey != run.Expected.SumPartKey {
		problems = append(problems, fmt.Sprintf("the single process returned %v, the generator says %d rows, sum(l_partkey) %d",
			run.Single, run.Expected.Rows, run.Expected.SumPartKey))
	}
	if len(problems) > 0 {
		run.Status = "FAIL: " + fmt.Sprint(problems)
	} else {
		run.Status = "ok"
	}
	return run
}

func (run *ioProcessRun) measure(ctx context.Context, tbl *lineitem.Table, workers int) error {
	expected, err := lineitem.ExpectedWhere(tbl.Params, func(lineitem.FilterRow) bool { return true })
	if err != nil {
		return err
	}
	run.Expected = expected[0]
	t, err := table.Open(ctx, tbl.MetadataPath, table.Options{})
	if err != nil {
		return err
	}
	sc, err := scan.New(ctx, t, scan.Options{SplitSize: run.SplitSize})
	if err != nil {
		return err
	}
	groups := sc.TaskGroups()
	run.Groups, run.Tasks = len(groups), len(sc.Tasks())

	start := time.Now()
	var g digester
	rr, err := sc.Reader(ctx, newMallocator())
	if err == nil {
		err = digest(rr, &g, &run.Single)
	}
	if err != nil {
		return fmt.Errorf("single-process scan: %w", err)
	}
	run.SingleWallSeconds = time.Since(start).Seconds()

	dir, err := os.MkdirTemp("", "floe-bench-io-groups-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	jobs := make([]ioWorkerJob, workers)
	for i, group := range groups {
		raw, err := group.MarshalBinary()
		if err != nil {
			return err
		}
		path := filepath.Join(dir, fmt.Sprintf("group-%04d.json", i))
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			return err
		}
		job := &jobs[i%workers]
		job.Groups = append(job.Groups, path)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	start = time.Now()
	replies := make([]ioWorkerReply, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range jobs {
		jobs[w].Location, jobs[w].LocationMap = tbl.MetadataPath, nil
		jobPath := filepath.Join(dir, fmt.Sprintf("job-%d.json", w))
		data, err := json.Marshal(jobs[w])
		if err != nil {
			return err
		}
		if err := os.WriteFile(jobPath, data, 0o644); err != nil {
			return err
		}
		wg.Go(func() { replies[w], errs[w] = runWorkerProcess(ctx, self, jobPath) })
	}
	wg.Wait()
	run.WorkersWallSeconds = time.Since(start).Seconds()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	run.Workers = replies
	for _, r := range replies {
		run.Combined.merge(r.Digest)
	}
	return nil
}

// runWorkerProcess runs this program as a worker on one job.
func runWorkerProcess(ctx context.Context, self, jobPath string) (ioWorkerReply, error) {
	cmd := exec.CommandContext(ctx, self, ioWorkerArg, jobPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return ioWorkerReply{}, fmt.Errorf("worker %s: %w; its output:\n%s", jobPath, err, stderr.String())
	}
	var reply ioWorkerReply
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil {
		return ioWorkerReply{}, fmt.Errorf("worker %s printed %q: %w", jobPath, stdout.String(), err)
	}
	return reply, nil
}

// digest folds every batch of rr into d and releases rr.
func digest(rr array.RecordReader, g *digester, d *rowDigest) error {
	defer rr.Release()
	for rr.Next() {
		if err := g.add(rr.RecordBatch(), d); err != nil {
			return err
		}
	}
	return rr.Err()
}
