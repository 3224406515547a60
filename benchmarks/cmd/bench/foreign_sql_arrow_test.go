//go:build duckdb_arrow

package main

import "testing"

// TPC-H Q1 and Q6 give DuckDB the same answer over floe's stream as over
// read_parquet, at one and two threads (runSQLQuery compares them).
func TestForeignSQL(t *testing.T) {
	ft, err := writeForeign(t.TempDir(), "zstd", 60_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range sqlQueries {
		for _, threads := range []int{1, 2} {
			r, err := runSQLQuery(ft, q, threads, 1)
			if err != nil {
				t.Fatalf("%s at %d threads: %v", q.Name, threads, err)
			}
			if r.FloeCPU <= 0 || r.DuckCPU <= 0 {
				t.Errorf("%s: nothing measured: %+v", q.Name, r)
			}
		}
	}
}
