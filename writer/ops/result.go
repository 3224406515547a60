package ops

import (
	"context"
	"errors"
	"sync"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// Result is what an operation did.
type Result struct {
	// SnapshotID is the snapshot that holds the change: the one this call
	// committed, the one that already carried its token (TokenFound), or,
	// when there was nothing to commit, the branch's head (0 for none).
	SnapshotID int64
	// Committed says this call committed a new snapshot.
	Committed bool
	// TokenFound says the commit's token was already in a snapshot: an
	// earlier attempt committed it (perhaps while this one was writing),
	// this call committed nothing and removed the files it wrote.
	TokenFound bool
	// Files are the files (data and delete) this call's snapshot added;
	// none unless Committed.
	Files []manifest.DataFile
	// DeletedRows are the rows DeleteRows or OverwriteRows took out of the
	// table when Committed: rows that were live (deletes already in the
	// table applied) and that the filter selected, exactly, whatever mode
	// deleted them. Rows added are not subtracted.
	DeletedRows int64
}

// tokenFound is the result of a call whose token an earlier attempt
// committed (its snapshot perhaps expired since), or ok false.
func tokenFound(t *table.Table, token string) (Result, bool, error) {
	id, ok, err := table.SnapshotWithToken(t.Metadata, token)
	if err != nil || !ok {
		return Result{}, false, err
	}
	return Result{SnapshotID: id, TokenFound: true}, true, nil
}

// written are the files an operation wrote, deleted again when they do not
// become part of the table.
type written struct {
	io    fileio.FileIO
	mu    sync.Mutex
	paths []string
}

func (w *written) add(paths ...string) {
	w.mu.Lock()
	w.paths = append(w.paths, paths...)
	w.mu.Unlock()
}

func (w *written) addFiles(files []manifest.DataFile) {
	for i := range files {
		w.add(files[i].FilePath)
	}
}

// remove deletes, best effort, every file written.
func (w *written) remove(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.paths {
		_ = w.io.Delete(ctx, p)
	}
	w.paths = nil
}

// commit runs a commit of files the operation wrote (tracked in w) and
// removes them exactly when they are not part of the table: the commit
// failed with a known outcome, or found its token committed already.
// commitResultOf is a transaction's result as a single commit's: the
// snapshot of its last snapshot-producing step, or the one that carried
// its token.
func commitResultOf(r table.TransactionResult) table.CommitResult {
	var out table.CommitResult
	if n := len(r.SnapshotIDs); n > 0 {
		out.SnapshotID = r.SnapshotIDs[n-1]
	}
	out.TokenFound = r.TokenFound
	return out
}

func commit(ctx context.Context, w *written, added []manifest.DataFile, run func() (table.CommitResult, error)) (Result, error) {
	res, err := run()
	if err != nil {
		if !errors.Is(err, table.ErrCommitStateUnknown) {
			w.remove(ctx)
		}
		return Result{}, err
	}
	if res.TokenFound {
		w.remove(ctx)
		return Result{SnapshotID: res.SnapshotID, TokenFound: true}, nil
	}
	return Result{SnapshotID: res.SnapshotID, Committed: true, Files: added}, nil
}
