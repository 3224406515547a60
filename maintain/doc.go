// Package maintain keeps tables healthy: actions that change how a
// table's rows are stored or described, never the rows, run over floe's
// reader (reader/scan) and writer and committed through iceberg/table.
//
// RewriteDataFiles is compaction (Java's rewrite_data_files, bin-pack
// strategy): it picks the files of each partition that are too small,
// too large or carry too many deletes, packs them into groups, reads each
// group's rows with every delete applied and writes them again near the
// target file size, then commits each group's files in place of the old
// ones with table.RewriteFiles, dropping delete files nothing needs any
// more. The three steps are also public, for a distributed engine:
// PlanRewrite gives serialisable FileGroups, RewriteGroup runs one on any
// machine, and CommitRewrite commits their GroupResults from the client.
//
// Nothing in floe imports this package but the interfaces (capi, cmd,
// bindings).
package maintain
