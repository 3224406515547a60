// Package kernels holds the columnar functions the reader uses to shape
// Iceberg scan output: type-promotion casts for schema evolution, constant
// and all-null columns, selection (filter and take) for deletes and
// residual filters, and canonical key hashing and encoding for equality
// deletes.
//
// Kernels see only Arrow arrays, Arrow data types, Go scalars and a
// memory.Allocator; they know nothing of files, tables or Iceberg metadata.
// Every output buffer comes from the allocator passed in, because batches
// leave the process through the Arrow C Data Interface without a copy, and
// buffers of the input are shared (retained) rather than copied wherever
// the layout allows. Work is done on the raw buffers, never per boxed value.
package kernels
