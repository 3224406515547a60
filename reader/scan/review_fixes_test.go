package scan

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
)

// Next after the end keeps answering false instead of reading past the
// last row group.
func TestTaskReaderNextAfterEnd(t *testing.T) {
	s := openScan(t, "duckdb_lineitem_iceberg", Options{})
	rr, err := s.Tasks()[0].Reader(context.Background(), fileio.Local{}, memory.DefaultAllocator, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
	}
	for range 3 {
		if rr.Next() {
			t.Fatal("Next returned a batch after the end")
		}
	}
	if rr.Err() != nil {
		t.Fatal(rr.Err())
	}
}

// A parallel scan whose context is cancelled midway reports the
// cancellation instead of ending as if it had read everything.
func TestCancelledParallelScanReportsIt(t *testing.T) {
	unordered := false
	for _, opts := range []Options{
		{Threads: 2, SplitSize: 1, BatchSize: 1},
		{Threads: 2, SplitSize: 1, BatchSize: 1, Ordered: &unordered},
	} {
		s := openScan(t, "impala_iceberg_v3_deletion_vectors", opts)
		ctx, cancel := context.WithCancel(context.Background())
		rr, err := s.Reader(ctx, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		if !rr.Next() {
			t.Fatalf("no first batch: %v", rr.Err())
		}
		cancel()
		for rr.Next() {
		}
		if !errors.Is(rr.Err(), context.Canceled) {
			t.Errorf("ordered=%v: a cancelled scan ended with error %v", opts.Ordered == nil, rr.Err())
		}
		rr.Release()
	}
}

// Needed merges touching ranges only up to maxHostRange.
func TestHostRangesAreCapped(t *testing.T) {
	h := &hostFiles{sizes: map[string]int64{"f": 200 << 20}, filled: map[string][]filledRange{}}
	for i := range 3 {
		h.want("f", int64(i)*(40<<20), 40<<20)
	}
	got := h.roundMissing()
	if len(got) != 3 {
		t.Fatalf("three touching 40 MiB ranges became %v", got)
	}
	h.startRound()
	h.want("f", 0, 1<<20)
	h.want("f", 1<<20, 1<<20)
	if got := h.roundMissing(); len(got) != 1 || got[0].Length != 2<<20 {
		t.Fatalf("two touching 1 MiB ranges became %v", got)
	}
}
