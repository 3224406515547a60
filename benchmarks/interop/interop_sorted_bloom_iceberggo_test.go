package interop

import (
	"context"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
)

// A table with a sort order and bloom filters, written through
// writer.TableOptions (as floe's appends are): iceberg-go reads the same
// rows, and its plan shows every data file's sort_order_id.
func TestFloeSortedBloomTableReadByIcebergGo(t *testing.T) {
	ctx := context.Background()
	order := &iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		{SourceID: 4, Transform: iceberg.TruncateTransform{Width: 3}, Direction: "asc", NullOrder: "nulls-last"},
		{SourceID: 3, Transform: iceberg.IdentityTransform{}, Direction: "desc", NullOrder: "nulls-first"},
	}}
	props := map[string]string{
		writer.PropBloomColumnPrefix + "id": "true", writer.PropBloomColumnPrefix + "s": "true",
		writer.PropRowGroupSize: "32768",
	}
	spec := bucketDaySpec()
	tbl, err := table.Create(ctx, fileio.Local{}, t.TempDir(), testSchema(), spec, order, props, 2)
	if err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata
	opts, err := writer.TableOptions(md, md.CurrentSchema())
	if err != nil || opts.SortOrder == nil || len(opts.BloomFilters) != 2 {
		t.Fatalf("table options: order %v, bloom %v, %v", opts.SortOrder, opts.BloomFilters, err)
	}
	rows := makeRows(3, 0, 4000)
	w, err := writer.New(ctx, tbl.IO, writer.DataLocation(md), md.CurrentSchema(), md.DefaultSpec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := batch(t, rows)
	err = w.Write(rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl, err = table.Open(ctx, md.Location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readWithIcebergGo(t, tbl.MetadataLocation)
	if err != nil {
		t.Fatalf("iceberg-go read: %v", err)
	}
	assertSameRows(t, expectedKeys(rows), rowKeys(t, got))

	peer, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"interop", "t"}, tbl.MetadataLocation,
		icebergio.LoadFSFunc(nil, tbl.MetadataLocation), nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := peer.Scan().PlanFiles(ctx)
	if err != nil || len(tasks) != len(files) {
		t.Fatalf("iceberg-go planned %d files of %d: %v", len(tasks), len(files), err)
	}
	for _, task := range tasks {
		if id := task.File.SortOrderID(); id == nil || *id != 1 {
			t.Errorf("%s: iceberg-go sees sort_order_id %v, want 1", task.File.FilePath(), id)
		}
	}
}
