package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
)

// UpsertMode is how an upsert removes the rows it replaces.
type UpsertMode string

const (
	// UpsertMergeOnRead (the default on format v2 and v3) deletes the
	// replaced rows where they lie: position delete files on v2, deletion
	// vectors on v3.
	UpsertMergeOnRead UpsertMode = "merge-on-read"
	// UpsertCopyOnWrite rewrites the data files holding replaced rows
	// without them (the only mode of format v1).
	UpsertCopyOnWrite UpsertMode = "copy-on-write"
	// UpsertEqualityDeletes writes the replaced keys as equality delete
	// files, which readers join against older data files: one per
	// partition holding replaced rows, in that partition (where the old
	// rows lie, wherever the new ones go; see writeEqualityDeletes).
	UpsertEqualityDeletes UpsertMode = "equality-deletes"
)

// UpsertOptions configure Upsert. The zero value of the two When fields
// does nothing and is refused: set them (pyiceberg defaults both to true).
type UpsertOptions struct {
	// JoinCols are the top-level primitive columns whose values identify a
	// row; nil means the schema's identifier fields.
	JoinCols []string
	// CaseInsensitive matches JoinCols to the schema ignoring case. The
	// input's columns still bind by their exact names.
	CaseInsensitive bool
	// Mode is how replaced rows are removed; "" is merge-on-read on format
	// v2 and v3, copy-on-write on v1.
	Mode UpsertMode
	// WhenMatchedUpdateAll replaces the rows whose key the input holds;
	// WhenNotMatchedInsertAll adds the input rows whose key is new.
	WhenMatchedUpdateAll    bool
	WhenNotMatchedInsertAll bool
	// Commit carries the commit's token, summary properties and branch.
	Commit table.CommitOptions
	// Threads is how many scan tasks are probed (and files rewritten) at
	// once; 0 means GOMAXPROCS.
	Threads int
}

// UpsertResult is what Upsert did: Result, and pyiceberg's counts. Input
// rows equal in every column to the live row they match are neither
// updated nor inserted (nothing is written for them).
type UpsertResult struct {
	Result
	RowsUpdated  int64
	RowsInserted int64
}

// Upsert merges input into tbl by key (JoinCols, else the identifier
// fields): an input row whose key matches live rows replaces them
// (WhenMatchedUpdateAll), one whose key matches none is inserted
// (WhenNotMatchedInsertAll), in one "overwrite" snapshot. The
// input binds to the current schema by column name, as Append's does, and
// is read whole into memory. Two input rows with one key, or a null key,
// are an invalid argument, and nothing is written.
//
// Matching is a hash join: the input's keys are hashed (kernels.Keys),
// then a scan of the table reading the key columns and _pos, narrowed by
// the keys' range or in-list, probes them. Matched rows are compared
// whole to skip unchanged ones: in that scan when the keys reach most
// files, else by reading again only the files holding matches. With
// nothing changed nothing is committed and the result names the branch's
// head. The counts are of input rows; DeletedRows counts the live rows
// replaced (more than RowsUpdated when the table held a key twice).
// Replaced rows are deleted by the mode, through the same commit as
// DeleteRows (table.CommitRows): a concurrent commit that added or
// removed a data file the keys may reach fails it with
// table.ErrConflict, leaving no file behind.
func Upsert(ctx context.Context, tbl *table.Table, input array.RecordReader, opts UpsertOptions) (UpsertResult, error) {
	const what = "upsert"
	if tbl == nil {
		return UpsertResult{}, errkind.Errorf(errkind.InvalidArgument, "%s: no table", what)
	}
	if input == nil {
		return UpsertResult{}, errkind.Errorf(errkind.InvalidArgument, "%s: no input", what)
	}
	if res, ok, err := tokenFound(tbl, opts.Commit.Token); err != nil {
		return UpsertResult{}, fmt.Errorf("%s: %w", what, err)
	} else if ok {
		return UpsertResult{Result: res}, nil
	}
	u, err := prepareUpsert(ctx, tbl, input, opts)
	if err != nil {
		return UpsertResult{}, fmt.Errorf("%s: %w", what, err)
	}
	defer u.release()
	if u.empty() {
		return UpsertResult{Result: Result{SnapshotID: u.plan.SnapshotID()}}, nil
	}
	files := append(slices.Clone(u.changes.DataFiles), u.changes.DeleteFiles...)
	res, err := commit(ctx, u.c.w, files, func() (table.CommitResult, error) {
		return tbl.CommitRows(ctx, u.plan, u.changes, opts.Commit)
	})
	if err != nil {
		return UpsertResult{}, fmt.Errorf("%s: %w", what, err)
	}
	out := UpsertResult{Result: res}
	if res.Committed {
		out.RowsUpdated, out.RowsInserted = u.updated, u.inserted
		out.DeletedRows = u.c.deleted
	}
	return out, nil
}

// upsertMode resolves the mode on a table of format version v.
func upsertMode(requested UpsertMode, v int) (UpsertMode, error) {
	switch requested {
	case "":
		if v < 2 {
			return UpsertCopyOnWrite, nil
		}
		return UpsertMergeOnRead, nil
	case UpsertCopyOnWrite:
		return requested, nil
	case UpsertMergeOnRead, UpsertEqualityDeletes:
		if v < 2 {
			return "", errkind.Errorf(errkind.InvalidArgument, "format version 1 tables have no delete files: use %s", UpsertCopyOnWrite)
		}
		return requested, nil
	}
	return "", errkind.Errorf(errkind.InvalidArgument, "upsert mode %q: want %s, %s or %s", string(requested), UpsertMergeOnRead, UpsertCopyOnWrite, UpsertEqualityDeletes)
}

// deleteModeOf is the row-change mode that removes an upsert's rows by
// position (equality deletes do not go through it).
func (m UpsertMode) deleteModeOf() DeleteMode {
	if m == UpsertCopyOnWrite {
		return CopyOnWrite
	}
	return MergeOnRead
}

// emptyChanges reports whether changes hold nothing.
func emptyChanges(ch *table.RowChanges) bool {
	return len(ch.DataFiles) == 0 && len(ch.DeleteFiles) == 0 && len(ch.RemovedDataFiles) == 0
}
