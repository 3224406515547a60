package writer

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/rowstest"
)

// Options.RowOrder: the writer holds the batches as for a sort order and
// writes each partition's rows in the order the function leaves them,
// recording no sort order; with a sort order too it is refused.
func TestRowOrderHook(t *testing.T) {
	schema := sortSchema()
	rows := sortRowsInput(2, 500)
	opts := DefaultOptions()
	calls := 0
	opts.RowOrder = func(rec arrow.RecordBatch, rows []int32) error {
		calls++
		ids := rec.Column(0).(*array.Int64).Int64Values()
		// descending id
		for i := 1; i < len(rows); i++ {
			for j := i; j > 0 && ids[rows[j]] > ids[rows[j-1]]; j-- {
				rows[j], rows[j-1] = rows[j-1], rows[j]
			}
		}
		return nil
	}
	dir := t.TempDir()
	w := sortedWriter(t, dir, nil, opts)
	files := rowstest.WriteRecords(t, w, schema, rows, 64) // many batches, one run at Close
	if len(files) != 1 || files[0].SortOrderID != nil || calls != 1 {
		t.Fatalf("%d files, sort order %v, %d calls", len(files), files[0].SortOrderID, calls)
	}
	got := rowstest.ReadFile(t, files[0].FilePath, schema)
	if len(got) != len(rows) {
		t.Fatalf("%d rows, want %d", len(got), len(rows))
	}
	for i := 1; i < len(got); i++ {
		if got[i-1][0].(int64) < got[i][0].(int64) {
			t.Fatalf("row %d: id %v after %v", i, got[i][0], got[i-1][0])
		}
	}
	opts.SortOrder = &iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{{SourceID: 1, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first"}}}
	if _, err := New(context.Background(), fileio.Local{}, dir, schema, nil, opts); errkind.Of(err) != errkind.InvalidArgument {
		t.Fatalf("sort order and row order: %v", err)
	}
}
