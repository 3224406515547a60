package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/manifest"
)

// Append commits data files written elsewhere (by package writer, or by
// another engine) as a new snapshot. Appending nothing
// still commits an empty snapshot, so a caller's numbered commits keep
// their numbers. Delete files are refused: they go through RowDelta.
//
// An append never conflicts: when another writer commits first, it is
// rebuilt on the newer version and retried (commit.retry.num-retries).
// On success t holds the committed version.
func (t *Table) Append(ctx context.Context, files []manifest.DataFile, opts CommitOptions) (CommitResult, error) {
	u, err := t.appendUpdate(files, opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// appendUpdate validates a Append and describes its snapshot.
func (t *Table) appendUpdate(files []manifest.DataFile, opts CommitOptions) (*snapshotUpdate, error) {
	for i := range files {
		if files[i].Content != manifest.ContentData {
			return nil, fmt.Errorf("append: %s is a %s file; append takes data files only (delete files go through RowDelta)",
				files[i].FilePath, files[i].Content)
		}
	}
	return &snapshotUpdate{what: "append", opts: opts, added: files}, nil
}

// Commit adds files and removes others, named by their paths as the
// table's manifests write them, in one snapshot. Added
// files may be data or delete files. When a file it removes is not in the
// current snapshot (another writer removed it, or it was never there) it
// commits nothing and fails with ErrConflict; that is checked again on
// every retry against the version the retry builds on.
func (t *Table) Commit(ctx context.Context, added []manifest.DataFile, removed []string, opts CommitOptions) (CommitResult, error) {
	u, err := t.commitUpdate(added, removed, opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// commitUpdate validates a Commit and describes its snapshot.
func (t *Table) commitUpdate(added []manifest.DataFile, removed []string, opts CommitOptions) (*snapshotUpdate, error) {
	// Paths are compared as the table's map sends them: /p and file:///p
	// are one file.
	key := t.Locations.Apply
	paths := make(map[string]bool, len(removed))
	for _, p := range removed {
		if p == "" {
			return nil, fmt.Errorf("commit: an empty path to remove")
		}
		paths[key(p)] = true
	}
	for i := range added {
		if paths[key(added[i].FilePath)] {
			return nil, fmt.Errorf("commit: %s is both added and removed", added[i].FilePath)
		}
	}
	u := &snapshotUpdate{what: "commit", opts: opts, added: added}
	if len(paths) > 0 {
		u.plan = func(ctx context.Context, b *commitBase) (*removal, error) {
			if b.head == nil {
				for p := range paths {
					return nil, fmt.Errorf("file %s is not in the table, which has no snapshot: %w", p, ErrConflict)
				}
			}
			rm := newRemoval()
			found := map[string]bool{}
			err := b.liveFiles(ctx, nil, func(lf liveFile) error {
				if df := &lf.entry.DataFile; paths[key(df.FilePath)] {
					rm.add(df)
					found[key(df.FilePath)] = true
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			for _, p := range removed {
				if !found[key(p)] {
					return nil, fmt.Errorf("file %s is not in the table's current snapshot %d: %w", p, b.head.SnapshotID, ErrConflict)
				}
			}
			return rm, nil
		}
	}
	u.operation = func(r *removal) string { return operationOf(added, r) }
	return u, nil
}

// operationOf names what a change of files did: "append" when it only adds
// data, "delete" when it only removes, or only adds delete files,
// "overwrite" otherwise.
func operationOf(added []manifest.DataFile, r *removal) string {
	data, deletes := 0, 0
	for i := range added {
		if added[i].Content == manifest.ContentData {
			data++
		} else {
			deletes++
		}
	}
	removes := r.count() > 0
	switch {
	case !removes && deletes == 0:
		return OpAppend
	case data == 0:
		return OpDelete
	}
	return OpOverwrite
}
