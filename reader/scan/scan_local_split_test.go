package scan

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/internal/testtable"
)

// Local pieces tile their task's range, cut only at row-group starts
// inside it (never at the first, before which lies only the magic), and
// group row groups up to the size.
func TestSplitRangePieces(t *testing.T) {
	offsets := []int64{4, 400, 800, 1200, 1600, 2400}
	cases := []struct {
		name                string
		start, length, size int64
		fileSize            int64
		offsets             []int64
		want                []byteSplit
	}{
		{"whole file", 0, 2500, 1000, 2500, offsets, []byteSplit{{0, 800}, {800, 800}, {1600, 900}}},
		{"one row group each", 0, 2500, 1, 2500, offsets, []byteSplit{{0, 400}, {400, 400}, {800, 400}, {1200, 400}, {1600, 800}, {2400, 100}}},
		{"a planned split", 800, 1600, 500, 2500, offsets, []byteSplit{{800, 400}, {1200, 400}, {1600, 800}}},
		{"small enough", 0, 2500, 2500, 2500, offsets, []byteSplit{{0, 2500}}},
		{"no offsets", 0, 2500, 100, 2500, nil, []byteSplit{{0, 2500}}},
		{"unusable offsets", 0, 2500, 100, 2500, []int64{4, 1200, 800}, []byteSplit{{0, 2500}}},
	}
	for _, c := range cases {
		got := splitRange(c.start, c.length, c.fileSize, c.offsets, c.size)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A scan read here by several threads cuts its tasks into pieces along
// row groups, yet returns what one thread returns, in the same order
// when ordered; the tasks it hands to other processes stay as planned,
// and a limited scan is not cut.
func TestLocalSplitsReadAsPlanned(t *testing.T) {
	defer func(old int64) { minLocalSplit = old }(minLocalSplit)
	minLocalSplit = 1
	_, tbl := splitTable(t, testtable.Options{
		Rows: testtable.RandomRows(17, 4500), RowsPerFile: 1500, RowsPerRowGroup: 100, RowsPerPage: 30, Manifests: 1,
	})
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	unordered := false
	for _, filter := range []string{"", "id >= 1000 and id < 3500"} {
		opts := func(threads int, ordered *bool) Options {
			o := Options{Columns: []string{"id", "_pos"}, Threads: threads, Ordered: ordered}
			if filter != "" {
				var err error
				if o.Filter, err = expr.ParseFilter(filter); err != nil {
					t.Fatal(err)
				}
			}
			return o
		}
		one, err := New(ctx, tbl, opts(1, nil))
		if err != nil {
			t.Fatal(err)
		}
		rr, err := one.Reader(ctx, mem)
		if err != nil {
			t.Fatal(err)
		}
		want := flatten(collect(t, rr))
		if len(want) == 0 {
			t.Fatalf("filter %q: one thread read no rows", filter)
		}
		for _, ordered := range []*bool{nil, &unordered} {
			two, err := New(ctx, tbl, opts(2, ordered))
			if err != nil {
				t.Fatal(err)
			}
			if len(two.tasks) <= len(two.Tasks()) {
				t.Fatalf("filter %q: %d local tasks for %d planned, want them cut finer", filter, len(two.tasks), len(two.Tasks()))
			}
			if !samePlan(one.Tasks(), two.Tasks()) {
				t.Fatalf("filter %q: the tasks handed out depend on the local thread count", filter)
			}
			rr, err := two.Reader(ctx, mem)
			if err != nil {
				t.Fatal(err)
			}
			got := flatten(collect(t, rr))
			if ordered == nil {
				if !slices.Equal(got, want) {
					t.Fatalf("filter %q: two threads, ordered, read %d rows unlike one thread's %d", filter, len(got), len(want))
				}
				continue
			}
			byID := func(a, b idPos) int { return int(a.id - b.id) }
			slices.SortFunc(got, byID)
			sorted := slices.SortedFunc(slices.Values(want), byID)
			if !slices.Equal(got, sorted) {
				t.Fatalf("filter %q: two threads, unordered, read %d rows unlike one thread's %d", filter, len(got), len(want))
			}
		}
	}
	limit := int64(10)
	limited, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, Threads: 2, Limit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(limited.tasks) != len(limited.Tasks()) {
		t.Fatalf("a limited scan was cut into %d local tasks from %d", len(limited.tasks), len(limited.Tasks()))
	}
}

// samePlan compares tasks by what they read.
func samePlan(a, b []*Task) bool {
	return slices.EqualFunc(a, b, func(x, y *Task) bool {
		return x.Path == y.Path && x.Start == y.Start && x.Length == y.Length
	})
}
