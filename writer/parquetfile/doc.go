// Package parquetfile writes Parquet files from values already in their
// physical form, one column chunk at a time: data pages v1 with RLE
// levels, PLAIN or dictionary (RLE_DICTIONARY) values with a fallback to
// PLAIN when a chunk's dictionary outgrows its limit, page indexes
// (column and offset index), chunk statistics, split-block bloom filters
// for the columns that ask for one (bloom.go) and the footer. It knows
// nothing of Iceberg or Arrow: package writer converts Arrow batches to
// the typed slices a Chunk takes and keeps the Iceberg metrics itself.
//
// Why not parquet-go's Writer: it takes one parquet.Value (32 bytes) per
// cell, hashes dictionary strings through Go maps, and recomputes every
// page's bounds through the dictionary. In the write section's one-thread
// zstd profile (benchmarks, -writes, 6 M lineitem rows, level 3) those
// took 2.5 s of 4.8, compression 2.3. This package uses parquet-go's own
// lower-level pieces instead: its thrift structures and compact protocol
// for headers and the footer, its RLE/bit-packing encoder for levels and
// dictionary indexes, and its compression codecs.
package parquetfile
