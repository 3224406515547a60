// Package lineitem generates the benchmark table: a TPC-H-lineitem-like
// Iceberg v2 table of Parquet files written with parquet-go, whose
// manifests, manifest list and metadata are written by floe's own packages.
//
// The data is deterministic for a given Params (seeded generator), so runs
// on different machines read the same bytes. A stamp file next to the
// table records the parameters; Generate skips the work when the table on
// disk was made with the same ones.
package lineitem
