// Package table opens Iceberg tables (a metadata file, a table directory or
// a warehouse dataset name), selects snapshots, and plans scans: the list of
// data files a snapshot holds, each with the delete files that apply to it.
//
// It also commits to tables: Create and EnsureTable, and every change as
// a Transaction (transaction*.go): metadata actions of package action
// (schema, partition spec and sort order evolution, branches and tags,
// rollback, properties, format upgrades) and snapshot-producing steps
// (Append, Commit, Overwrite, ReplacePartitions, RowDelta, PlanRows with
// CommitRows for row-level changes by filter, CherryPick, ExpireSnapshots)
// applied in order and committed as one metadata version, with optimistic
// concurrency over put-if-absent metadata files or a catalog's publisher
// (commit_loop.go). Each Table method of those names is a transaction of
// one step; Apply commits actions alone; CommitTransactions commits
// several tables of one catalog at once. Write-audit-publish stages a
// snapshot (CommitOptions.WapID, StageOnly) that CherryPick publishes. A Table moves to each
// version it commits (or, when a commit finds its token already committed,
// to the version it refreshed to), so it must not be read by other
// goroutines while it commits; concurrent writers each hold their own.
// A commit's token is looked for in the snapshots' summaries, then among
// the tokens of expired snapshots that expiry keeps in a table property
// (commit_token.go), so a retry is recognised after its snapshot is gone.
package table
