package main

import (
	"context"
	"sync"
	"time"

	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// ioThreadRun is one local full scan of part 3.
type ioThreadRun struct {
	Threads     int      `json:"threads"`
	Ordered     bool     `json:"ordered"`
	Status      string   `json:"status"`
	WallSeconds float64  `json:"wall_s,omitempty"`
	CPUSeconds  float64  `json:"cpu_s,omitempty"`
	Result      checksum `json:"result"`
}

// threadRounds is the fewest rounds the thread comparison runs: on a
// noisy VM the best of three still varied by a tenth between runs.
const threadRounds = 5

// measureThreads times the full scan of the table on the local disk with
// one and two threads, batches in task order and in any order, best of
// max(repeat, threadRounds) by wall time. The two thread counts alternate
// within each round, so a slow spell of the machine falls on both rather
// than on one side of the ratio.
func measureThreads(ctx context.Context, tbl *lineitem.Table, full ioScan, repeat int) []ioThreadRun {
	var runs []ioThreadRun
	mallocator := newMallocator()
	for _, ordered := range []bool{true, false} {
		threads := []int{1, 2}
		scans := make([]func() (sample, error), len(threads))
		for i, n := range threads {
			opts := scan.Options{Threads: n, Ordered: &ordered}
			scans[i] = func() (sample, error) {
				return measureWall(1, func() (checksum, error) {
					sum, _, err := floeScanOnce(ctx, tbl.MetadataPath, table.Options{}, opts, mallocator)
					return sum, err
				})
			}
		}
		best, errs := roundRobin(max(repeat, threadRounds), scans, func(a, b sample) bool { return a.Wall < b.Wall })
		for i, n := range threads {
			run := ioThreadRun{Threads: n, Ordered: ordered}
			if errs[i] != nil {
				run.Status = "error: " + errs[i].Error()
			} else {
				b := best[i]
				run.WallSeconds, run.CPUSeconds, run.Result = b.Wall.Seconds(), b.CPU.Seconds(), b.Result
				run.Status = checkResult(b.Result, full.Expected)
			}
			runs = append(runs, run)
		}
	}
	return runs
}

// spinSink keeps the spin loops' results alive.
var spinSink uint64

// machineSpeedup is how much faster this machine, at this moment, runs
// two goroutines' fixed work than one's, each spinning on arithmetic
// alone: 2.0 on two idle cores, about 1.0 when other work takes one. It
// tells whether a floe speed-up short of the target is floe's or the
// machine's. Best of three of each.
func machineSpeedup() float64 {
	spin := func(goroutines int) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			for range goroutines {
				wg.Go(func() {
					x := uint64(1)
					for range 200_000_000 {
						x = x*6364136223846793005 + 1442695040888963407
					}
					mu.Lock()
					spinSink += x
					mu.Unlock()
				})
			}
			wg.Wait()
			best = min(best, time.Since(start))
		}
		return best
	}
	one := spin(1)
	two := spin(2)
	return 2 * one.Seconds() / two.Seconds()
}
