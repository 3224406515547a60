package main

import (
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// duckDB runs read_parquet aggregates on one DuckDB thread (or threads,
// openDuckDBThreads).
type duckDB struct {
	db    *sql.DB
	files string // SQL list literal of the data files
}

func (d *duckDB) Close() error { return d.db.Close() }

func openDuckDB(files []string) (*duckDB, error) { return openDuckDBThreads(files, 1) }

func openDuckDBThreads(files []string, threads int) (*duckDB, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	// One connection, so every query sees the settings below.
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{fmt.Sprintf("SET threads = %d", threads), "SET enable_object_cache = false"} {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb %s: %w", stmt, err)
		}
	}
	quoted := make([]string, len(files))
	for i, f := range files {
		quoted[i] = "'" + strings.ReplaceAll(f, "'", "''") + "'"
	}
	return &duckDB{db: db, files: "[" + strings.Join(quoted, ", ") + "]"}, nil
}

// fullScan aggregates every column, so DuckDB must decode all of them.
func (d *duckDB) fullScan() (checksum, error) {
	q := `SELECT count(*), sum(l_partkey), sum(l_orderkey), sum(l_suppkey), sum(l_quantity),
		sum(l_extendedprice), sum(l_discount), min(l_returnflag), max(l_shipdate), sum(length(l_comment))
		FROM read_parquet(` + d.files + `)`
	var sum checksum
	var orderKeys, suppKeys, price, discount, quantity sql.NullFloat64
	var flag, shipDate any
	var commentLen sql.NullInt64
	err := d.db.QueryRow(q).Scan(&sum.Rows, &sum.SumPartKey, &orderKeys, &suppKeys, &quantity, &price, &discount, &flag, &shipDate, &commentLen)
	return sum, err
}

func (d *duckDB) twoColumns() (checksum, error) {
	q := `SELECT count(l_partkey), sum(l_partkey), sum(l_extendedprice) FROM read_parquet(` + d.files + `)`
	var sum checksum
	var price sql.NullFloat64
	err := d.db.QueryRow(q).Scan(&sum.Rows, &sum.SumPartKey, &price)
	return sum, err
}
