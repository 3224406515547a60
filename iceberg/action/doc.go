// Package action holds the changes a transaction makes to a table's
// metadata, one small builder per file: schema evolution (UpdateSchema),
// partition spec evolution (UpdateSpec), sort orders (ReplaceSortOrder),
// branches, tags, rollback and fast-forward (ManageSnapshots), properties
// (SetProperties) and the format version (UpgradeFormatVersion).
//
// An Action validates its input against the metadata it is given and
// yields metadata updates (metadata.Update); metadata.Changes applies them
// and derives the requirements they imply, so a REST server, a SQL row
// swap and a metadata directory all see the same change. Actions know the
// table format's vocabulary and metadata, never manifests, storage or
// catalogs: a change that needs the table's files (cherry-pick, the
// snapshot-producing operations) is built in package table, which also
// runs transactions (table.Transaction).
//
// Build is called once per commit attempt, each time on the newest
// metadata with the transaction's earlier actions applied, so an action
// holds only what the caller asked for, never state of a previous build.
package action
