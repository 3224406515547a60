// Package duckdb holds the DuckDB integration tests: SQL over floe's scans
// of the fixture tables, through package duckarrow. They need cgo and the
// build tag duckdb_arrow (make test-duckdb).
package duckdb
