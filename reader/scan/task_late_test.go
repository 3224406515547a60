package scan

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/prune"
)

// oneFileTable is a generated table of one file: 4000 rows (id 0..3999)
// in 8 row groups of 500 rows, pages of 100 rows.
func oneFileTable(t *testing.T) *table.Table {
	t.Helper()
	built, err := testtable.Build(t.TempDir(), testtable.Options{
		Rows: testtable.RandomRows(3, 4000), RowsPerFile: 4000, RowsPerRowGroup: 500, RowsPerPage: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), built.Location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// A filter added while a task runs applies from its next row group on.
func TestAddFilterReachesLaterRowGroupsOfARunningTask(t *testing.T) {
	ctx := context.Background()
	s, err := New(ctx, oneFileTable(t), Options{Columns: []string{"id"}, Threads: 1, BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var ids []int64
	for rr.Next() {
		ids = append(ids, rr.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
		if len(ids) == 100 {
			if err := s.AddFilter(textFilter("id >= 3000 or id = 700")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	// The first row group (ids 0..499) was under way: all of it comes;
	// then only the rows the filter accepts.
	want := 500 + 1 + 1000
	if len(ids) != want {
		t.Fatalf("%d rows, want %d", len(ids), want)
	}
	for _, id := range ids[500:] {
		if id < 3000 && id != 700 {
			t.Fatalf("id %d read after the filter was added", id)
		}
	}
}

// The conjunct that drops rows cheaply moves ahead of one that drops
// nothing, whatever order the filter was written in.
func TestConjunctsReorderByCostPerDroppedRow(t *testing.T) {
	// Pruning would skip the row groups past id 40 unread; this test is
	// about the rows that are read.
	saved := pruneOptions
	pruneOptions = prune.Options{}
	defer func() { pruneOptions = saved }()
	ctx := context.Background()
	s, err := New(ctx, oneFileTable(t), Options{
		Threads: 1, BatchSize: 100,
		Filter: textFilter("s not like 'no such prefix%' and id < 40"),
	})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.openTask(ctx, 0, s.Tasks()[0], memory.DefaultAllocator, StreamOptions{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Release()
	var rows int64
	for tr.Next() {
		rows += tr.RecordBatch().NumRows()
	}
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tr.conjuncts) != 2 {
		t.Fatalf("%d conjuncts, want 2", len(tr.conjuncts))
	}
	first, ok := tr.conjuncts[0].node.pred, tr.conjuncts[0].node.kind == filterPredicate
	if !ok || first.Name != "id" {
		t.Errorf("first conjunct after the scan is %s, want the id < 40 one", tr.conjuncts[0].node.pred)
	}
	if tr.conjuncts[0].dropped == 0 {
		t.Errorf("the id conjunct dropped nothing")
	}
	// Every row with id >= 40 is dropped by one conjunct or the other.
	if m := s.Metrics(); m.RowsFiltered+rows != 4000 {
		t.Errorf("rows_filtered %d + returned %d != 4000", m.RowsFiltered, rows)
	}
}

// _pos of the rows a filter keeps still names their position in the file:
// in oneFileTable's single file, row i has id i. The sparse filter is
// decoded value by value, the dense one whole and then filtered.
func TestFilteredScanKeepsFilePositions(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		filter string
		rows   int
	}{
		{"id = 700 or id >= 3990", 11},
		{"id not in (1, 2, 3, 501, 502, 3999)", 3994},
	} {
		s, err := New(ctx, oneFileTable(t), Options{Columns: []string{"id", "_pos"}, Threads: 1, BatchSize: 256, Filter: textFilter(c.filter)})
		if err != nil {
			t.Fatal(err)
		}
		rr, err := s.Reader(ctx, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for rr.Next() {
			rec := rr.RecordBatch()
			ids, pos := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
			for i := 0; i < ids.Len(); i++ {
				if ids.Value(i) != pos.Value(i) {
					t.Fatalf("%s: row with id %d has _pos %d", c.filter, ids.Value(i), pos.Value(i))
				}
			}
			rows += ids.Len()
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		if rows != c.rows {
			t.Errorf("%s: %d rows, want %d", c.filter, rows, c.rows)
		}
	}
}
