package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// Overwrite replaces the rows a filter selects with the added data files,
// in one snapshot. The filter (unbound, over the
// current schema) must select whole files: a live data file of which some
// rows pass and some may not is an error, since only files can be
// dropped. Files are judged by partition first (the filter's residual for
// their partition), then by column metrics. Delete files of partitions the
// filter selects entirely go too, as nothing is left for them to apply to.
//
// The commit is planned on t's current version. If another writer added
// or removed a data file that may hold rows the filter selects after that
// version, it fails with ErrConflict, committing nothing; other concurrent
// commits are built upon and retried.
func (t *Table) Overwrite(ctx context.Context, filter expr.Expr, added []manifest.DataFile, opts CommitOptions) (CommitResult, error) {
	u, err := t.overwriteUpdate(filter, added, opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// overwriteUpdate validates a Overwrite and describes its snapshot.
func (t *Table) overwriteUpdate(filter expr.Expr, added []manifest.DataFile, opts CommitOptions) (*snapshotUpdate, error) {
	if filter == nil {
		return nil, fmt.Errorf("overwrite: no filter (use expr.AlwaysTrue{} to overwrite the whole table)")
	}
	for i := range added {
		if added[i].Content != manifest.ContentData {
			return nil, fmt.Errorf("overwrite: %s is a %s file; overwrite adds data files only", added[i].FilePath, added[i].Content)
		}
	}
	planned, err := t.plannedOn(opts)
	if err != nil {
		return nil, fmt.Errorf("overwrite: %w", err)
	}
	u := &snapshotUpdate{what: "overwrite", opts: opts, added: added}
	u.plan = func(ctx context.Context, b *commitBase) (*removal, error) {
		ff, err := newFileFilter(b.t, filter)
		if err != nil {
			return nil, err
		}
		changes, err := b.changesSince(ctx, planned)
		if err != nil {
			return nil, err
		}
		if err := checkSelectedDataUnchanged(changes, ff, filter, planned); err != nil {
			return nil, err
		}
		rm := newRemoval()
		err = b.liveFiles(ctx, nil, func(lf liveFile) error {
			df := &lf.entry.DataFile
			if df.Content != manifest.ContentData {
				whole, err := ff.wholePartition(df)
				if whole {
					rm.add(df)
				}
				return err
			}
			m, err := ff.dataFile(df)
			switch {
			case err != nil:
				return err
			case m == matchAll:
				rm.add(df)
			case m == matchSome:
				return fmt.Errorf("the filter %s selects some rows of %s (in %s) but maybe not all; overwrite drops whole files only",
					filter, df.FilePath, describePartition(b.t, df))
			}
			return nil
		})
		return rm, err
	}
	u.operation = func(r *removal) string { return operationOf(added, r) }
	return u, nil
}

// checkSelectedDataUnchanged fails with ErrConflict when one of the
// changes (snapshots after planned) added or removed a data file that may
// hold rows the filter selects: a change by filter planned on the older
// version would miss those rows, or act on rows that are gone.
func checkSelectedDataUnchanged(changes []snapshotChange, ff *fileFilter, filter expr.Expr, planned *int64) error {
	for _, c := range changes {
		for _, group := range [][]manifest.Entry{c.added, c.deleted} {
			for i := range group {
				df := &group[i].DataFile
				if df.Content != manifest.ContentData {
					continue
				}
				hit, err := ff.mightMatch(df)
				if err != nil {
					return err
				}
				if hit {
					return fmt.Errorf("snapshot %d changed %s, which the filter %s selects, after snapshot %s the change was planned on: %w",
						c.snap.SnapshotID, df.FilePath, filter, idString(planned), ErrConflict)
				}
			}
		}
	}
	return nil
}

// plannedOn is the snapshot a change is planned on: the head of the branch
// it commits to, in t as the caller holds it.
func (t *Table) plannedOn(opts CommitOptions) (*int64, error) {
	b, err := newCommitBase(t, opts.branch())
	if err != nil {
		return nil, err
	}
	return b.headID(), nil
}

func idString(id *int64) string {
	if id == nil {
		return "(none: the table was empty)"
	}
	return fmt.Sprint(*id)
}
