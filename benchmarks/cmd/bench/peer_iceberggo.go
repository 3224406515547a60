package main

import (
	"context"

	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
)

// icebergGoScan reads the table with iceberg-go from its metadata file (a
// static table, no catalog), concurrency 1.
func icebergGoScan(metadataPath string, columns []string) func() (checksum, error) {
	return func() (checksum, error) {
		ctx := context.Background()
		tbl, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"bench", "lineitem"}, metadataPath,
			icebergio.LoadFSFunc(nil, metadataPath), nil)
		if err != nil {
			return checksum{}, err
		}
		opts := []icebergtable.ScanOption{icebergtable.WithMaxConcurrency(1)}
		if columns != nil {
			opts = append(opts, icebergtable.WithSelectedFields(columns...))
		}
		_, records, err := tbl.Scan(opts...).ToArrowRecords(ctx)
		if err != nil {
			return checksum{}, err
		}
		var sum checksum
		var sink float64
		for rec, err := range records {
			if err != nil {
				return sum, err
			}
			consumeRecord(rec, &sum, &sink)
			rec.Release()
		}
		return sum, nil
	}
}
