package main

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/floedb/floe/benchmarks/lineitem"
)

// TestPeersAgree runs every peer once over a small generated table: all
// must see every row and the same sum of l_partkey, in the full and the
// two-column scan, or the benchmark would compare different work.
func TestPeersAgree(t *testing.T) {
	p := lineitem.Params{Rows: 30_000, Files: 3, RowGroupsPerFile: 2, Seed: 3}
	tbl, err := lineitem.Generate(t.TempDir(), p, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDuckDB(tbl.DataFiles)
	if err != nil {
		t.Fatal(err)
	}
	defer db.db.Close()
	alloc := mallocator.NewMallocator()
	peers := []peer{
		{name: "floe", full: floeScan(tbl.MetadataPath, nil, alloc), twoCols: floeScan(tbl.MetadataPath, twoColumns, alloc)},
		{name: "floe-go", full: floeScan(tbl.MetadataPath, nil, memory.DefaultAllocator), twoCols: floeScan(tbl.MetadataPath, twoColumns, memory.DefaultAllocator)},
		{name: "pqarrow", full: pqarrowScan(tbl.DataFiles, nil, 1000), twoCols: pqarrowScan(tbl.DataFiles, twoColumnLeaves, 1000)},
		{name: "parquet-go", full: parquetGoScan(tbl.DataFiles, true, 1000), twoCols: parquetGoScan(tbl.DataFiles, false, 1000)},
		{name: "duckdb", full: db.fullScan, twoCols: db.twoColumns},
		{name: "iceberg-go", full: icebergGoScan(tbl.MetadataPath, nil), twoCols: icebergGoScan(tbl.MetadataPath, twoColumns)},
	}
	var want checksum
	for i, pr := range peers {
		full, err := pr.full()
		if err != nil {
			t.Fatalf("%s full scan: %v", pr.name, err)
		}
		two, err := pr.twoCols()
		if err != nil {
			t.Fatalf("%s two-column scan: %v", pr.name, err)
		}
		if i == 0 {
			want = checksum{Rows: full.Rows, SumPartKey: full.SumPartKey}
			if want.Rows != p.Rows || want.SumPartKey == 0 {
				t.Fatalf("floe saw %v, want %d rows", want, p.Rows)
			}
		}
		for _, got := range []checksum{full, two} {
			if got.Rows != want.Rows || got.SumPartKey != want.SumPartKey {
				t.Errorf("%s saw %v, floe %v", pr.name, got, want)
			}
		}
	}
	if n := alloc.AllocatedBytes(); n != 0 {
		t.Errorf("floe left %d bytes of C memory allocated", n)
	}
}
