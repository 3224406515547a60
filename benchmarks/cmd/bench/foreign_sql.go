package main

import (
	"fmt"
	"math"
	"time"

	"github.com/floedb/floe/benchmarks/duckarrow"
)

// The SQL part of the foreign section: TPC-H Q1 and Q6 run by DuckDB over
// floe's Arrow stream (the columns and the filter handed to floe, DuckDB
// aggregating what it returns) against the same SQL over read_parquet,
// what a DuckDB user pays for reading an Iceberg table through floe. It
// needs duckdb-go's Arrow interface, so the run is in foreign_sql_arrow.go
// (build tag duckdb_arrow, which make bench sets).

// sqlQuery is one TPC-H query: the SQL DuckDB runs over a view named
// lineitem, and what floe is handed for that view.
type sqlQuery struct {
	Name    string
	SQL     string
	Columns []string
	Filter  string
}

var sqlQueries = []sqlQuery{
	{
		Name: "TPC-H Q1",
		SQL: `SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
			sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
			avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
			FROM lineitem WHERE l_shipdate <= DATE '1998-09-02'
			GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus`,
		Columns: []string{"l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_shipdate"},
		Filter:  "l_shipdate <= '1998-09-02'",
	},
	{
		Name: "TPC-H Q6",
		SQL: `SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
			WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
			AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24`,
		Columns: []string{"l_extendedprice", "l_discount", "l_shipdate", "l_quantity"},
		Filter:  "l_shipdate >= '1994-01-01' and l_shipdate < '1995-01-01' and l_discount >= 0.05 and l_discount <= 0.07 and l_quantity < 24",
	},
}

// sqlResult is one query on one table at one thread count: DuckDB over
// floe's stream (Floe*) and over read_parquet (Duck*).
type sqlResult struct {
	Table   string        `json:"table"`
	Query   string        `json:"query"`
	Threads int           `json:"threads"`
	FloeCPU time.Duration `json:"duckdb_over_floe_cpu_ns"`
	FloeWal time.Duration `json:"duckdb_over_floe_wall_ns"`
	DuckCPU time.Duration `json:"duckdb_read_parquet_cpu_ns"`
	DuckWal time.Duration `json:"duckdb_read_parquet_wall_ns"`
}

func printSQLResults(results []sqlResult, logf func(string, ...any)) {
	if len(results) == 0 {
		return
	}
	logf("\nDuckDB SQL over floe's stream ÷ the same SQL over read_parquet")
	logf("%-8s %-10s %10s %10s", "table", "query", "CPU 1T", "wall 2T")
	for i := 0; i+1 < len(results); i += 2 {
		one, two := results[i], results[i+1]
		logf("%-8s %-10s %10s %10s", one.Table, one.Query,
			fmt.Sprintf("%.2f×", float64(one.FloeCPU)/float64(one.DuckCPU)),
			fmt.Sprintf("%.2f×", float64(two.FloeWal)/float64(two.DuckWal)))
	}
}

// queryRows runs q on d and returns its rows as database/sql scans them.
func (d *duckDB) queryRows(q string) ([][]any, error) {
	rs, err := d.db.Query(q)
	if err != nil {
		return nil, err
	}
	return duckarrow.Rows(rs)
}

// sameRows compares two query answers: doubles (averages, whose last
// bits depend on the order DuckDB's threads add in) to 1e-9 relative,
// everything else by its printed form.
func sameRows(a, b [][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			x, xok := a[i][j].(float64)
			y, yok := b[i][j].(float64)
			switch {
			case xok && yok:
				if math.Abs(x-y) > 1e-9*math.Max(math.Abs(x), math.Abs(y)) {
					return false
				}
			case fmt.Sprint(a[i][j]) != fmt.Sprint(b[i][j]):
				return false
			}
		}
	}
	return true
}
