package scan

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/internal/testtable"
)

// A plan of one file of many row groups is cut along them for a scan of
// two threads, so both have work; the rows come back as one thread reads
// them, in order and with their file positions; the task groups stay the
// same; a scan that sets its split size, or has one thread, is not cut.
func TestSmallPlanSpreadsOverThreads(t *testing.T) {
	built, tbl := splitTable(t, testtable.Options{
		Rows: testtable.RandomRows(7, 3000), RowsPerFile: 3000, RowsPerRowGroup: 100, RowsPerPage: 50, Manifests: 1,
		// The open cost bounds how small a range may be; a real file's
		// default (4 MiB) would leave this small one whole.
		Properties: map[string]string{"read.split.open-file-cost": "1"},
	})
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	read := func(opts Options) (*Scan, []idPos) {
		t.Helper()
		opts.Columns = []string{"id", "_pos"}
		s, err := New(ctx, tbl, opts)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := s.Reader(ctx, mem)
		if err != nil {
			t.Fatal(err)
		}
		return s, flatten(collect(t, rr))
	}
	one, want := read(Options{Threads: 1})
	if len(one.Tasks()) != 1 {
		t.Fatalf("one thread: %d tasks, want the one file", len(one.Tasks()))
	}
	positions := filePositions(built)
	for _, r := range want {
		if positions[r.id] != r.pos {
			t.Fatalf("row %d at position %d, written at %d", r.id, r.pos, positions[r.id])
		}
	}
	two, got := read(Options{Threads: 2})
	if n := len(two.Tasks()); n < 2*spreadTasksPerThread-1 || n > 2*spreadTasksPerThread+1 {
		t.Fatalf("two threads: %d tasks, want about %d", n, 2*spreadTasksPerThread)
	}
	if two.NumTaskGroups() != one.NumTaskGroups() {
		t.Errorf("task groups %d at two threads, %d at one", two.NumTaskGroups(), one.NumTaskGroups())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("two threads read %d rows, not one thread's %d in its order", len(got), len(want))
	}
	// The ranges parse the file's footer once between them: the reads the
	// file took are one thread's, not one footer read more a range.
	if r1, r2 := one.Metrics().Requests, two.Metrics().Requests; r2 != r1 || r1 == 0 {
		t.Errorf("two threads made %d reads of the file, one thread %d", r2, r1)
	}
	// Every range of the file reads its own row groups.
	var fromTasks []idPos
	for _, task := range two.Tasks() {
		fromTasks = append(fromTasks, readTask(t, task, tbl.IO, mem)...)
	}
	if !slices.Equal(fromTasks, want) {
		t.Fatalf("the ranges read %d rows, not the file's %d", len(fromTasks), len(want))
	}
	if set, _ := read(Options{Threads: 2, SplitSize: 1 << 30}); len(set.Tasks()) != 1 {
		t.Errorf("a scan's own split size: %d tasks, want 1", len(set.Tasks()))
	}
	if _, limited := read(Options{Threads: 2, Limit: ptr(int64(150))}); len(limited) != 150 {
		t.Errorf("limit 150 over the ranges: %d rows", len(limited))
	}
}
