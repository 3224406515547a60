// Package reader reads Iceberg data files into Arrow batches.
//
// Its decoding core (file.go, schema_nodes.go, selection.go,
// batch_iterator.go and the decode_*.go files) reads one Parquet file at the
// page level, straight into Arrow buffers from the caller's
// memory.Allocator: no per-value Go objects, one read per column chunk.
// The Iceberg projection (scan*.go, task*.go, project*.go) sits on top,
// with row-group and page pruning (prune_*.go, bloom_filter.go,
// page_index.go), late materialisation of scans with filters or deletes
// (task_late.go, leaf_kept.go), runtime filters and scan metrics.
//
// Using the core:
//
//	f, err := reader.OpenFile(r, size, nil)          // footer + schema tree
//	n := f.NodeByFieldID(7)                          // or f.Lookup("a", "b"), f.Root.Children
//	br, err := f.NewBatchReader(reader.ReadRequest{
//		Columns:   []reader.Column{{Node: n, Type: arrow.PrimitiveTypes.Int64}},
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
// (see Column). Physical values are converted to the requested type.
// With an offset index in the file, a partial row range fetches only the
// pages it needs; File.ColumnIndex gives per-page min/max for pruning.
// RecyclingAllocator, wrapped around mallocator, avoids paying the kernel
// for fresh zeroed pages on every batch.
package reader
