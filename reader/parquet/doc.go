// Package parquet is floe's Parquet decoding core: it reads one Parquet
// file at the page level straight into Arrow buffers from the caller's
// memory.Allocator (C memory when batches leave through the C ABI), with
// no per-value Go objects and one read per column chunk. It knows nothing
// of Iceberg, pruning or scans (internal/layers keeps it so): what to read
// arrives as schema nodes and Arrow types, and which rows as ranges.
//
// What it holds: the footer and Thrift compact protocol (file.go,
// file_metadata.go, thrift_compact.go, parquet_types.go), the schema tree
// with field ids (schema_nodes.go), page headers, levels, encodings and
// dictionaries (page_header.go, levels.go, decode_*.go, dictionary.go),
// physical-to-Arrow conversions (convert.go, int96.go), leaf readers and
// nested assembly including legacy list layouts (leaf_*.go,
// nested_assemble.go), variant groups as Arrow's arrow.parquet.variant
// extension (variant_build.go), the structures pruning reads — statistics,
// column and offset indexes (page_index.go), split-block bloom filters
// (bloom_filter.go) — and the I/O path: a footer read that also serves
// page indexes and small files, coalesced concurrent fetches of the chunks
// a read needs (io_*.go), scratch and output buffer pools.
//
// Using it:
//
//	f, err := parquet.OpenFile(r, size, nil)         // footer + schema tree
//	n := f.NodeByFieldID(7)                          // or f.Lookup("a", "b"), f.Root.Children
//	br, err := f.NewBatchReader(parquet.ReadRequest{
//		Columns:   []parquet.Column{{Node: n, Type: arrow.PrimitiveTypes.Int64}},
//		RowGroup:  i,
//		RowStart:  a, RowEnd: b,                     // rows [a,b) of row group i; RowEnd 0 = to its end
//		                                             // (or Ranges: several ascending ranges)
//		Allocator: mallocator.NewMallocator(),       // C memory, for the C Data Interface
//	})
//	defer br.Close()
//	for {
//		batch, err := br.Next()                      // ≤ BatchSize rows, aligned across columns
//		if err == io.EOF { break }
//		... batch.Columns[j] is the j-th requested array; batch.FirstRow its first row ...
//		batch.Release()
//	}
//
// Each Column names one schema node and the Arrow type to produce; nested
// nodes (struct, list, map) take Children to prune or retype what is read
// (see Column). With an offset index in the file, a partial row range
// fetches only the pages it needs. RecyclingAllocator, wrapped around
// mallocator, avoids paying the kernel for fresh zeroed pages on every
// batch.
//
// Why not parquet-go's reader: it decodes into Go values row by row; this
// core decodes pages into Arrow buffers and is faster on the benchmarks in
// benchmarks/ (see docs/ARCHITECTURE.md for the numbers). parquet-go's
// bit-packing (parquet-go/bitpack) is used for levels and delta encodings.
package parquet
