package scan

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floedb/floe/iceberg/fileio"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/internal/testtable"
)

// A parallel scan with a limit the first file covers decodes that file
// alone; a filter added after planning that empties the first files
// still lets the later ones start, so the limit is still reached.
func TestParallelLimitStartsOnlyWhatItNeeds(t *testing.T) {
	_, tbl := splitTable(t, testtable.Options{
		Rows: testtable.RandomRows(5, 4000), RowsPerFile: 1000, RowsPerRowGroup: 250, Manifests: 1,
	})
	ctx := context.Background()
	limit := int64(300)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	unordered := false
	for _, run := range []struct {
		threads int
		ordered *bool
	}{{1, nil}, {2, nil}, {4, nil}, {2, &unordered}, {4, &unordered}} {
		threads := run.threads
		counted := &dataOpenCounter{FileIO: tbl.IO}
		tbl.IO = counted
		s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, Threads: threads, Limit: &limit, Ordered: run.ordered})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Tasks()) != 4 {
			t.Fatalf("%d tasks, want 4 files", len(s.Tasks()))
		}
		if rows := flatten(scanBatches(t, s, mem)); len(rows) != int(limit) {
			t.Fatalf("%d threads: %d rows, want %d", threads, len(rows), limit)
		}
		// Released by scanBatches: the counters are final (files opened
		// ahead and never taken are not counted in them). Started
		// ahead, a second file would have been read and decoded too.
		if m := s.Metrics(); m.BytesRead > s.Tasks()[0].FileSize || m.RowsReturned != limit {
			t.Errorf("%d threads (ordered %v): %d bytes read and %d rows decoded for a limit of %d rows the first file (%d bytes) holds", threads, run.ordered == nil, m.BytesRead, m.RowsReturned, limit, s.Tasks()[0].FileSize)
		}
		if n := counted.dataOpens.Load(); n != 1 {
			t.Errorf("%d threads (ordered %v): %d data files opened (ahead included), want the first alone", threads, run.ordered == nil, n)
		}
		tbl.IO = counted.FileIO
	}

	// A filter added once the scan runs may empty the files the limit
	// counted on: the consumer then reaches the later files and they
	// start (whichever way the race goes, the limit is reached). Added
	// before the scan runs, it rules the first files out.
	for _, early := range []bool{true, false} {
		for _, ordered := range []*bool{nil, &unordered} {
			s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, Threads: 2, Limit: &limit, Ordered: ordered})
			if err != nil {
				t.Fatal(err)
			}
			filter, err := expr.ParseFilter("id >= 3000")
			if err != nil {
				t.Fatal(err)
			}
			if early {
				if err := s.AddFilter(filter); err != nil {
					t.Fatal(err)
				}
			}
			rr, err := s.Reader(ctx, mem)
			if err != nil {
				t.Fatal(err)
			}
			if !early {
				if err := s.AddFilter(filter); err != nil {
					t.Fatal(err)
				}
			}
			rows := flatten(collect(t, rr))
			if len(rows) != int(limit) {
				t.Fatalf("filter added early %v: %d rows, want %d", early, len(rows), limit)
			}
			for _, r := range rows {
				if early && r.id < 3000 {
					t.Fatalf("id %d passed the added filter", r.id)
				}
			}
		}
	}
}

// dataOpenCounter counts the data files opened through it.
type dataOpenCounter struct {
	fileio.FileIO
	dataOpens atomic.Int64
}

func (c *dataOpenCounter) Open(ctx context.Context, path string) (fileio.File, error) {
	if strings.HasSuffix(path, ".parquet") {
		c.dataOpens.Add(1)
	}
	return c.FileIO.Open(ctx, path)
}
