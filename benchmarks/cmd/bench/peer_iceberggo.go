package main

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
)

// icebergGoScan reads the table with iceberg-go from its metadata file (a
// static table, no catalog), concurrency 1.
func icebergGoScan(metadataPath string, columns []string) func() (checksum, error) {
	return func() (checksum, error) {
		opts := []icebergtable.ScanOption{icebergtable.WithMaxConcurrency(1)}
		if columns != nil {
			opts = append(opts, icebergtable.WithSelectedFields(columns...))
		}
		var sum checksum
		var sink float64
		err := icebergGoRecords(metadataPath, opts, func(rec arrow.RecordBatch) { consumeRecord(rec, &sum, &sink) })
		return sum, err
	}
}

// icebergGoRecords scans the static table at metadataPath with iceberg-go
// and hands each batch to each, releasing it after.
func icebergGoRecords(metadataPath string, opts []icebergtable.ScanOption, each func(arrow.RecordBatch)) error {
	ctx := context.Background()
	tbl, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"bench", "table"}, metadataPath,
		icebergio.LoadFSFunc(nil, metadataPath), nil)
	if err != nil {
		return err
	}
	_, records, err := tbl.Scan(opts...).ToArrowRecords(ctx)
	if err != nil {
		return err
	}
	for rec, err := range records {
		if err != nil {
			return err
		}
		each(rec)
		rec.Release()
	}
	return nil
}
