package main

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/scan"
)

// floeScan reads the table through floe's public Go API on one thread,
// batches allocated by alloc.
func floeScan(metadataPath string, columns []string, alloc memory.Allocator) func() (checksum, error) {
	return func() (checksum, error) {
		ctx := context.Background()
		t, err := table.Open(ctx, metadataPath, table.Options{})
		if err != nil {
			return checksum{}, err
		}
		sc, err := scan.New(ctx, t, scan.Options{Columns: columns, Threads: 1})
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
		return sum, rr.Err()
	}
}

// newMallocator is the allocator libfloe's C API uses: C memory, released
// buffers pooled for reuse up to the same bound (capi/stream.go).
func newMallocator() memory.Allocator {
	return parquet.NewRecyclingAllocator(mallocator.NewMallocator(), scan.ExportPoolBytes)
}
