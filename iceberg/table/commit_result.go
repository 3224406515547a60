package table

// CommitResult is what a snapshot-producing commit did.
type CommitResult struct {
	// SnapshotID is the snapshot that holds the change: the one this call
	// committed or, when TokenFound, the one that already carried the
	// commit's token.
	SnapshotID int64
	// TokenFound says the commit's token was already in a snapshot (an
	// earlier attempt committed it, perhaps while this one was writing its
	// files): this call committed nothing, so the files it was given are
	// not in the table through it. A writer deletes the files it wrote
	// for the call then, since another attempt's files hold the rows.
	TokenFound bool
}
