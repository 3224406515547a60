package table

import (
	"context"
	"fmt"
	"slices"

	"github.com/floedb/floe/iceberg/manifest"
)

// RowDelta commits row-level changes: data files (new rows) and delete
// files (position delete files on v2, deletion vectors on v3, equality
// delete files on both), in one snapshot, and returns its id.
//
// A deletion vector replaces the data file's previous one, which the
// caller must have merged into it (a data file has at most one deletion
// vector per snapshot); the previous one is removed from the table. The
// commit is planned on t's current version: it fails with ErrConflict,
// committing nothing, when a data file that a position delete file or
// deletion vector names is no longer in the table, or when another writer
// gave one of those data files a deletion vector after that version.
func (t *Table) RowDelta(ctx context.Context, dataFiles, deleteFiles []manifest.DataFile, opts CommitOptions) (CommitResult, error) {
	u, err := t.rowDeltaUpdate(dataFiles, deleteFiles, opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// rowDeltaUpdate validates a RowDelta and describes its snapshot.
func (t *Table) rowDeltaUpdate(dataFiles, deleteFiles []manifest.DataFile, opts CommitOptions) (*snapshotUpdate, error) {
	if t.Metadata.FormatVersion < 2 {
		return nil, fmt.Errorf("row delta: format version 1 tables have no row-level deletes")
	}
	for i := range dataFiles {
		if dataFiles[i].Content != manifest.ContentData {
			return nil, fmt.Errorf("row delta: %s is a %s file among the data files", dataFiles[i].FilePath, dataFiles[i].Content)
		}
	}
	referenced := map[string]bool{}
	dvTargets := map[string]bool{}
	for i := range deleteFiles {
		df := &deleteFiles[i]
		if df.Content == manifest.ContentData {
			return nil, fmt.Errorf("row delta: %s is a data file among the delete files", df.FilePath)
		}
		if target := referencedDataFile(df); target != "" {
			referenced[target] = true
			if df.ContentOffset != nil {
				if dvTargets[target] {
					return nil, fmt.Errorf("row delta: two deletion vectors for data file %s", target)
				}
				dvTargets[target] = true
			}
		}
	}
	planned, err := t.plannedOn(opts)
	if err != nil {
		return nil, fmt.Errorf("row delta: %w", err)
	}
	added := append(slices.Clone(dataFiles), deleteFiles...)
	u := &snapshotUpdate{what: "row delta", opts: opts, added: added}
	u.operation = func(r *removal) string { return operationOf(added, r) }
	if len(referenced) > 0 {
		u.plan = func(ctx context.Context, b *commitBase) (*removal, error) {
			if len(dvTargets) > 0 {
				changes, err := b.changesSince(ctx, planned)
				if err != nil {
					return nil, err
				}
				for _, c := range changes {
					for _, e := range c.added {
						if e.DataFile.ContentOffset != nil && dvTargets[e.DataFile.ReferencedDataFile] {
							return nil, fmt.Errorf("snapshot %d gave data file %s a deletion vector after the snapshot the row delta was planned on, %s: %w",
								c.snap.SnapshotID, e.DataFile.ReferencedDataFile, idString(planned), ErrConflict)
						}
					}
				}
			}
			found := map[string]bool{}
			rm := newRemoval()
			err := b.liveFiles(ctx, nil, func(lf liveFile) error {
				df := &lf.entry.DataFile
				switch {
				case df.Content == manifest.ContentData && referenced[df.FilePath]:
					found[df.FilePath] = true
				case df.ContentOffset != nil && dvTargets[df.ReferencedDataFile]:
					rm.add(df)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			for path := range referenced {
				if !found[path] {
					return nil, fmt.Errorf("data file %s, which a delete file names, is not in the table's current snapshot: %w", path, ErrConflict)
				}
			}
			return rm, nil
		}
	}
	return u, nil
}

// referencedDataFile is the one data file a position delete file or
// deletion vector applies to, or "".
func referencedDataFile(df *manifest.DataFile) string {
	if df.Content != manifest.ContentPositionDeletes {
		return ""
	}
	return singleReferencedFile(&DeleteFile{File: *df})
}
