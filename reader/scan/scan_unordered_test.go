package scan

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/internal/testtable"
)

func scanBatches(t *testing.T, s *Scan, mem memory.Allocator) [][]idPos {
	t.Helper()
	rr, err := s.Reader(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	return collect(t, rr)
}

// A parallel scan of split and packed tasks returns the one-thread scan's
// batches in its order by default; unordered, the same rows in any order,
// and with a limit as many rows as the limit allows, none twice.
func TestParallelOrderAndUnordered(t *testing.T) {
	built, tbl := splitTable(t, testtable.Options{
		Rows: testtable.RandomRows(23, 6000), RowsPerFile: 1500, RowsPerRowGroup: 100, RowsPerPage: 25, Manifests: 2,
	})
	positions := filePositions(built)
	ctx := context.Background()
	base := Options{Columns: []string{"id", "_pos"}, BatchSize: 64, Threads: 1}
	probe, err := New(ctx, tbl, base)
	if err != nil {
		t.Fatal(err)
	}
	base.SplitSize = probe.Tasks()[0].FileSize / 4
	serialScan, err := New(ctx, tbl, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(serialScan.Tasks()) < 12 {
		t.Fatalf("%d tasks, want the 4 files split", len(serialScan.Tasks()))
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	serial := scanBatches(t, serialScan, mem)
	rows := flatten(serial)
	if len(rows) != 6000 {
		t.Fatalf("%d rows, want 6000", len(rows))
	}
	for _, r := range rows {
		if r.pos != positions[r.id] {
			t.Fatalf("id %d at _pos %d, want %d", r.id, r.pos, positions[r.id])
		}
	}
	sorted := slices.SortedFunc(slices.Values(rows), byID)
	no := false
	for _, threads := range []int{2, 3, 8} {
		o := base
		o.Threads = threads
		s, err := New(ctx, tbl, o)
		if err != nil {
			t.Fatal(err)
		}
		got := scanBatches(t, s, mem)
		if !slices.EqualFunc(got, serial, slices.Equal) {
			t.Errorf("%d threads, ordered: %d batches differ from the one-thread scan's %d", threads, len(got), len(serial))
		}
		o.Ordered = &no
		s, err = New(ctx, tbl, o)
		if err != nil {
			t.Fatal(err)
		}
		unordered := flatten(scanBatches(t, s, mem))
		if !slices.Equal(slices.SortedFunc(slices.Values(unordered), byID), sorted) {
			t.Errorf("%d threads, unordered: %d rows, not the scan's %d", threads, len(unordered), len(rows))
		}
		for _, limit := range []int64{0, 1, 100, 5999} {
			o.Limit = &limit
			s, err = New(ctx, tbl, o)
			if err != nil {
				t.Fatal(err)
			}
			got := flatten(scanBatches(t, s, mem))
			seen := map[int64]bool{}
			for _, r := range got {
				if seen[r.id] || r.pos != positions[r.id] {
					t.Fatalf("%d threads, unordered, limit %d: row %v twice or misplaced", threads, limit, r)
				}
				seen[r.id] = true
			}
			if int64(len(got)) != limit {
				t.Errorf("%d threads, unordered, limit %d: %d rows", threads, limit, len(got))
			}
		}
		o.Limit = nil
	}
}

// Releasing an unordered stream mid-way stops its workers and frees every
// batch they had decoded.
func TestUnorderedReleaseMidway(t *testing.T) {
	_, tbl := splitTable(t, testtable.Options{Rows: testtable.RandomRows(29, 4000), RowsPerFile: 500, RowsPerRowGroup: 100})
	no := false
	s, err := New(context.Background(), tbl, Options{Columns: []string{"id", "_pos"}, BatchSize: 10, Threads: 4, Ordered: &no})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, take := range []int{0, 1, 7} {
		rr, err := s.Reader(context.Background(), mem)
		if err != nil {
			t.Fatal(err)
		}
		for range take {
			if !rr.Next() {
				t.Fatal(rr.Err())
			}
		}
		rr.Release()
	}
}

func byID(a, b idPos) int { return int(a.id - b.id) }
