package scan

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// A stream's own batch size bounds its batches, whatever the scan's, on
// the sequential, ordered parallel and unordered readers, and the rows
// are the scan's own (4000 rows in four files of four row groups).
func TestReaderWithTheStreamsOwnBatchSize(t *testing.T) {
	built, err := testtable.Build(t.TempDir(), testtable.Options{Rows: testtable.RandomRows(3, 4000), RowsPerFile: 1000, RowsPerRowGroup: 250, Manifests: 1})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ordered, unordered := true, false
	for _, opts := range []Options{
		{Threads: 1, BatchSize: 100},
		{Threads: 2, BatchSize: 100, Ordered: &ordered},
		{Threads: 2, BatchSize: 100, Ordered: &unordered},
	} {
		opts.Columns = []string{"id", "_pos"}
		s, err := New(ctx, tbl, opts)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := s.Reader(ctx, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		want, sizes := batchSizes(t, rr)
		if slices.Max(sizes) != 100 {
			t.Fatalf("threads %d: the scan's batches hold up to %d rows, want 100", opts.Threads, slices.Max(sizes))
		}
		for _, size := range []int{200, 1 << 20} {
			rr, err := s.ReaderWith(ctx, memory.DefaultAllocator, StreamOptions{BatchSize: size})
			if err != nil {
				t.Fatal(err)
			}
			got, sizes := batchSizes(t, rr)
			if slices.Max(sizes) > size || slices.Max(sizes) <= 100 {
				t.Fatalf("threads %d, batch size %d: batches of up to %d rows", opts.Threads, size, slices.Max(sizes))
			}
			if opts.Ordered != nil && !*opts.Ordered {
				slices.SortFunc(got, func(a, b idPos) int { return int(a.id - b.id) })
				slices.SortFunc(want, func(a, b idPos) int { return int(a.id - b.id) })
			}
			if !slices.Equal(got, want) || len(got) != 4000 {
				t.Fatalf("threads %d, batch size %d: %d rows differ from the scan's %d", opts.Threads, size, len(got), len(want))
			}
		}
	}
	s, err := New(ctx, tbl, Options{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReaderWith(ctx, memory.DefaultAllocator, StreamOptions{BatchSize: -1}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("batch size -1: %v, want InvalidArgument", err)
	}
}
