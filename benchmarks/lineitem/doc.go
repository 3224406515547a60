// Package lineitem generates the benchmark table: a TPC-H-lineitem-like
// Iceberg v2 table of Parquet files written with parquet-go, whose
// manifests, manifest list and metadata are written by floe's own packages.
//
// The data is deterministic for a given Params (seeded generator), so runs
// on different machines read the same bytes. A stamp file next to the
// table records the parameters; Generate skips the work when the table on
// disk was made with the same ones.
//
// GenerateDeletes derives three tables sharing the plain table's data
// files: position deletes (v2), deletion vectors (v3) and equality deletes
// (v2), each removing a tenth of the rows, with the surviving row count and
// sum of l_partkey worked out from the generator's values.
package lineitem
