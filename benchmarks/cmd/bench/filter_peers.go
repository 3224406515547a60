package main

import (
	"context"
	"database/sql"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// floeReadStats is what floe's last filtered scan read: bytes counted by
// countingIO (the metadata JSON, read before the wrapper is in place, by
// its size) and floe's own metrics, for comparison.
type floeReadStats struct {
	data, other int64
	metrics     scan.Metrics
}

// floeFilterScan reads every column of the rows matching filter (row_filter
// text; "" for all rows) through floe's Go API on one thread, its reads
// counted into stats.
func floeFilterScan(metadataPath, filter string, alloc memory.Allocator, stats *floeReadStats) func() (checksum, error) {
	return func() (checksum, error) {
		ctx := context.Background()
		t, err := table.Open(ctx, metadataPath, table.Options{})
		if err != nil {
			return checksum{}, err
		}
		info, err := os.Stat(metadataPath)
		if err != nil {
			return checksum{}, err
		}
		counted := &countingIO{FileIO: t.IO}
		t.IO = counted
		opts := scan.Options{Threads: 1}
		if filter != "" {
			if opts.Filter, err = expr.ParseFilter(filter); err != nil {
				return checksum{}, err
			}
		}
		sc, err := scan.New(ctx, t, opts)
		if err != nil {
			return checksum{}, err
		}
		rr, err := sc.Reader(ctx, alloc)
		if err != nil {
			return checksum{}, err
		}
		defer rr.Release()
		var sum checksum
		var sink float64
		for rr.Next() {
			consumeRecord(rr.RecordBatch(), &sum, &sink)
		}
		if err := rr.Err(); err != nil {
			return sum, err
		}
		*stats = floeReadStats{data: counted.data.Load(), other: counted.other.Load() + info.Size(), metrics: sc.Metrics()}
		return sum, nil
	}
}

// icebergGoFilterScan reads every column of the rows matching filter with
// iceberg-go (static table, concurrency 1).
func icebergGoFilterScan(metadataPath string, filter iceberg.BooleanExpression) func() (checksum, error) {
	return func() (checksum, error) {
		opts := []icebergtable.ScanOption{icebergtable.WithMaxConcurrency(1)}
		if filter != nil {
			opts = append(opts, icebergtable.WithRowFilter(filter))
		}
		var sum checksum
		var sink float64
		err := icebergGoRecords(metadataPath, opts, func(rec arrow.RecordBatch) { consumeRecord(rec, &sum, &sink) })
		return sum, err
	}
}

// filteredScan aggregates every column of the rows matching where, so
// DuckDB must decode all of them.
func (d *duckDB) filteredScan(where string) func() (checksum, error) {
	return func() (checksum, error) {
		q := `SELECT count(*), coalesce(sum(l_partkey), 0), sum(l_orderkey), sum(l_suppkey), sum(l_quantity),
			sum(l_extendedprice), sum(l_discount), min(l_returnflag), max(l_shipdate), sum(length(l_comment))
			FROM read_parquet(` + d.files + `)`
		if where != "" {
			q += " WHERE " + where
		}
		var sum checksum
		var orderKeys, suppKeys, price, discount, quantity sql.NullFloat64
		var flag, shipDate any
		var commentLen sql.NullInt64
		err := d.db.QueryRow(q).Scan(&sum.Rows, &sum.SumPartKey, &orderKeys, &suppKeys, &quantity, &price, &discount, &flag, &shipDate, &commentLen)
		return sum, err
	}
}
