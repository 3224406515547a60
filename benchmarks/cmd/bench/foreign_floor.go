package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/floedb/floe/parquet"
)

// The floor of a scan: a pass over the same files that reads every page
// of the columns a query returns and only decompresses it
// (parquet.File.DecompressChunk), decoding nothing. No reader using the
// same codec library can go below it; the report gives floe's and
// DuckDB's scans as multiples of it.

// floorQueries are the queries whose floor is reported: the full scans,
// which read every row of the columns they return.
var floorQueries = []string{"all columns", "2 columns (bigint, decimal)", "text column"}

// foreignFloor decompresses every page of columns (nil: all) in the
// table's files and returns the bytes they decompress to as DecodedBytes.
func foreignFloor(ft *foreignTable, columns []string) (checksum, error) {
	var sum checksum
	for _, path := range ft.Files {
		n, err := decompressFile(path, columns)
		if err != nil {
			return sum, fmt.Errorf("%s: %w", path, err)
		}
		sum.DecodedBytes += n
	}
	return sum, nil
}

func decompressFile(path string, columns []string) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	f, err := parquet.OpenFile(fh, info.Size(), nil)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var leaves []int
	for i, leaf := range f.Leaves {
		if columns == nil || slices.Contains(columns, leaf.DottedPath()) {
			leaves = append(leaves, i)
		}
	}
	if columns != nil && len(leaves) != len(columns) {
		return 0, fmt.Errorf("%d of the columns %v found", len(leaves), columns)
	}
	var total int64
	for rg := range f.RowGroups {
		for _, leaf := range leaves {
			n, err := f.DecompressChunk(rg, leaf)
			if err != nil {
				return total, err
			}
			total += n
		}
	}
	return total, nil
}

// measureFloor is the least CPU time of repeat floor passes for q's
// columns.
func measureFloor(ft *foreignTable, q foreignQuery, repeat int) (time.Duration, error) {
	s, err := measure(repeat, func() (checksum, error) { return foreignFloor(ft, q.Columns) })
	return s.CPU, err
}
