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
// compacts tables iceberg-go wrote (interop_maintain_test.go); and that
// every maintenance action (z-order, Hilbert and sort compaction, position
// deletes merged or turned into deletion vectors, equality deletes
// converted, dangling deletes removed, manifests rewritten, expiry and
// orphan removal, the planner's full run, bloom-filtered files), run on
// tables with deletes that floe or iceberg-go made
// (interop_maintain_sources_test.go) and on copies of the shared fixtures
// (interop_maintain_fixtures_test.go), leaves rows iceberg-go reads as
// floe does, after which iceberg-go writes and floe reads the result
// (interop_maintain_*_test.go). It lives in the benchmarks module because that module, not floe's, depends on iceberg-go.
package interop
