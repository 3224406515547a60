package ops

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
)

// A table whose sort order ReplaceSortOrder set: every file Append writes
// holds its rows in that order (two keys, a truncate, both directions and
// null orders), each manifest entry records the order's id, and the
// table's rows are the rows appended. Files appended before the order
// was set record none.
func TestAppendSortsByTheTableOrder(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, byBool, nil)
	appendInChunks(t, tbl, testtable.RandomRows(1, 200), 200)
	if _, err := tbl.Apply(ctx, new(action.ReplaceSortOrder).
		Asc("s", iceberg.TruncateTransform{Width: 2}, action.NullsLast).
		Desc("d", nil, action.NullsFirst).
		Asc("i", iceberg.BucketTransform{N: 3}, "")); err != nil {
		t.Fatal(err)
	}
	later := testtable.RandomRows(2, 1500)
	appendInChunks(t, tbl, later, 500)
	tbl = reopened(t, tbl)
	md := tbl.Metadata
	order := md.DefaultSortOrder()
	if md.DefaultSortOrderID != 1 || len(order.Fields) != 3 {
		t.Fatalf("default sort order %d: %+v", md.DefaultSortOrderID, order)
	}
	schema := md.CurrentSchema()
	var sortedRows [][]any
	sorted, unsorted := 0, 0
	for _, task := range liveFiles(t, tbl).Tasks {
		rows := rowstest.ReadFile(t, task.Path, schema)
		if id := task.File.SortOrderID; id == nil {
			unsorted++
			continue
		} else if *id != 1 {
			t.Fatalf("%s: sort_order_id %d, want 1", task.Path, *id)
		}
		sorted++
		rowstest.CheckSorted(t, task.Path, schema, order, rows)
		sortedRows = append(sortedRows, rows...)
	}
	// Three appends, each a file per partition (b true, false, null).
	if sorted < 6 || unsorted < 2 {
		t.Errorf("%d sorted and %d unsorted files", sorted, unsorted)
	}
	sortRows(schema, sortedRows)
	want := append([][]any{}, later...)
	sortRows(schema, want)
	rowstest.CompareRows(t, "rows of the sorted files", schema, want, sortedRows)
}
