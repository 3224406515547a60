//go:build duckdb_arrow

package main

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/benchmarks/duckarrow"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

const sqlAvailable = true

// runSQLQuery measures q over ft at threads: DuckDB over floe's stream,
// then over read_parquet, round-robin; both must give the same answer.
func runSQLQuery(ft *foreignTable, q sqlQuery, threads, repeat int) (sqlResult, error) {
	r := sqlResult{Table: ft.Codec, Query: q.Name, Threads: threads}
	ctx := context.Background()
	session, err := duckarrow.Open(ctx, threads)
	if err != nil {
		return r, err
	}
	defer session.Close()
	duck, err := openDuckDBThreads(ft.Files, threads)
	if err != nil {
		return r, err
	}
	defer duck.Close()
	filter, err := expr.ParseFilter(q.Filter)
	if err != nil {
		return r, err
	}
	source := func(ctx context.Context) (array.RecordReader, error) {
		t, err := table.Open(ctx, ft.MetadataPath, table.Options{})
		if err != nil {
			return nil, err
		}
		sc, err := scan.New(ctx, t, scan.Options{Threads: threads, Columns: q.Columns, Filter: filter})
		if err != nil {
			return nil, err
		}
		return sc.Reader(ctx, foreignAlloc)
	}
	var overFloe, overParquet [][]any
	runs := []func() (sample, error){
		func() (sample, error) {
			return measure(1, func() (checksum, error) {
				rows, err := session.Query(ctx, q.SQL, map[string]duckarrow.Source{"lineitem": source})
				overFloe = rows
				return checksum{Rows: int64(len(rows))}, err
			})
		},
		func() (sample, error) {
			return measure(1, func() (checksum, error) {
				rows, err := duck.queryRows("WITH lineitem AS (SELECT * FROM read_parquet(" + duck.files + ")) " + q.SQL)
				overParquet = rows
				return checksum{Rows: int64(len(rows))}, err
			})
		},
	}
	best, errs := roundRobin(repeat, runs, betterAt(threads))
	for _, err := range errs {
		if err != nil {
			return r, err
		}
	}
	if len(overFloe) == 0 || !sameRows(overFloe, overParquet) {
		return r, fmt.Errorf("%s: over floe %v, over read_parquet %v", q.Name, overFloe, overParquet)
	}
	r.FloeCPU, r.FloeWal = best[0].CPU, best[0].Wall
	r.DuckCPU, r.DuckWal = best[1].CPU, best[1].Wall
	return r, nil
}
