package table

import (
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// The snapshot-producing operations as transaction steps. Each validates
// its input as the Table method of the same name does (an error is also
// returned by Commit) and is planned on the table as the transaction
// found it. Options other than the token (branch, summary properties,
// run id) apply to the step's own snapshot.

// Append adds data files as a new snapshot (Table.Append).
func (tx *Transaction) Append(files []manifest.DataFile, opts CommitOptions) error {
	return tx.addSnapshot(tx.t.appendUpdate(files, opts))
}

// CommitFiles adds files and removes others by path in one snapshot
// (Table.Commit).
func (tx *Transaction) CommitFiles(added []manifest.DataFile, removed []string, opts CommitOptions) error {
	return tx.addSnapshot(tx.t.commitUpdate(added, removed, opts))
}

// Overwrite replaces the rows a filter selects with added files
// (Table.Overwrite).
func (tx *Transaction) Overwrite(filter expr.Expr, added []manifest.DataFile, opts CommitOptions) error {
	return tx.addSnapshot(tx.t.overwriteUpdate(filter, added, opts))
}

// ReplacePartitions replaces the partitions added files fall in
// (Table.ReplacePartitions).
func (tx *Transaction) ReplacePartitions(added []manifest.DataFile, opts CommitOptions) error {
	return tx.addSnapshot(tx.t.replacePartitionsUpdate(added, opts))
}

// RowDelta adds data and delete files (Table.RowDelta).
func (tx *Transaction) RowDelta(dataFiles, deleteFiles []manifest.DataFile, opts CommitOptions) error {
	return tx.addSnapshot(tx.t.rowDeltaUpdate(dataFiles, deleteFiles, opts))
}

// CommitRows commits a row-level change planned with PlanRows
// (Table.CommitRows).
func (tx *Transaction) CommitRows(plan *RowsPlan, changes RowChanges, opts CommitOptions) error {
	return tx.addSnapshot(tx.t.commitRowsUpdate(plan, changes, opts))
}

// SetProperties sets and removes table properties (action.SetProperties,
// with the properties floe maintains protected).
func (tx *Transaction) SetProperties(set map[string]string, remove []string) *Transaction {
	return tx.Add(setPropertiesAction(set, remove))
}

// UpgradeFormatVersion raises the table's format version.
func (tx *Transaction) UpgradeFormatVersion(version int) *Transaction {
	return tx.Add(action.UpgradeFormatVersion{FormatVersion: version})
}

// setPropertiesAction is a property change with floe's own properties
// protected.
func setPropertiesAction(set map[string]string, remove []string) action.SetProperties {
	return action.SetProperties{Set: set, Remove: remove, Protected: map[string]string{
		PropExpiredTokens: "it is written by expiry (the tokens of expired snapshots); set " + PropTokenRetentionCount + " to bound it",
	}}
}
