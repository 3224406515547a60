// Package scan reads an Iceberg table snapshot as Arrow record batches.
//
// A Scan (New) projects the snapshot's schema by the names asked for
// (metadata columns included), plans it through iceberg/table into Tasks —
// one per data file or byte range of a large one, packed into TaskGroups —
// and streams them: sequentially, in parallel in task order, or in
// parallel unordered (scan_*.go), opening the next tasks' files ahead,
// counting Metrics, and taking filters added while it runs (AddFilter).
//
// A Task is the data of one read and nothing else: what file, which
// fields, the constants for columns the file lacks, its name mapping, its
// deletes and residual filter; it serialises to JSON for another process.
// The task reader (task_*.go, project_*.go, deletes*.go, filter*.go) reads
// one task with what the running process lends it through readEnv — the
// FileIO, the allocator, shared delete cache, fetch settings, a file
// opened ahead, the metrics to count into, and a filterSource for filters
// added to the scan — never a pointer to the Scan. It plans each column
// (field id → identity partition → name mapping → initial-default →
// null, promotions by kernels), applies deletes as row selections, prunes
// row groups and pages through reader/prune, filters with kernels, and
// materialises late. Host-driven I/O (task_host_io.go) lets a host fetch
// the bytes itself.
//
// The task reader stays in this package rather than a reader/task of its
// own (docs/ARCHITECTURE.md says why); internal/layers keeps it from using
// anything declared in the scan*.go files, as a package boundary would.
package scan
