package table

import (
	"context"
	"slices"
	"sync"

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
	path, err := t.snapshotsBetween("incremental scan", fromExclusive, to)
	if err != nil {
		return nil, err
	}
	var appends []*metadata.Snapshot
	for _, s := range path {
		if s.Operation() == OpAppend {
			appends = append(appends, s)
		}
	}
	return appends, nil
}

// snapshotsBetween is to's ancestry after fromExclusive up to to itself,
// oldest first, with AppendsBetween's rules for from; what names the
// caller in errors.
func (t *Table) snapshotsBetween(what string, fromExclusive *int64, to *metadata.Snapshot) ([]*metadata.Snapshot, error) {
	md := t.Metadata
	if fromExclusive != nil && *fromExclusive == NoSnapshot {
		// Before the first snapshot: as far back as the metadata goes.
		fromExclusive = nil
	}
	if to == nil {
		// The table before its first snapshot: nothing comes before it.
		switch {
		case fromExclusive == nil:
			return nil, nil
		case md.SnapshotByID(*fromExclusive) == nil:
			return nil, errkind.Errorf(errkind.NotFound, "%s: table has no snapshot %d (from)", what, *fromExclusive)
		default:
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: snapshot %d (from) comes after the table's empty state (to)", what, *fromExclusive)
		}
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
			return nil, errkind.Errorf(errkind.NotFound, "%s: table has no snapshot %d (from)", what, from)
		case isAncestor(md, fromSnap, to.SnapshotID):
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: snapshot %d (from) comes after snapshot %d (to)", what, from, to.SnapshotID)
		default:
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: snapshot %d (from) is not an ancestor of snapshot %d (to)", what, from, to.SnapshotID)
		}
	}
	slices.Reverse(path)
	return path, nil
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
	manifests, err := t.appendManifests(ctx, appends, ids)
	if err != nil {
		return nil, err
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
	// No delete index: an append scan applies no deletes, as Java's.
	if err := t.streamTasks(ctx, manifests, read, plan, nil, each); err != nil {
		return nil, err
	}
	return plan, nil
}

// appendManifests lists the data manifests the appends wrote (their
// added_snapshot_id one of ids), each once, in the appends' order. Each
// append's manifest list is read, a window of them at once (a range of
// thousands of streaming appends is thousands of lists), and only its
// own manifests are kept from it: a list also names every older manifest
// still live.
func (t *Table) appendManifests(ctx context.Context, appends []*metadata.Snapshot, ids map[int64]bool) ([]manifest.ManifestFile, error) {
	own := make([][]manifest.ManifestFile, len(appends))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The first failure stops the other reads; theirs (cancelled) are
	// not reported.
	var first error
	var once sync.Once
	fail := func(err error) {
		once.Do(func() {
			first = err
			cancel()
		})
	}
	window := make(chan struct{}, readWindow(len(appends)))
	var wg sync.WaitGroup
	for i, s := range appends {
		select {
		case window <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-window }()
			list, err := t.manifestsOf(ctx, s)
			if err != nil {
				fail(err)
				return
			}
			for _, mf := range list {
				if mf.Content == manifest.ManifestContentData && ids[mf.AddedSnapshotID] {
					own[i] = append(own[i], mf)
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A manifest of an earlier append is in a later one's list too
	// (unless merged away): take it once.
	var out []manifest.ManifestFile
	seen := map[string]bool{}
	for _, list := range own {
		for _, mf := range list {
			if !seen[mf.Path] {
				seen[mf.Path] = true
				out = append(out, mf)
			}
		}
	}
	return out, nil
}
