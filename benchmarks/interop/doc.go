// Package interop holds tests only: they prove that tables floe writes are
// read by iceberg-go (github.com/apache/iceberg-go) with the same rows, and
// that tables iceberg-go writes are read by floe; that tables either side
// evolves (schema, partition spec, sort order, branches and tags, and on
// floe's side write-audit-publish, rollback and fast-forward) are read and
// written by the other with the same metadata and rows
// (interop_evolve_*_test.go); and that the Parquet files
// floe's writer writes are read value for value by DuckDB (read_parquet)
// and arrow-go's pqarrow (interop_writer_files_test.go); that the tables
// floe's maintenance leaves (compacted, sort-compacted, upserted, carrying
// Puffin statistics) are read by iceberg-go with floe's rows, and floe
// compacts tables iceberg-go wrote (interop_maintain_test.go). It lives in the
// benchmarks module because that module, not floe's, depends on iceberg-go.
package interop
