package main

import (
	"context"
	"sync"
	"time"

	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader"
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

// measureThreads times the full scan of the table on the local disk with
// one and two threads, batches in task order and in any order, best of
// repeat by wall time.
func measureThreads(ctx context.Context, tbl *lineitem.Table, full ioScan, repeat int) []ioThreadRun {
	var runs []ioThreadRun
	mallocator := newMallocator()
	for _, ordered := range []bool{true, false} {
		for _, threads := range []int{1, 2} {
			run := ioThreadRun{Threads: threads, Ordered: ordered}
			opts := reader.ScanOptions{Threads: threads, Ordered: &ordered}
			best, err := measureWall(repeat, func() (checksum, error) {
				sum, _, err := floeScanOnce(ctx, tbl.MetadataPath, table.Options{}, opts, mallocator)
				return sum, err
			})
			if err != nil {
				run.Status = "error: " + err.Error()
			} else {
				run.WallSeconds, run.CPUSeconds, run.Result = best.Wall.Seconds(), best.CPU.Seconds(), best.Result
				run.Status = checkResult(best.Result, full.Expected)
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
