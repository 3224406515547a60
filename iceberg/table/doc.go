// Package table opens Iceberg tables (a metadata file, a table directory or
// a warehouse dataset name), selects snapshots, and plans scans: the list of
// data files a snapshot holds, each with the delete files that apply to it.
//
// It also commits to tables: Create and EnsureTable, and on a Table the
// snapshot-producing operations (Append, Commit, Overwrite,
// ReplacePartitions, RowDelta, and PlanRows with CommitRows for row-level
// changes by filter) and metadata changes (SetProperties,
// UpdateSchemaByName, ExpireSnapshots), with optimistic concurrency over
// put-if-absent metadata files (commit_loop.go). A Table moves to each
// version it commits (or, when a commit finds its token already committed,
// to the version it refreshed to), so it must not be read by other
// goroutines while it commits; concurrent writers each hold their own.
// A commit's token is looked for in the snapshots' summaries, then among
// the tokens of expired snapshots that expiry keeps in a table property
// (commit_token.go), so a retry is recognised after its snapshot is gone.
package table
