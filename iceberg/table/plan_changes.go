package table

import (
	"context"
	"errors"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// ChangeKind is what a changelog task's data file went through in its
// snapshot.
type ChangeKind int

const (
	// ChangeAdded: the snapshot added the file; its rows live at the
	// snapshot (read with Deletes) were inserted.
	ChangeAdded ChangeKind = iota
	// ChangeRemoved: the snapshot removed the file; its rows live just
	// before (read with Before) were deleted.
	ChangeRemoved
	// ChangeDeletes: the file stayed but the deletes that apply to it
	// changed: rows live with Before and not with Deletes were deleted
	// (and, were a delete ever withdrawn, rows live only with Deletes were
	// inserted).
	ChangeDeletes
)

func (k ChangeKind) String() string {
	switch k {
	case ChangeAdded:
		return "added"
	case ChangeRemoved:
		return "removed"
	default:
		return "deletes"
	}
}

// ChangeTask is one data file a changelog scan reads for one snapshot:
// the file with the deletes that apply to it at the snapshot (Deletes)
// and just before it (Before).
type ChangeTask struct {
	DataFileTask
	Before []*DeleteFile
	Kind   ChangeKind
	// Snapshot made the change; Ordinal is its place among the changelog's
	// snapshots, 0 for the oldest (Java's _change_ordinal).
	Snapshot *metadata.Snapshot
	Ordinal  int
}

// ChangelogSnapshots are the snapshots a changelog scan reports, oldest
// first: to's ancestry after fromExclusive (the rules of AppendsBetween),
// without "replace" snapshots, which rewrite files and change no row, as
// Java's changelog scan leaves them out.
func (t *Table) ChangelogSnapshots(fromExclusive *int64, to *metadata.Snapshot) ([]*metadata.Snapshot, error) {
	path, err := t.snapshotsBetween("changelog scan", fromExclusive, to)
	if err != nil {
		return nil, err
	}
	kept := path[:0]
	for _, s := range path {
		if s.Operation() != OpReplace {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// StreamChanges plans a changelog scan: for each snapshot of
// ChangelogSnapshots in order, the data files whose rows it changed, as
// ChangeTasks. Nothing but each snapshot's own manifests (those it wrote)
// and its delete manifests are read: the files it added and removed are
// its manifests' ADDED and DELETED entries; the deletes live just before
// it are those live at it, less the delete files it added, plus those it
// removed. Only a snapshot that added or removed delete files has its
// data manifests read too, to find the files whose deletes it changed.
// The filter prunes manifests and files as planning does and sets each
// task's residual. The plan returned has the selected snapshot and schema.
func (t *Table) StreamChanges(ctx context.Context, fromExclusive *int64, sel SnapshotSelector, filter expr.Expr, caseInsensitive bool, each func(ChangeTask) error) (*Plan, error) {
	snap, err := t.Snapshot(sel)
	if err != nil {
		return nil, err
	}
	schema, err := t.ReadSchema(sel, snap)
	if err != nil {
		return nil, err
	}
	snaps, err := t.ChangelogSnapshots(fromExclusive, snap)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Snapshot: snap, Schema: schema}
	var pruner *filePruner
	if filter != nil {
		pf, err := t.BindPruningFilter(filter, schema, caseInsensitive)
		if err != nil {
			return nil, err
		}
		pruner = &filePruner{t: t, filter: pf.Bound, metrics: pf.Metrics, specs: map[int]*specPruner{}, keepDeleted: true}
	}
	for ordinal, s := range snaps {
		c := snapshotChanges{t: t, snap: s, ordinal: ordinal, pruner: pruner, plan: plan}
		if err := c.stream(ctx, each); err != nil {
			if errors.Is(err, ErrStop) {
				return plan, nil
			}
			return nil, err
		}
	}
	return plan, nil
}

// snapshotChanges plans one snapshot's changes.
type snapshotChanges struct {
	t       *Table
	snap    *metadata.Snapshot
	ordinal int
	pruner  *filePruner
	plan    *Plan

	added, removed                []DataFileTask
	addedDeletes, removedDeletes  []*DeleteFile
	addedPaths                    map[string]bool
	addedDeletePaths, removedDels map[string]bool
}

func (c *snapshotChanges) stream(ctx context.Context, each func(ChangeTask) error) error {
	t := c.t
	list, err := t.manifestsOf(ctx, c.snap)
	if err != nil {
		return err
	}
	if c.pruner != nil {
		kept, err := c.pruner.keepManifests(list)
		if err != nil {
			return err
		}
		c.plan.ManifestsSkipped += len(list) - len(kept)
		list = kept
	}
	var own, dataManifests, deleteManifests []manifest.ManifestFile
	for _, mf := range list {
		if c.wrote(mf) {
			own = append(own, mf)
		}
		if mf.Content == manifest.ManifestContentDeletes {
			deleteManifests = append(deleteManifests, mf)
		} else {
			dataManifests = append(dataManifests, mf)
		}
	}
	if err := c.readOwn(ctx, own); err != nil {
		return err
	}
	// The deletes live at the snapshot and just before it, indexed; none
	// is read when neither the snapshot nor its parent has a delete file.
	var after, before *deleteIndex
	if len(deleteManifests) > 0 || len(c.removedDeletes) > 0 {
		live, err := c.liveDeletes(ctx, deleteManifests)
		if err != nil {
			return err
		}
		prior := make([]*DeleteFile, 0, len(live)+len(c.removedDeletes))
		for _, d := range live {
			if !c.addedDeletePaths[d.Path] {
				prior = append(prior, d)
			}
		}
		prior = append(prior, c.removedDeletes...)
		if after, err = t.indexOrNil(live); err != nil {
			return err
		}
		if before, err = t.indexOrNil(prior); err != nil {
			return err
		}
	}
	emit := func(dt DataFileTask, kind ChangeKind) error {
		task := ChangeTask{DataFileTask: dt, Kind: kind, Snapshot: c.snap, Ordinal: c.ordinal}
		if after != nil && kind != ChangeRemoved {
			task.Deletes = after.forDataFile(&task.DataFileTask, t)
		}
		if before != nil && kind != ChangeAdded {
			task.Before = before.forDataFile(&task.DataFileTask, t)
		}
		if kind == ChangeDeletes && sameDeletes(task.Before, task.Deletes) {
			return nil
		}
		return each(task)
	}
	for _, dt := range c.removed {
		if err := emit(dt, ChangeRemoved); err != nil {
			return err
		}
	}
	if len(c.addedDeletes) > 0 || len(c.removedDeletes) > 0 {
		// Files the snapshot kept may have gained (or lost) deletes.
		read := func(ctx context.Context, i int) manifestRead {
			return c.readEntries(ctx, dataManifests[i], func(e *manifest.Entry) bool {
				return e.Status != manifest.StatusDeleted && !c.addedPaths[t.Locations.Apply(e.DataFile.FilePath)]
			})
		}
		err := streamManifests(ctx, dataManifests, read, func(_ int, r *manifestRead) error {
			c.plan.DataFilesSkipped += r.skipped
			for i := range r.entries {
				if err := emit(c.taskOf(r, i), ChangeDeletes); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, dt := range c.added {
		if err := emit(dt, ChangeAdded); err != nil {
			return err
		}
	}
	return nil
}

// readOwn reads the manifests the snapshot wrote: the data files it added
// and removed, and the delete files it added and removed (entries whose
// snapshot id is its own; a merged manifest also lists older files as
// EXISTING).
func (c *snapshotChanges) readOwn(ctx context.Context, own []manifest.ManifestFile) error {
	c.addedPaths, c.addedDeletePaths, c.removedDels = map[string]bool{}, map[string]bool{}, map[string]bool{}
	read := func(ctx context.Context, i int) manifestRead {
		return c.readEntries(ctx, own[i], func(e *manifest.Entry) bool {
			// A legacy v1 snapshot listing its manifests inline names
			// every live manifest, each taken as its own (manifestsOf):
			// only its entries' snapshot ids tell what it added.
			return e.Status != manifest.StatusExisting && (c.snap.ManifestList != "" || e.SnapshotID == c.snap.SnapshotID)
		})
	}
	return streamManifests(ctx, own, read, func(i int, r *manifestRead) error {
		c.plan.ManifestsRead++
		c.plan.DataFilesSkipped += r.skipped
		deletes := own[i].Content == manifest.ManifestContentDeletes
		for j := range r.entries {
			e := &r.entries[j]
			dt := c.taskOf(r, j)
			switch {
			case deletes && e.Status == manifest.StatusAdded:
				c.addedDeletes = append(c.addedDeletes, deleteFileOf(&dt))
				c.addedDeletePaths[dt.Path] = true
			case deletes:
				c.removedDeletes = append(c.removedDeletes, deleteFileOf(&dt))
				c.removedDels[dt.Path] = true
			case e.Status == manifest.StatusAdded:
				c.added = append(c.added, dt)
				c.addedPaths[dt.Path] = true
			default:
				c.removed = append(c.removed, dt)
			}
		}
		return nil
	})
}

// wrote reports whether the snapshot wrote the manifest: its
// added_snapshot_id, or (v2 on) its sequence number, which only the
// commit that wrote it has. A manifest it wrote holds ADDED and DELETED
// entries of its own only (older files it lists are EXISTING), and the
// sequence number still finds them in a table whose metadata misspells
// the snapshot's id (Impala's hand-edited v3_all_types fixture).
func (c *snapshotChanges) wrote(mf manifest.ManifestFile) bool {
	if mf.AddedSnapshotID == c.snap.SnapshotID {
		return true
	}
	return c.snap.SequenceNumber > 0 && mf.SequenceNumber == c.snap.SequenceNumber
}

// readEntries reads a manifest, keeps the entries keep accepts and
// prunes them by the filter (data manifests only: a delete file is kept
// whatever the filter, as its rows are matched to data files later).
func (c *snapshotChanges) readEntries(ctx context.Context, mf manifest.ManifestFile, keep func(*manifest.Entry) bool) manifestRead {
	var r manifestRead
	entries, err := c.t.readManifest(ctx, mf)
	if err != nil {
		r.err = err
		return r
	}
	kept := entries[:0]
	for i := range entries {
		if keep(&entries[i]) {
			kept = append(kept, entries[i])
		}
	}
	r.entries = kept
	if c.pruner != nil && mf.Content != manifest.ManifestContentDeletes {
		r.entries, r.err = c.pruner.pruneEntries(&mf, r.entries, &r.residuals, &r.skipped)
	}
	return r
}

// liveDeletes are the snapshot's live delete files.
func (c *snapshotChanges) liveDeletes(ctx context.Context, manifests []manifest.ManifestFile) ([]*DeleteFile, error) {
	var live []*DeleteFile
	read := func(ctx context.Context, i int) manifestRead {
		return c.readEntries(ctx, manifests[i], func(e *manifest.Entry) bool { return e.Status != manifest.StatusDeleted })
	}
	err := streamManifests(ctx, manifests, read, func(_ int, r *manifestRead) error {
		c.plan.ManifestsRead++
		for i := range r.entries {
			dt := c.taskOf(r, i)
			live = append(live, deleteFileOf(&dt))
		}
		return nil
	})
	return live, err
}

func (c *snapshotChanges) taskOf(r *manifestRead, i int) DataFileTask {
	e := &r.entries[i]
	dt := DataFileTask{Path: c.t.Locations.Apply(e.DataFile.FilePath), File: e.DataFile,
		DataSequenceNumber: e.SequenceNumber, FileSequenceNumber: e.FileSequenceNumber}
	if r.residuals != nil {
		dt.Residual = r.residuals[i]
	}
	return dt
}

func deleteFileOf(dt *DataFileTask) *DeleteFile {
	return &DeleteFile{Path: dt.Path, File: dt.File, DataSequenceNumber: dt.DataSequenceNumber, FileSequenceNumber: dt.FileSequenceNumber}
}

func (t *Table) indexOrNil(deletes []*DeleteFile) (*deleteIndex, error) {
	if len(deletes) == 0 {
		return nil, nil
	}
	return t.buildDeleteIndex(deletes)
}

// sameDeletes reports whether two lists name the same delete files.
func sameDeletes(a, b []*DeleteFile) bool {
	if len(a) != len(b) {
		return false
	}
	names := make(map[string]int, len(a))
	for _, d := range a {
		names[d.Path]++
	}
	for _, d := range b {
		if names[d.Path] == 0 {
			return false
		}
		names[d.Path]--
	}
	return true
}
