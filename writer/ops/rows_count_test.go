package ops

import (
	"context"
	"fmt"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// Result.DeletedRows is exactly the rows a change took out of the table
// when deletes by either mode follow each other on the same files:
// position delete files (one per file and shared per partition), deletion
// vectors, files selected whole some of whose rows were deleted before,
// and an overwrite that also adds rows. What the table lost is counted by
// reading it before and after.
func TestDeletedRowsAreExact(t *testing.T) {
	perPartition := map[string]string{PropDeleteGranularity: "partition"}
	cases := []struct {
		version int
		spec    *iceberg.PartitionSpec
		props   map[string]string
		modes   []DeleteMode
	}{
		{2, nil, nil, []DeleteMode{MergeOnRead, CopyOnWrite}},
		{2, nil, nil, []DeleteMode{CopyOnWrite, MergeOnRead}},
		{2, byBool, perPartition, []DeleteMode{MergeOnRead, CopyOnWrite}},
		{2, nil, perPartition, []DeleteMode{MergeOnRead, MergeOnRead}},
		{3, nil, nil, []DeleteMode{MergeOnRead, CopyOnWrite}},
		{3, byBool, nil, []DeleteMode{CopyOnWrite, MergeOnRead}},
		{3, nil, nil, []DeleteMode{MergeOnRead, MergeOnRead}},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("v%d/%s-then-%s/partitioned=%v/%v", tc.version, tc.modes[0], tc.modes[1], tc.spec != nil, tc.props)
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, tc.version, tc.spec, tc.props)
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(5, 400)
			appendInChunks(t, tbl, rows, 100)
			steps := deleteSteps(t, rows)
			// Finally every row: each file selected whole, most with rows
			// deleted before.
			steps = append(steps, rowDelete{filter: expr.AlwaysTrue{}, deletes: func([]any) bool { return true }})
			want := keepRows(schema, rows, func([]any) bool { return false })
			for k, step := range steps {
				mode := tc.modes[k%2]
				next := keepRows(schema, want, step.deletes)
				res, err := DeleteRows(ctx, tbl, step.filter, RowOptions{Mode: mode})
				if err != nil {
					t.Fatalf("step %d (%s): %v", k, mode, err)
				}
				checkRows(t, fmt.Sprintf("after step %d", k), tbl, next)
				if got, lost := res.DeletedRows, int64(len(want)-len(next)); got != lost {
					t.Errorf("step %d (%s): DeletedRows %d, the table lost %d", k, mode, got, lost)
				}
				want = next
			}

			// An overwrite: the rows it adds are not deleted rows.
			appendInChunks(t, tbl, rows[:150], 50)
			if _, err := DeleteRows(ctx, tbl, steps[0].filter, RowOptions{Mode: tc.modes[0]}); err != nil {
				t.Fatal(err)
			}
			before := len(tableRows(t, tbl.MetadataLocation, table.Options{}))
			rr := rowsReader(t, tbl, rows[:7])
			res, err := OverwriteRows(ctx, tbl, steps[1].filter, rr, RowOptions{Mode: tc.modes[1]})
			rr.Release()
			if err != nil {
				t.Fatal(err)
			}
			if got, lost := res.DeletedRows, int64(before+7-len(tableRows(t, tbl.MetadataLocation, table.Options{}))); got != lost || got == 0 {
				t.Errorf("overwrite: DeletedRows %d, the table lost %d of its rows", got, lost)
			}
		})
	}
}
