package main

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// openScanReader plans what scan reads and opens its rows, with the
// Iceberg fields of their columns (the text printers' types): an ordinary
// or incremental append scan, or with so.Changelog (--changelog) a
// changelog scan, which has no *scan.Scan (nil: no progress or metrics).
func openScanReader(ctx context.Context, t *table.Table, so scan.Options) (*scan.Scan, array.RecordReader, []iceberg.NestedField, error) {
	if so.Changelog {
		cs, err := scan.NewChangelog(ctx, t, so)
		if err != nil {
			return nil, nil, nil, err
		}
		rr, err := cs.Reader(ctx, memory.DefaultAllocator)
		return nil, rr, cs.Fields(), err
	}
	sc, err := scan.New(ctx, t, so)
	if err != nil {
		return nil, nil, nil, err
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	return sc, rr, sc.Projection.Fields, err
}
