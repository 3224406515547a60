package interop

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// readWithIcebergGo scans the table whose metadata file is metadataPath
// with iceberg-go, as a static table (no catalog).
func readWithIcebergGo(t *testing.T, metadataPath string) ([]arrow.RecordBatch, error) {
	t.Helper()
	ctx := context.Background()
	tbl, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"interop", "t"}, metadataPath,
		icebergio.LoadFSFunc(nil, metadataPath), nil)
	if err != nil {
		return nil, err
	}
	_, records, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		return nil, err
	}
	var out []arrow.RecordBatch
	for rec, err := range records {
		if err != nil {
			return nil, err
		}
		t.Cleanup(rec.Release)
		out = append(out, rec)
	}
	return out, nil
}

// readWithFloe scans the table at location (a table directory or metadata
// file) with floe's reader.
func readWithFloe(t *testing.T, location string) []arrow.RecordBatch {
	t.Helper()
	tbl, err := table.Open(context.Background(), location, table.Options{})
	if err != nil {
		t.Fatalf("floe open: %v", err)
	}
	return scanWithFloe(t, tbl)
}

// scanWithFloe reads every row of tbl's current snapshot with floe's
// reader.
func scanWithFloe(t *testing.T, tbl *table.Table) []arrow.RecordBatch {
	t.Helper()
	ctx := context.Background()
	sc, err := scan.New(ctx, tbl, scan.Options{})
	if err != nil {
		t.Fatalf("floe scan: %v", err)
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("floe reader: %v", err)
	}
	defer rr.Release()
	var out []arrow.RecordBatch
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		t.Cleanup(rec.Release)
		out = append(out, rec)
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("floe read: %v", err)
	}
	return out
}
