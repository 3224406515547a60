package writer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
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
// current schema) is true and returns the id of the snapshot that does
// it; a row for which the filter is false or null stays. Data files the
// filter selects whole, by partition or column metrics, are removed;
// the others it may select are read with the filter (deletes already in
// the table applied) to find the selected rows, which are then deleted
// by the mode (RowOptions.Mode, else write.delete.mode): copy-on-write
// rewrites the file with the rows that stay, merge-on-read writes
// position delete files (v2) or deletion vectors (v3) merged with the
// file's previous vector. A file left with no row is removed.
//
// When no row is selected nothing is committed (as Java does) and the id
// of the branch's head (0 for a table without snapshot) is returned. The
// snapshot's operation is "delete", or "overwrite" when files were
// rewritten. A token already committed returns that snapshot at once.
// The commit fails with table.ErrConflict, committing nothing and leaving
// no file behind, when another writer changed what the filter selects
// meanwhile (see table.CommitRows). On success tbl holds the new version.
func DeleteRows(ctx context.Context, tbl *table.Table, filter expr.Expr, opts RowOptions) (table.CommitResult, error) {
	return changeRows(ctx, tbl, "delete rows", filter, nil, opts)
}

// OverwriteRows deletes the rows filter selects, as DeleteRows does, and
// adds the data files (written by Writer for tbl) in the same snapshot,
// whose operation is "overwrite" ("delete" when added is empty). Files
// selected in part are handled by the delete mode, so the filter need not
// follow file or partition boundaries (table.Overwrite drops whole files
// only). With nothing to delete and nothing added, nothing is committed.
func OverwriteRows(ctx context.Context, tbl *table.Table, filter expr.Expr, added []manifest.DataFile, opts RowOptions) (table.CommitResult, error) {
	for i := range added {
		if added[i].Content != manifest.ContentData {
			return table.CommitResult{}, fmt.Errorf("overwrite rows: %s is a %s file; overwrite adds data files only", added[i].FilePath, added[i].Content)
		}
	}
	return changeRows(ctx, tbl, "overwrite rows", filter, added, opts)
}

func changeRows(ctx context.Context, tbl *table.Table, what string, filter expr.Expr, added []manifest.DataFile, opts RowOptions) (table.CommitResult, error) {
	if tbl == nil {
		return table.CommitResult{}, fmt.Errorf("%s: no table", what)
	}
	if filter == nil {
		return table.CommitResult{}, fmt.Errorf("%s: no filter (use expr.AlwaysTrue{} to select every row)", what)
	}
	if id, ok := table.SnapshotWithToken(tbl.Metadata, opts.Commit.Token); ok {
		return table.CommitResult{SnapshotID: id, TokenFound: true}, nil
	}
	c, err := newRowChange(ctx, tbl, opts)
	if err != nil {
		return table.CommitResult{}, fmt.Errorf("%s: %w", what, err)
	}
	plan, err := tbl.PlanRows(ctx, filter, opts.Commit.Branch)
	if err != nil {
		return table.CommitResult{}, fmt.Errorf("%s: %w", what, err)
	}
	c.plan = plan
	changes, err := c.run()
	if err != nil {
		c.deleteWritten()
		return table.CommitResult{}, fmt.Errorf("%s: %w", what, err)
	}
	if len(plan.Whole) == 0 && len(changes.RemovedDataFiles) == 0 && len(changes.DeleteFiles) == 0 && len(changes.DataFiles) == 0 && len(added) == 0 {
		return table.CommitResult{SnapshotID: plan.SnapshotID()}, nil
	}
	changes.DataFiles = append(changes.DataFiles, added...)
	res, err := tbl.CommitRows(ctx, plan, changes, opts.Commit)
	if err != nil {
		if !errors.Is(err, table.ErrCommitStateUnknown) {
			c.deleteWritten()
		}
		return table.CommitResult{}, fmt.Errorf("%s: %w", what, err)
	}
	if res.TokenFound {
		// An earlier attempt with the token committed while this one was
		// writing: what this one wrote is not needed.
		c.deleteWritten()
	}
	return res, nil
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
	wopts        Options
	dataLoc      string

	mu      sync.Mutex
	written []string
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
	schema := md.CurrentSchema()
	if schema == nil {
		return nil, fmt.Errorf("table %s has no current schema", md.Location)
	}
	wopts, err := OptionsFromProperties(md.Properties, schema)
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
		threads: threads, wopts: wopts, dataLoc: DataLocation(md),
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

// DataLocation is where a table's data files go: write.data.path, or the
// legacy write.folder-storage.path, else <location>/data.
func DataLocation(md *metadata.Metadata) string {
	for _, key := range []string{"write.data.path", "write.folder-storage.path"} {
		if p := md.Properties[key]; p != "" {
			return p
		}
	}
	return fileio.JoinPath(md.Location, "data")
}

// track records files written, to delete if the change fails.
func (c *rowChange) track(paths ...string) {
	c.mu.Lock()
	c.written = append(c.written, paths...)
	c.mu.Unlock()
}

// deleteWritten deletes, best effort, every file the change wrote.
func (c *rowChange) deleteWritten() {
	ctx := context.WithoutCancel(c.ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.written {
		_ = c.tbl.IO.Delete(ctx, p)
	}
	c.written = nil
}
