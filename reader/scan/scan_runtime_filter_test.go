package scan

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

func openFixtureTable(t *testing.T, name string) *table.Table {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// A filter added while a scan runs applies to the tasks not yet started:
// impala_iceberg_partitioned has 20 one-row files, 10 with id > 10
// (INDEX.md).
func TestAddFilterTightensRunningScan(t *testing.T) {
	for _, threads := range []int{1, 3} {
		tbl := openFixtureTable(t, "impala_iceberg_partitioned")
		ctx := context.Background()
		s, err := New(ctx, tbl, Options{Columns: []string{"id"}, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rr, err := s.Reader(ctx, mem)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int32
		for rr.Next() {
			col := rr.RecordBatch().Column(0).(*array.Int32)
			ids = append(ids, col.Int32Values()...)
			if len(ids) == 1 {
				if err := s.AddFilter(textFilter("id > 10")); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		mem.AssertSize(t, 0)
		// Tasks already started when the filter came (at most tasksAhead
		// per thread run ahead of an ordered parallel scan's consumer) may
		// return their row unfiltered; every later one is filtered.
		early := threads
		if threads > 1 {
			early = tasksAhead * threads
		}
		var high, low int
		for i, id := range ids {
			switch {
			case id > 10:
				high++
			case i >= early:
				t.Errorf("threads=%d: row %d (id %d) was read after id > 10 was added", threads, i, id)
			default:
				low++
			}
		}
		if high != 10 {
			t.Errorf("threads=%d: %d rows with id > 10, want all 10", threads, high)
		}
		if m := s.Metrics(); m.RowsReturned != int64(len(ids)) || m.FilesPlanned != 20 {
			t.Errorf("threads=%d: metrics %+v, want rows_returned %d and files_planned 20", threads, m, len(ids))
		}
	}
}

func TestAddFilterBeforeReadingEqualsScanFilter(t *testing.T) {
	tbl := openFixtureTable(t, "impala_iceberg_partitioned")
	ctx := context.Background()
	count := func(s *Scan) int64 {
		rr, err := s.Reader(ctx, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var n int64
		for rr.Next() {
			n += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	s, err := New(ctx, tbl, Options{Filter: textFilter("id > 10")})
	if err != nil {
		t.Fatal(err)
	}
	added, err := New(ctx, tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := added.AddFilter(textFilter("action <> 'click'")); err != nil {
		t.Fatal(err)
	}
	if err := added.AddFilter(textFilter("id > 10")); err != nil {
		t.Fatal(err)
	}
	both, err := New(ctx, tbl, Options{Filter: textFilter("id > 10 and action <> 'click'")})
	if err != nil {
		t.Fatal(err)
	}
	if got := count(s); got != 10 {
		t.Errorf("id > 10: %d rows, INDEX.md says 10", got)
	}
	if got, want := count(added), count(both); got != want {
		t.Errorf("two added filters: %d rows, the same filter in the options gives %d", got, want)
	}
	// The ten one-row files with id <= 10 are ruled out by their metrics
	// before they are opened.
	if m := added.Metrics(); m.FilesSkipped != 10 || m.RowGroupsRead != 10 {
		t.Errorf("added filters: files_skipped %d, row_groups_read %d; want 10 and 10", m.FilesSkipped, m.RowGroupsRead)
	}
	// Tasks handed out after AddFilter (to be serialised and read
	// elsewhere) carry the added filters.
	task := added.Tasks()[0]
	bin, err := task.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalTask(bin)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := back.Reader(ctx, tbl.IO, memory.DefaultAllocator, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		id := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int32)
		for i := 0; i < id.Len(); i++ {
			if id.Value(i) <= 10 {
				t.Errorf("a serialised task returned id %d despite the added id > 10", id.Value(i))
			}
		}
	}
	if len(task.FilterFields) != 2 {
		t.Errorf("serialised task filters on %d columns, want id and action", len(task.FilterFields))
	}
}

func TestAddFilterRefusesBadFilters(t *testing.T) {
	tbl := openFixtureTable(t, "impala_iceberg_partitioned")
	s, err := New(context.Background(), tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"no_such_column = 1", "id = 'not a number'"} {
		if err := s.AddFilter(textFilter(bad)); !errors.Is(err, expr.ErrInvalidFilter) {
			t.Errorf("AddFilter(%q) = %v, want an ErrInvalidFilter", bad, err)
		}
	}
	if _, v := s.runtime.current(); v != 0 {
		t.Errorf("refused filters were recorded (version %d)", v)
	}
}
