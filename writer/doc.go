// Package writer turns Arrow record batches into Iceberg data files:
// Parquet with field ids and full column metrics, partitioned through the
// table's spec.
//
// A Writer takes batches as they come (Write), routes every row to its
// partition through the spec's transforms (one open file per partition,
// rolled over at the target file size), and returns the finished files'
// manifest entries (Close) without committing anything; Abort deletes what
// it wrote. EncodeDataFiles and DecodeDataFiles carry those entries from a
// worker process to the one that commits them.
//
// Column values are converted column by column, straight from the Arrow
// buffers into typed slices of their Parquet physical type, which
// writer/parquetfile encodes into pages; the Iceberg metrics (value, null
// and NaN counts, lower and upper bounds) are gathered in the same pass,
// and the page and chunk bounds come from the same minima and maxima;
// column sizes and split offsets come from the written footer. A column
// gets a dictionary unless the first batch shows it mostly distinct
// (dict_choice.go); ZSTD and SNAPPY pages go through the writer's own
// codecs over klauspost/compress (codec_*.go), and the columns of a batch
// are converted in parallel, the costliest first.
//
// With a sort order (Options.SortOrder; TableOptions gives the table's
// default one) it holds batches up to a memory bound and writes each
// partition's rows sorted into files of their own, recording the order's
// id (sorted.go). Columns named in the bloom filter properties get Parquet
// split-block bloom filters (options.go, parquetfile's bloom.go).
//
// It also writes delete files (WritePositionDeletes, WriteDeletionVectors,
// EqualityDeleteWriter). FileWriter is the same writer held to one file
// at a path its caller names, or on a stream (NewStreamFileWriter): the
// position delete files and the CLI's `scan --output` Parquet go through
// it, so floe writes every Parquet file with this one writer. DataLocation is where a table's files go.
// Committing what it writes, and row-level changes by filter, are package
// ops's (writer/ops): writer reads no table and commits nothing.
package writer
