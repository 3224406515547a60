package ops

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
)

// Table properties that steer row-level changes, with Java's defaults.
const (
	// PropDeleteMode is how rows are deleted from files a filter selects in
	// part: copy-on-write (the default) or merge-on-read.
	PropDeleteMode = "write.delete.mode"
	// PropDeleteGranularity is file (the default: one position delete file
	// per data file) or partition (one per partition).
	PropDeleteGranularity = "write.delete.granularity"
)

// DeleteMode is how a row-level change deletes some of a data file's rows.
type DeleteMode string

const (
	// CopyOnWrite rewrites the file without the deleted rows.
	CopyOnWrite DeleteMode = "copy-on-write"
	// MergeOnRead writes delete files that readers apply: position delete
	// files on format v2, deletion vectors on v3.
	MergeOnRead DeleteMode = "merge-on-read"
)

// RowOptions configure DeleteRows and OverwriteRows.
type RowOptions struct {
	// Commit carries the commit's token, summary properties and branch.
	Commit table.CommitOptions
	// Mode overrides the table's write.delete.mode; "" follows it. Format
	// v1 tables have no delete files: they always copy on write, and asking
	// for merge-on-read there is an error.
	Mode DeleteMode
	// Threads is how many data files are read and rewritten at once; 0
	// means GOMAXPROCS.
	Threads int
}

// DeleteRows deletes the rows of tbl for which filter (unbound, over the
// current schema) is true; a row for which the filter is false or null
// stays. Data files the filter selects whole, by partition or column
// metrics, are removed; the others it may select are read with the filter
// (deletes already in the table applied) to find the selected rows, which
// are then deleted by the mode (RowOptions.Mode, else write.delete.mode):
// copy-on-write rewrites the file with the rows that stay, merge-on-read
// writes position delete files (v2) or deletion vectors (v3) merged with
// the file's previous vector. A file left with no row is removed.
//
// When no row is selected nothing is committed (as Java does) and the
// result names the branch's head (0 for a table without snapshot). The
// snapshot's operation is "delete", or "overwrite" when files were
// rewritten. A token already committed returns that snapshot at once.
// The commit fails with table.ErrConflict, committing nothing and leaving
// no file behind, when another writer changed what the filter selects
// meanwhile (see table.CommitRows). On success tbl holds the new version.
func DeleteRows(ctx context.Context, tbl *table.Table, filter expr.Expr, opts RowOptions) (Result, error) {
	return changeRows(ctx, tbl, "delete rows", filter, nil, opts)
}

// OverwriteRows deletes the rows filter selects, as DeleteRows does, and
// writes data (nil for none) as data files added in the same snapshot,
// whose operation is "overwrite" ("delete" when nothing is added). Files
// selected in part are handled by the delete mode, so the filter need not
// follow file or partition boundaries (Overwrite drops whole files only).
// With nothing to delete and nothing added, nothing is committed.
func OverwriteRows(ctx context.Context, tbl *table.Table, filter expr.Expr, data array.RecordReader, opts RowOptions) (Result, error) {
	return changeRows(ctx, tbl, "overwrite rows", filter, data, opts)
}

func changeRows(ctx context.Context, tbl *table.Table, what string, filter expr.Expr, data array.RecordReader, opts RowOptions) (Result, error) {
	if tbl == nil {
		return Result{}, fmt.Errorf("%s: no table", what)
	}
	if filter == nil {
		return Result{}, fmt.Errorf("%s: no filter (use expr.AlwaysTrue{} to select every row)", what)
	}
	if res, ok, err := tokenFound(tbl, opts.Commit.Token); err != nil {
		return Result{}, fmt.Errorf("%s: %w", what, err)
	} else if ok {
		return res, nil
	}
	rc, err := prepareRows(ctx, tbl, what, filter, data, opts)
	if err != nil {
		return Result{}, err
	}
	if rc.empty {
		return Result{SnapshotID: rc.plan.SnapshotID()}, nil
	}
	c, plan, changes := rc.c, rc.plan, rc.changes
	files := append(slices.Clone(changes.DataFiles), changes.DeleteFiles...)
	res, err := commit(ctx, c.w, files, func() (table.CommitResult, error) {
		return tbl.CommitRows(ctx, plan, changes, opts.Commit)
	})
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", what, err)
	}
	if res.Committed {
		res.DeletedRows = c.deleted
	}
	return res, nil
}

// preparedRows is a row-level change written and ready to commit.
type preparedRows struct {
	c       *rowChange
	plan    *table.RowsPlan
	changes table.RowChanges
	// empty: nothing selected and nothing added; nothing was written.
	empty bool
}

// prepareRows writes a row-level change's files: data added, then the
// rows filter selects planned on tbl and their delete files or rewritten
// files. On an error nothing written is left.
func prepareRows(ctx context.Context, tbl *table.Table, what string, filter expr.Expr, data array.RecordReader, opts RowOptions) (*preparedRows, error) {
	if filter == nil {
		return nil, fmt.Errorf("%s: no filter (use expr.AlwaysTrue{} to select every row)", what)
	}
	c, err := newRowChange(ctx, tbl, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	added, err := write(ctx, tbl, data, c.w)
	if err != nil {
		c.w.remove(ctx)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	plan, err := tbl.PlanRows(ctx, filter, opts.Commit.Branch)
	if err != nil {
		c.w.remove(ctx)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	c.plan = plan
	changes, err := c.run()
	if err == nil {
		err = c.countWhole()
	}
	if err != nil {
		c.w.remove(ctx)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(plan.Whole) == 0 && len(changes.RemovedDataFiles) == 0 && len(changes.DeleteFiles) == 0 && len(changes.DataFiles) == 0 && len(added) == 0 {
		return &preparedRows{c: c, plan: plan, empty: true}, nil
	}
	changes.DataFiles = append(changes.DataFiles, added...)
	return &preparedRows{c: c, plan: plan, changes: changes}, nil
}

// rowChange is one DeleteRows or OverwriteRows in progress: its plan, how
// it deletes, and the files it has written, deleted again on failure.
type rowChange struct {
	ctx          context.Context
	tbl          *table.Table
	md           *metadata.Metadata
	plan         *table.RowsPlan
	mode         DeleteMode
	perPartition bool
	threads      int
	wopts        writer.Options
	dataLoc      string
	// w are the files the change wrote, removed unless committed.
	w *written
	// tasks are the filtered scan's tasks by data file (filteredTasks).
	tasks map[string][]*scan.Task
	// deleted counts the live rows the change deletes (Result.DeletedRows).
	deleted int64
}

func newRowChange(ctx context.Context, tbl *table.Table, opts RowOptions) (*rowChange, error) {
	md := tbl.Metadata
	mode, err := deleteMode(md, opts.Mode)
	if err != nil {
		return nil, err
	}
	var perPartition bool
	switch g := strings.ToLower(strings.TrimSpace(md.Properties[PropDeleteGranularity])); g {
	case "", "file":
	case "partition":
		perPartition = true
	default:
		return nil, fmt.Errorf("table property %s=%q: want file or partition", PropDeleteGranularity, g)
	}
	_, wopts, err := writerOptions(md)
	if err != nil {
		return nil, err
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	wopts.Parallelism = max(1, runtime.GOMAXPROCS(0)/threads)
	return &rowChange{
		ctx: ctx, tbl: tbl, md: md, mode: mode, perPartition: perPartition,
		threads: threads, wopts: wopts, dataLoc: writer.DataLocation(md), w: &written{io: tbl.IO},
	}, nil
}

// Check refuses a mode other than CopyOnWrite and MergeOnRead; the empty
// mode (follow the table) is allowed.
func (m DeleteMode) Check() error {
	switch m {
	case "", CopyOnWrite, MergeOnRead:
		return nil
	}
	return fmt.Errorf("delete mode %q: want %s or %s", string(m), CopyOnWrite, MergeOnRead)
}

// deleteMode resolves the mode a change uses.
func deleteMode(md *metadata.Metadata, requested DeleteMode) (DeleteMode, error) {
	mode := requested
	if mode == "" {
		mode = DeleteMode(strings.ToLower(strings.TrimSpace(md.Properties[PropDeleteMode])))
		if mode == "" {
			mode = CopyOnWrite
		}
	}
	if err := mode.Check(); err != nil {
		return "", err
	}
	if mode == MergeOnRead && md.FormatVersion < 2 {
		if requested == MergeOnRead {
			return "", fmt.Errorf("format version 1 tables have no delete files: use %s", CopyOnWrite)
		}
		mode = CopyOnWrite
	}
	return mode, nil
}
