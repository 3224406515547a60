package table

import (
	"context"
	"errors"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// AppendsBetween lists the snapshots an incremental append scan reads:
// those with operation "append" on to's ancestry after fromExclusive (nil:
// from the oldest ancestor the metadata still has) up to to itself,
// oldest first. Overwrites, deletes and replaces on the way are skipped,
// as Java's IncrementalAppendScan skips them.
//
// fromExclusive NoSnapshot (-1, "before the first snapshot") is nil.
// Otherwise it must be on to's ancestry: to itself (nothing to read), an
// ancestor, or the parent of the oldest ancestor still known (a snapshot
// since expired, which Java accepts too). Otherwise the error is NotFound
// when the table has no such snapshot, and InvalidArgument when it has
// one off the path (to before from, or on another branch).
func (t *Table) AppendsBetween(fromExclusive *int64, to *metadata.Snapshot) ([]*metadata.Snapshot, error) {
	md := t.Metadata
	if fromExclusive != nil && *fromExclusive == NoSnapshot {
		// Before the first snapshot: as far back as the metadata goes.
		fromExclusive = nil
	}
	if to == nil {
		if fromExclusive != nil {
			return nil, errkind.Errorf(errkind.NotFound, "incremental scan: table has no snapshot %d (it has no snapshots)", *fromExclusive)
		}
		return nil, nil
	}
	var path []*metadata.Snapshot
	found := fromExclusive == nil
	for _, a := range md.Ancestors(to) {
		if fromExclusive != nil && a.SnapshotID == *fromExclusive {
			found = true
			break
		}
		path = append(path, a)
		if fromExclusive != nil && a.ParentSnapshotID != nil && *a.ParentSnapshotID == *fromExclusive {
			found = true
			break
		}
	}
	if !found {
		from := *fromExclusive
		fromSnap := md.SnapshotByID(from)
		switch {
		case fromSnap == nil:
			return nil, errkind.Errorf(errkind.NotFound, "incremental scan: table has no snapshot %d (from)", from)
		case isAncestor(md, fromSnap, to.SnapshotID):
			return nil, errkind.Errorf(errkind.InvalidArgument, "incremental scan: snapshot %d (from) comes after snapshot %d (to)", from, to.SnapshotID)
		default:
			return nil, errkind.Errorf(errkind.InvalidArgument, "incremental scan: snapshot %d (from) is not an ancestor of snapshot %d (to)", from, to.SnapshotID)
		}
	}
	var appends []*metadata.Snapshot
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Operation() == OpAppend {
			appends = append(appends, path[i])
		}
	}
	return appends, nil
}

// StreamAppends plans an incremental append scan: the data files the
// append snapshots between fromExclusive and the selected snapshot (the
// "to" snapshot, inclusive; AppendsBetween) added, handed to each as
// StreamFiles hands a snapshot's files, with the same filter pruning and
// residuals. Each snapshot's files are read from the manifests it wrote
// (added_snapshot_id its own), keeping the entries ADDED by it, so a file
// an append added and a later snapshot removed is still returned.
//
// No delete file applies, as in Java's append scan: the rows are those
// the appends wrote, whatever was deleted since. The plan's Snapshot and
// Schema are the selected snapshot's (ReadSchema); a table's Planner is
// not asked, since remote planning serves snapshot scans.
func (t *Table) StreamAppends(ctx context.Context, fromExclusive *int64, sel SnapshotSelector, filter expr.Expr, caseInsensitive bool, each func(DataFileTask) error) (*Plan, error) {
	snap, err := t.Snapshot(sel)
	if err != nil {
		return nil, err
	}
	schema, err := t.ReadSchema(sel, snap)
	if err != nil {
		return nil, err
	}
	appends, err := t.AppendsBetween(fromExclusive, snap)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Snapshot: snap, Schema: schema}
	if len(appends) == 0 {
		return plan, nil
	}
	ids := make(map[int64]bool, len(appends))
	for _, s := range appends {
		ids[s.SnapshotID] = true
	}
	// A manifest an append wrote is in its own list and every later one:
	// take it once, from the first list that has it.
	var manifests []manifest.ManifestFile
	seen := map[string]bool{}
	for _, s := range appends {
		list, err := t.manifestsOf(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, mf := range list {
			if mf.Content != manifest.ManifestContentData || !ids[mf.AddedSnapshotID] || seen[mf.Path] {
				continue
			}
			seen[mf.Path] = true
			manifests = append(manifests, mf)
		}
	}
	var pruner *filePruner
	if filter != nil {
		pf, err := t.BindPruningFilter(filter, schema, caseInsensitive)
		if err != nil {
			return nil, err
		}
		pruner = &filePruner{t: t, filter: pf.Bound, metrics: pf.Metrics, specs: map[int]*specPruner{}}
		kept, err := pruner.keepManifests(manifests)
		if err != nil {
			return nil, err
		}
		plan.ManifestsSkipped = len(manifests) - len(kept)
		manifests = kept
	}
	read := func(ctx context.Context, i int) manifestRead {
		mf := &manifests[i]
		var r manifestRead
		entries, err := t.readManifest(ctx, *mf)
		if err != nil {
			r.err = err
			return r
		}
		// Only what the appends added: a merged manifest also lists older
		// files as EXISTING.
		kept := entries[:0]
		for _, e := range entries {
			if e.Status == manifest.StatusAdded && ids[e.SnapshotID] {
				kept = append(kept, e)
			}
		}
		r.entries = kept
		if pruner != nil {
			r.entries, r.err = pruner.pruneEntries(mf, r.entries, &r.residuals, &r.skipped)
		}
		return r
	}
	err = streamManifests(ctx, manifests, read, func(_ int, r *manifestRead) error {
		plan.ManifestsRead++
		plan.DataFilesSkipped += r.skipped
		for i := range r.entries {
			e := &r.entries[i]
			task := DataFileTask{Path: t.Locations.Apply(e.DataFile.FilePath), File: e.DataFile,
				DataSequenceNumber: e.SequenceNumber, FileSequenceNumber: e.FileSequenceNumber}
			if r.residuals != nil {
				task.Residual = r.residuals[i]
			}
			if err := each(task); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, ErrStop) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return plan, nil
}
