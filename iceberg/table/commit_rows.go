package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// RowsPlan is how a row filter splits the live data files of a branch's
// head for a row-level change (delete or overwrite by filter): the files
// it selects whole, which the change removes, and those it may select in
// part, whose rows a writer reads to find the selected ones (package
// writer's DeleteRows and OverwriteRows). CommitRows commits what the
// writer made of them.
type RowsPlan struct {
	// Filter is the row filter, unbound, over the current schema.
	Filter expr.Expr
	// Branch is the branch planned on and committed to.
	Branch string
	// Snapshot is the head the plan was made on; nil for a table with no
	// snapshot.
	Snapshot *metadata.Snapshot
	// Schema is the schema the snapshot was written with.
	Schema *iceberg.Schema
	// Whole are the data files every row of which the filter selects, by
	// their partition or their column metrics.
	Whole []DataFileTask
	// Partial are the data files of which the filter may select some rows,
	// each with its residual and the deletes that apply to it.
	Partial []DataFileTask
	// KeepPartitionDeletes keeps the delete files of partitions the filter
	// selects entirely: a change that deletes only rows it located (an
	// upsert, whose filter merely narrows where its keys may be) leaves
	// the other rows there, and the deletes that apply to them.
	KeepPartitionDeletes bool
}

// SnapshotID is the id of the snapshot planned on, 0 for none.
func (p *RowsPlan) SnapshotID() int64 {
	if p.Snapshot == nil {
		return 0
	}
	return p.Snapshot.SnapshotID
}

// PlanRows plans a row-level change by filter on the head of branch (""
// is main; a branch that does not exist yet is planned on main's head).
// Files are judged by partition first (the filter's residual for their
// partition), then by column metrics, as Overwrite judges them.
func (t *Table) PlanRows(ctx context.Context, filter expr.Expr, branch string) (*RowsPlan, error) {
	if filter == nil {
		return nil, fmt.Errorf("plan rows: no filter (use expr.AlwaysTrue{} to select every row)")
	}
	opts := CommitOptions{Branch: branch}
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("plan rows: %w", err)
	}
	b, err := newCommitBase(t, opts.branch())
	if err != nil {
		return nil, fmt.Errorf("plan rows: %w", err)
	}
	ff, err := newFileFilter(t, filter)
	if err != nil {
		return nil, fmt.Errorf("plan rows: %w", err)
	}
	plan := &RowsPlan{Filter: filter, Branch: b.branch, Snapshot: b.head, Schema: t.Metadata.CurrentSchema()}
	if b.head == nil {
		return plan, nil
	}
	id := b.head.SnapshotID
	files, err := t.PlanFilesFiltered(ctx, SnapshotSelector{SnapshotID: &id}, filter, false)
	if err != nil {
		return nil, fmt.Errorf("plan rows: %w", err)
	}
	plan.Schema = files.Schema
	for i := range files.Tasks {
		task := &files.Tasks[i]
		m, err := ff.dataFile(&task.File)
		if err != nil {
			return nil, fmt.Errorf("plan rows: %w", err)
		}
		switch m {
		case matchAll:
			plan.Whole = append(plan.Whole, *task)
		case matchSome:
			plan.Partial = append(plan.Partial, *task)
		}
	}
	return plan, nil
}

// RowChanges are what a writer made of a RowsPlan's partly selected files.
type RowChanges struct {
	// RemovedDataFiles are paths, as the manifests write them, of the
	// plan's Partial files that go: rewritten without the selected rows
	// (copy-on-write), or left with no row.
	RemovedDataFiles []string
	// DataFiles are added: the rewritten rows, and new rows.
	DataFiles []manifest.DataFile
	// DeleteFiles are added: position delete files (v2), deletion vectors
	// (v3), each replacing its data file's previous one, which the writer
	// merged into it, or equality delete files.
	DeleteFiles []manifest.DataFile
}

// CommitRows commits a row-level change in one snapshot: the plan's Whole files and changes.RemovedDataFiles are removed,
// changes' files added, and deletion vectors replace their data files'
// previous ones. Delete files of partitions the filter selects entirely
// go too, as nothing is left for them to apply to. The operation is
// "overwrite" when data files are added, "delete" otherwise.
//
// t may be newer than the plan's snapshot. The commit fails with
// ErrConflict, committing nothing, when after the plan's snapshot another
// writer added or removed a data file the filter may select, gave a data
// file this commit gives a deletion vector a vector of its own, or added
// deletes that may apply to a data file this commit removes in part (its
// rewritten rows would not be deleted), or when a data file a delete file
// names is gone. Other concurrent commits are built upon and retried.
func (t *Table) CommitRows(ctx context.Context, plan *RowsPlan, changes RowChanges, opts CommitOptions) (CommitResult, error) {
	u, err := t.commitRowsUpdate(plan, changes, opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// commitRowsUpdate validates a CommitRows and describes its snapshot.
func (t *Table) commitRowsUpdate(plan *RowsPlan, changes RowChanges, opts CommitOptions) (*snapshotUpdate, error) {
	const what = "commit rows"
	if plan == nil || plan.Filter == nil {
		return nil, fmt.Errorf("%s: no plan", what)
	}
	if plan.Branch != opts.branch() {
		return nil, fmt.Errorf("%s: the plan is for branch %q, the commit for %q", what, plan.Branch, opts.branch())
	}
	v, err := newRowsValidation(t, plan, &changes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var planned *int64
	if plan.Snapshot != nil {
		id := plan.Snapshot.SnapshotID
		planned = &id
	}
	added := make([]manifest.DataFile, 0, len(changes.DataFiles)+len(changes.DeleteFiles))
	added = append(append(added, changes.DataFiles...), changes.DeleteFiles...)
	u := &snapshotUpdate{what: what, opts: opts, added: added}
	u.operation = func(*removal) string {
		if len(changes.DataFiles) > 0 {
			return OpOverwrite
		}
		return OpDelete
	}
	u.plan = func(ctx context.Context, b *commitBase) (*removal, error) {
		ff, err := newFileFilter(b.t, plan.Filter)
		if err != nil {
			return nil, err
		}
		history, err := b.changesSince(ctx, planned)
		if err != nil {
			return nil, err
		}
		if err := checkSelectedDataUnchanged(history, ff, plan.Filter, planned); err != nil {
			return nil, err
		}
		if err := v.checkNewDeletes(b.t, history, planned); err != nil {
			return nil, err
		}
		return v.removal(ctx, b, ff)
	}
	return u, nil
}

// rowsValidation is what a row-level commit checks on each attempt. Paths
// are keyed with the location map applied: other engines' delete files may
// spell a data file's path another way than its manifest entry does.
type rowsValidation struct {
	removed map[string]*manifest.DataFile // whole and partly selected files removed
	// rewritten are the partly selected files removed, and their
	// partitions: deletes added to them by other writers would be lost.
	rewritten           map[string]bool
	rewrittenPartitions map[string]bool
	// referenced are the data files the added delete files name;
	// vectors those that get a deletion vector.
	referenced map[string]string // applied path → path as written
	vectors    map[string]bool
	// keepDeletes: RowsPlan.KeepPartitionDeletes.
	keepDeletes bool
}

func newRowsValidation(t *Table, plan *RowsPlan, changes *RowChanges) (*rowsValidation, error) {
	if t.Metadata.FormatVersion < 2 && len(changes.DeleteFiles) > 0 {
		return nil, fmt.Errorf("format version 1 tables have no row-level deletes: rewrite the files instead (copy-on-write)")
	}
	key := t.Locations.Apply
	v := &rowsValidation{
		removed: map[string]*manifest.DataFile{}, rewritten: map[string]bool{}, rewrittenPartitions: map[string]bool{},
		referenced: map[string]string{}, vectors: map[string]bool{}, keepDeletes: plan.KeepPartitionDeletes,
	}
	for i := range plan.Whole {
		v.removed[key(plan.Whole[i].File.FilePath)] = &plan.Whole[i].File
	}
	partial := map[string]*manifest.DataFile{}
	for i := range plan.Partial {
		partial[key(plan.Partial[i].File.FilePath)] = &plan.Partial[i].File
	}
	for _, p := range changes.RemovedDataFiles {
		df := partial[key(p)]
		if df == nil {
			return nil, fmt.Errorf("%s is not among the files the plan selects in part", p)
		}
		if v.rewritten[key(p)] {
			return nil, fmt.Errorf("%s is removed twice", p)
		}
		v.removed[key(p)] = df
		v.rewritten[key(p)] = true
		v.rewrittenPartitions[PartitionKey(df.SpecID, df.Partition)] = true
	}
	for i := range changes.DataFiles {
		if df := &changes.DataFiles[i]; df.Content != manifest.ContentData {
			return nil, fmt.Errorf("%s is a %s file among the data files", df.FilePath, df.Content)
		}
	}
	for i := range changes.DeleteFiles {
		df := &changes.DeleteFiles[i]
		if df.Content == manifest.ContentData {
			return nil, fmt.Errorf("%s is a data file among the delete files", df.FilePath)
		}
		target := referencedDataFile(df)
		if target == "" {
			continue
		}
		if v.removed[key(target)] != nil {
			return nil, fmt.Errorf("delete file %s deletes rows of %s, which the change removes", df.FilePath, target)
		}
		v.referenced[key(target)] = target
		if df.ContentOffset != nil {
			if v.vectors[key(target)] {
				return nil, fmt.Errorf("two deletion vectors for data file %s", target)
			}
			v.vectors[key(target)] = true
		}
	}
	return v, nil
}

// checkNewDeletes fails with ErrConflict when a snapshot in history added
// a deletion vector for a data file this commit gives one (it would be
// dropped unmerged), or deletes that may apply to a file this commit
// rewrites (the rewritten rows would escape them).
func (v *rowsValidation) checkNewDeletes(t *Table, history []snapshotChange, planned *int64) error {
	if len(v.vectors) == 0 && len(v.rewritten) == 0 {
		return nil
	}
	for _, c := range history {
		for i := range c.added {
			df := &c.added[i].DataFile
			if df.Content == manifest.ContentData {
				continue
			}
			target := t.Locations.Apply(referencedDataFile(df))
			var hit bool
			switch {
			case df.ContentOffset != nil:
				hit = v.vectors[target] || v.rewritten[target]
			case target != "":
				hit = v.rewritten[target]
			case df.Content == manifest.ContentEqualityDeletes && isUnpartitionedSpec(t, df.SpecID):
				hit = len(v.rewritten) > 0
			default:
				hit = v.rewrittenPartitions[PartitionKey(df.SpecID, df.Partition)]
			}
			if hit {
				return fmt.Errorf("snapshot %d added delete file %s, which may apply to a data file this change rewrites or gives a deletion vector, after snapshot %s the change was planned on: %w",
					c.snap.SnapshotID, df.FilePath, idString(planned), ErrConflict)
			}
		}
	}
	return nil
}

func isUnpartitionedSpec(t *Table, specID int) bool {
	spec := t.Metadata.SpecByID(specID)
	return spec == nil || spec.IsUnpartitioned()
}

// removal lists what the commit removes from the base: the removed data
// files, the deletion vectors replaced, and the delete files of partitions
// the filter selects entirely. It fails with ErrConflict when a data file
// a delete file names is not live.
func (v *rowsValidation) removal(ctx context.Context, b *commitBase, ff *fileFilter) (*removal, error) {
	rm := newRemoval()
	for _, df := range v.removed {
		rm.add(df)
	}
	found := map[string]bool{}
	err := b.liveFiles(ctx, nil, func(lf liveFile) error {
		df := &lf.entry.DataFile
		if df.Content == manifest.ContentData {
			if p := b.t.Locations.Apply(df.FilePath); v.referenced[p] != "" {
				found[p] = true
			}
			return nil
		}
		if df.ContentOffset != nil && v.vectors[b.t.Locations.Apply(df.ReferencedDataFile)] {
			rm.add(df)
			return nil
		}
		if v.keepDeletes {
			return nil
		}
		whole, err := ff.wholePartition(df)
		if whole {
			rm.add(df)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for p, written := range v.referenced {
		if !found[p] {
			return nil, fmt.Errorf("data file %s, which a delete file names, is not in the table's current snapshot: %w", written, ErrConflict)
		}
	}
	return rm, nil
}
