// Package rowstest holds helpers for tests that write rows to a table and
// read them back: rows are canonical Go values (package iceberg's forms),
// batches are built from them with Arrow's builders, and tables are read
// back through floe's reader and converted to canonical values again. It
// imports nothing of package writer, so writer's own tests use it as the
// tests of packages above writer do.
package rowstest
