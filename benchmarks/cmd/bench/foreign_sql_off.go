//go:build !duckdb_arrow

package main

import "errors"

// Built without duckdb_arrow: the SQL part of the foreign section is
// left out (make bench sets the tag).
const sqlAvailable = false

func runSQLQuery(*foreignTable, sqlQuery, int, int) (sqlResult, error) {
	return sqlResult{}, errors.New("built without the duckdb_arrow tag")
}
