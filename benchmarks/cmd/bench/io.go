package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
	"github.com/floedb/floe/reader/scan"
)

// The I/O section (go run ./cmd/bench -io) measures how floe reads rather
// than how fast it decodes, on the lineitem table:
//
//  1. requests: the table uploaded to a local S3 server (versitygw) and
//     read through a proxy that counts requests and bytes; a full scan, a
//     two-column scan and a selective filtered scan, each with floe's
//     coalescing of neighbouring column chunks and without it (one request
//     per column chunk), counted at the proxy and by floe's own metrics;
//  2. latency: the proxy adds a delay to every request, as a remote store
//     does; floe and iceberg-go v0.7.0 (which makes one GET per column
//     chunk) read the same S3 table, every core each;
//  3. threads: full scans of the table on the local disk with one thread
//     and with two, batches in order and in any order;
//  4. processes: the scan planned once, its task groups serialised and
//     read by worker processes (this program, re-run), whose digests of
//     every value must add up to the single-process scan's.
//
// Timed scans consume batches lightly (rows and sum(l_partkey)) so the
// time is the reader's; every result is checked against the generator's
// answer.
var (
	ioOnly  = flag.Bool("io", false, "run only the I/O section: S3 requests with and without coalescing, floe vs iceberg-go behind a per-request delay, 1 vs 2 threads on the local disk, and one scan split over worker processes")
	ioJSON  = flag.String("io-json", "results/latest-io.json", "where to write the I/O section's results; the printed report goes next to it as .txt (empty: nowhere)")
	ioDelay = flag.Duration("io-delay", 20*time.Millisecond, "delay the proxy adds to every S3 request in the latency comparison")
)

// ioSpeedupTarget is the target for two threads over one.
const ioSpeedupTarget = 1.8

// ioWorkerCount is how many worker processes share the scan.
const ioWorkerCount = 2

// ioScan is one scan of the section.
type ioScan struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns,omitempty"`
	// Filter is floe's row_filter text, "" for none.
	Filter   string            `json:"filter,omitempty"`
	Expected lineitem.Expected `json:"expected"`
}

func (s ioScan) options() (scan.Options, error) {
	opts := scan.Options{Columns: s.Columns}
	if s.Filter != "" {
		e, err := expr.ParseFilter(s.Filter)
		if err != nil {
			return opts, err
		}
		opts.Filter = e
	}
	return opts, nil
}

// ioScans are the full, two-column and filtered scans with their answers,
// worked out by replaying the generator. The filter is the filter
// section's clustered 1 %: a range of the column the files are sorted by.
func ioScans(p lineitem.Params) ([]ioScan, error) {
	lo, hi, err := lineitem.ClusteredOrderKeys(p, 0.01)
	if err != nil {
		return nil, err
	}
	expected, err := lineitem.ExpectedWhere(p,
		func(lineitem.FilterRow) bool { return true },
		func(r lineitem.FilterRow) bool { return r.OrderKey >= lo && r.OrderKey < hi })
	if err != nil {
		return nil, err
	}
	return []ioScan{
		{Name: "full", Expected: expected[0]},
		{Name: "2-col", Columns: twoColumns, Expected: expected[0]},
		{Name: "filtered", Filter: fmt.Sprintf("l_orderkey >= %d and l_orderkey < %d", lo, hi), Expected: expected[1]},
	}, nil
}

// ioConfig is what one run of the section does.
type ioConfig struct {
	repeat  int
	delay   time.Duration
	workers int
}

// runIOSection measures, prints and saves the I/O section; false when a
// part could not run or floe returned a wrong answer.
func runIOSection(tbl *lineitem.Table, repeat int, logf func(string, ...any)) bool {
	cfg := ioConfig{repeat: repeat, delay: *ioDelay, workers: ioWorkerCount}
	res, err := measureIO(context.Background(), tbl, cfg, logf)
	if err != nil {
		logf("bench: %v", err)
		return false
	}
	if !publish("I/O", *ioJSON, res, logf) {
		return false
	}
	return res.floeOK()
}

// measureIO runs the four parts. A part that cannot run (no versitygw)
// is reported in the results, not returned as an error.
func measureIO(ctx context.Context, tbl *lineitem.Table, cfg ioConfig, logf func(string, ...any)) (*ioResults, error) {
	scans, err := ioScans(tbl.Params)
	if err != nil {
		return nil, err
	}
	_, dataBytes, err := tableSize(tbl)
	if err != nil {
		return nil, err
	}
	res := &ioResults{
		Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), Repeat: cfg.repeat, LoadAverage: loadAverage(),
		Table: tbl.Params, DataBytes: dataBytes, Scans: scans, DelayMs: float64(cfg.delay) / float64(time.Millisecond),
		Ratios: map[string]string{},
	}

	logf("io: local full scans, 1 and 2 threads ...")
	res.MachineSpeedup = append(res.MachineSpeedup, machineSpeedup())
	res.Threads = measureThreads(ctx, tbl, scans[0], cfg.repeat)
	res.MachineSpeedup = append(res.MachineSpeedup, machineSpeedup())

	logf("io: one scan split over %d worker processes ...", cfg.workers)
	res.Processes = measureProcesses(ctx, tbl, cfg.workers, dataBytes)

	logf("io: starting versitygw and uploading the table ...")
	store, err := startIOStore(ctx, tbl)
	if err != nil {
		res.S3Status = "not run: " + err.Error()
		if errors.Is(err, s3test.ErrNoVersitygw) {
			res.S3Status = "not run: versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)"
		}
	} else {
		defer store.close()
		res.S3Status = "ok"
		logf("io: counting S3 requests ...")
		res.Requests = measureRequests(ctx, store.proxy, store.mappedMetadata, store.floeOptions(true), scans)
		logf("io: S3 with %v per request: floe and iceberg-go ...", cfg.delay)
		res.Latency = measureLatency(ctx, store, scans, cfg, logf)
	}
	logf("io: counting GCS requests ...")
	res.Stores = append(res.Stores, measureGCSRequests(ctx, tbl, scans))
	logf("io: counting Azure requests ...")
	res.Stores = append(res.Stores, measureAzureRequests(ctx, tbl, scans))
	res.LoadAverageEnd = loadAverage()
	res.judge()
	return res, nil
}

// floeScanOnce opens the table at location and reads it once with opts,
// counting rows and sum(l_partkey).
func floeScanOnce(ctx context.Context, location string, topts table.Options, opts scan.Options, alloc memory.Allocator) (checksum, scan.Metrics, error) {
	t, err := table.Open(ctx, location, topts)
	if err != nil {
		return checksum{}, scan.Metrics{}, err
	}
	sc, err := scan.New(ctx, t, opts)
	if err != nil {
		return checksum{}, scan.Metrics{}, err
	}
	rr, err := sc.Reader(ctx, alloc)
	if err != nil {
		return checksum{}, scan.Metrics{}, err
	}
	defer rr.Release()
	var sum checksum
	for rr.Next() {
		countRecord(rr.RecordBatch(), &sum)
	}
	return sum, sc.Metrics(), rr.Err()
}

// measureWall runs fn repeat times and keeps the run with the least wall
// time (what a reader waiting on storage or on several cores is judged
// by), with that run's CPU time.
func measureWall(repeat int, fn func() (checksum, error)) (sample, error) {
	var best sample
	for i := range max(repeat, 1) {
		runtime.GC()
		user0, sys0 := processCPU()
		start := time.Now()
		sum, err := fn()
		wall := time.Since(start)
		user1, sys1 := processCPU()
		if err != nil {
			return sample{}, err
		}
		if i == 0 || wall < best.Wall {
			best = sample{CPU: user1 - user0 + sys1 - sys0, SysCPU: sys1 - sys0, Wall: wall, Result: sum}
		}
	}
	return best, nil
}

// checkResult is "ok" when got is the expected answer, else "WRONG: …".
func checkResult(got checksum, want lineitem.Expected) string {
	if got.Rows != want.Rows || got.SumPartKey != want.SumPartKey {
		return fmt.Sprintf("WRONG: %v, want %d rows, sum(l_partkey) %d", got, want.Rows, want.SumPartKey)
	}
	return "ok"
}

// loadAverage is the one-minute load average, so a reader of the results
// can tell a quiet machine from a busy one; "" where unknown.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return ""
}
