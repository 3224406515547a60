package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/errkind"
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/internal/progress"
)

// ExpireOptions steer ExpireSnapshots.
type ExpireOptions struct {
	// KeepFiles expires snapshots from the metadata only, deleting no file.
	KeepFiles bool
}

// ExpireResult says what ExpireSnapshots did.
type ExpireResult struct {
	// ExpiredSnapshots are the ids removed from the metadata, ascending.
	ExpiredSnapshots []int64
	// RemovedRefs are the branches and tags dropped for their age.
	RemovedRefs []string
	// DeletedFiles are the files deleted: manifest lists, manifests, data
	// and delete files and statistics files that no remaining snapshot
	// references. Deletion is best effort; FailedDeletes counts failures.
	DeletedFiles  []string
	FailedDeletes int
	// Outside are unreferenced files left alone because they lie outside
	// the table's location (ownedFiles): registered from elsewhere, or named
	// by metadata that should not name them.
	Outside []string
}

// ExpireSnapshots removes old snapshots from the table's metadata and then
// deletes the files only they referenced. A snapshot stays when a ref
// points at it, when it is among the newest retainLast ancestors of a
// branch, or when it is not older than olderThanMs (milliseconds since the
// epoch). nil arguments take the table properties
// history.expire.max-snapshot-age-ms (5 days) and
// history.expire.min-snapshots-to-keep (1); a branch's own retention
// settings win over both. Branches and tags other than main whose
// max-ref-age-ms (or history.expire.max-ref-age-ms) has passed are
// dropped. The current snapshot always stays.
//
// With gc.enabled=false, or opts.KeepFiles, no file is deleted. Files are
// deleted only after the new metadata is committed, so a failure leaves
// stray files, never a table that names missing ones.
func (t *Table) ExpireSnapshots(ctx context.Context, olderThanMs *int64, retainLast *int, opts ExpireOptions) (ExpireResult, error) {
	tx := t.Transaction()
	if err := tx.ExpireSnapshots(olderThanMs, retainLast, opts); err != nil {
		return ExpireResult{}, err
	}
	res, err := tx.Commit(ctx)
	if res.Expire == nil {
		return ExpireResult{}, err
	}
	return *res.Expire, err
}

// expireStep is expiry as a transaction step: planned on the metadata the
// steps before it produced, its files deleted after the commit.
type expireStep struct {
	olderThanMs *int64
	retainLast  *int
	opts        ExpireOptions
	// What the last build expired: its snapshots, their statistics files
	// and the refs dropped for their age.
	expired []metadata.Snapshot
	stats   []string
	refs    []string
}

// ExpireSnapshots adds expiry as a step (Table.ExpireSnapshots): the
// snapshots and refs it removes are planned when the transaction builds,
// on the metadata its earlier steps produced, and the files only they
// referenced are deleted once it has committed (TransactionResult.Expire).
// A transaction expires once.
func (tx *Transaction) ExpireSnapshots(olderThanMs *int64, retainLast *int, opts ExpireOptions) error {
	err := func() error {
		if retainLast != nil && *retainLast < 1 {
			return errkind.Errorf(errkind.InvalidArgument, "retain at least 1 snapshot, not %d", *retainLast)
		}
		for _, s := range tx.steps {
			if s.expire != nil {
				return errkind.New(errkind.InvalidArgument, "a transaction expires snapshots once")
			}
		}
		// A table whose location lies outside the directory it was opened
		// from is refused before anything is committed (deleteRoot).
		if !opts.KeepFiles {
			if _, err := tx.t.deleteRoot(); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		err = fmt.Errorf("expire snapshots: %w", err)
		tx.fail(err)
		return err
	}
	tx.steps = append(tx.steps, txStep{expire: &expireStep{olderThanMs: olderThanMs, retainLast: retainLast, opts: opts}})
	return nil
}

// build plans expiry on md and yields its updates; none when nothing
// expires.
func (e *expireStep) build(md *metadata.Metadata) ([]metadata.Update, error) {
	e.expired, e.stats, e.refs = e.expired[:0], e.stats[:0], nil
	now := max(time.Now().UnixMilli(), md.LastUpdatedMs)
	plan, err := planExpiry(md, now, e.olderThanMs, e.retainLast)
	if err != nil {
		return nil, err
	}
	if len(plan.expire) == 0 && len(plan.dropRefs) == 0 {
		return nil, nil
	}
	var updates []metadata.Update
	for _, name := range plan.dropRefs {
		updates = append(updates, metadata.RemoveSnapshotRef{Name: name})
	}
	if len(plan.expire) > 0 {
		updates = append(updates, metadata.RemoveSnapshots{SnapshotIDs: slices.Sorted(maps.Keys(plan.expire))})
	}
	for _, s := range md.Snapshots {
		if plan.expire[s.SnapshotID] {
			e.expired = append(e.expired, s)
		}
	}
	// The tokens of the expired snapshots stay recognised (the same
	// commit, so a retry always finds the snapshot or its token).
	if keep, err := retainExpiredTokens(md, e.expired); err != nil {
		return nil, err
	} else if keep != nil {
		updates = append(updates, keep)
	}
	for _, f := range md.Statistics {
		if plan.expire[f.SnapshotID] {
			e.stats = append(e.stats, f.StatisticsPath)
		}
	}
	for _, f := range md.PartitionStatistics {
		if plan.expire[f.SnapshotID] {
			e.stats = append(e.stats, f.StatisticsPath)
		}
	}
	e.refs = plan.dropRefs
	return updates, nil
}

// afterCommit deletes the files only the expired snapshots referenced, t
// being the committed table. With gc.enabled=false, or opts.KeepFiles, no
// file is deleted.
func (e *expireStep) afterCommit(ctx context.Context, t *Table) (ExpireResult, error) {
	res := ExpireResult{RemovedRefs: e.refs}
	for _, s := range e.expired {
		res.ExpiredSnapshots = append(res.ExpiredSnapshots, s.SnapshotID)
	}
	sort.Slice(res.ExpiredSnapshots, func(i, j int) bool { return res.ExpiredSnapshots[i] < res.ExpiredSnapshots[j] })
	gc, err := t.Metadata.PropertyBool(PropGCEnabled, true)
	if err != nil || !gc || e.opts.KeepFiles || len(e.expired) == 0 {
		return res, nil
	}
	doomed, err := t.unreferencedFiles(ctx, e.expired, e.stats)
	if err != nil {
		return res, fmt.Errorf("expire snapshots: committed, but finding the files to delete failed: %w", err)
	}
	meter := progress.From(ctx)
	meter.Plan(int64(len(doomed)), 0, 0)
	owned, err := t.ownedFiles()
	if err != nil {
		return res, fmt.Errorf("expire snapshots: committed, deleting no file: %w", err)
	}
	for _, path := range doomed {
		if !owned(path) {
			res.Outside = append(res.Outside, path)
			meter.Done(1, 0, 0)
			continue
		}
		commitStep("expire-delete") // crash tests stop a process between deletions
		err := t.IO.Delete(context.WithoutCancel(ctx), path)
		meter.Done(1, 0, 0)
		if err != nil {
			res.FailedDeletes++
			continue
		}
		res.DeletedFiles = append(res.DeletedFiles, path)
	}
	return res, nil
}

type expiryPlan struct {
	expire   map[int64]bool
	dropRefs []string
}

// planExpiry decides which snapshots and refs go, as the reference
// implementation does.
func planExpiry(md *metadata.Metadata, now int64, olderThanMs *int64, retainLast *int) (*expiryPlan, error) {
	maxAge, err := md.PropertyInt(PropMaxSnapshotAgeMs, defaultMaxSnapshotAgeMs)
	if err != nil {
		return nil, err
	}
	minKeep, err := md.PropertyInt(PropMinSnapshotsToKeep, defaultMinSnapshotsToKeep)
	if err != nil {
		return nil, err
	}
	maxRefAge, err := md.PropertyInt(PropMaxRefAgeMs, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	olderThan := now - maxAge
	if olderThanMs != nil {
		olderThan = *olderThanMs
	}
	keepLast := int(min(max(minKeep, 1), math.MaxInt32))
	if retainLast != nil {
		keepLast = *retainLast
	}

	p := &expiryPlan{expire: map[int64]bool{}}
	retained := map[int64]bool{}
	names := make([]string, 0, len(md.Refs))
	for name := range md.Refs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := md.Refs[name]
		snap := md.SnapshotByID(r.SnapshotID)
		if snap == nil {
			continue
		}
		refAge := maxRefAge
		if r.MaxRefAgeMs != nil {
			refAge = *r.MaxRefAgeMs
		}
		if name != metadata.MainBranch && refAge < math.MaxInt64 && now-snap.TimestampMs > refAge {
			p.dropRefs = append(p.dropRefs, name)
			continue
		}
		retained[r.SnapshotID] = true
		if r.Type != metadata.RefBranch {
			continue
		}
		branchKeep, branchOlderThan := keepLast, olderThan
		if r.MinSnapshotsToKeep != nil {
			branchKeep = *r.MinSnapshotsToKeep
		}
		if r.MaxSnapshotAgeMs != nil {
			branchOlderThan = now - *r.MaxSnapshotAgeMs
		}
		kept := 0
		for _, s := range md.Ancestors(snap) {
			if kept >= branchKeep && s.TimestampMs < branchOlderThan {
				break
			}
			retained[s.SnapshotID] = true
			kept++
		}
	}
	if cur := md.CurrentSnapshotID; cur != nil {
		retained[*cur] = true
	}
	// Snapshots no ref reaches stay until they are old enough.
	reachable := map[int64]bool{}
	for _, name := range names {
		if snap := md.SnapshotByID(md.Refs[name].SnapshotID); snap != nil && !slices.Contains(p.dropRefs, name) {
			for _, s := range md.Ancestors(snap) {
				reachable[s.SnapshotID] = true
			}
		}
	}
	for _, s := range md.Snapshots {
		if !reachable[s.SnapshotID] && s.TimestampMs >= olderThan {
			retained[s.SnapshotID] = true
		}
	}
	for _, s := range md.Snapshots {
		if !retained[s.SnapshotID] {
			p.expire[s.SnapshotID] = true
		}
	}
	return p, nil
}

// unreferencedFiles lists the files the expired snapshots referenced that
// no snapshot left in t references: their manifest lists, manifests no
// remaining list holds, the data and delete files of those manifests that
// no remaining manifest holds live, and statistics files.
func (t *Table) unreferencedFiles(ctx context.Context, expired []metadata.Snapshot, stats []string) ([]string, error) {
	// Paths are compared as the table's map sends them, so that one file
	// spelled two ways (/p and file:///p, or a relocated prefix) is one.
	key := t.Locations.Apply
	keptManifests := map[string]bool{}
	keptLists := map[string]bool{}
	var keptToRead []manifest.ManifestFile
	for i := range t.Metadata.Snapshots {
		s := &t.Metadata.Snapshots[i]
		keptLists[key(s.ManifestList)] = true
		list, err := t.manifestsOf(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, mf := range list {
			if !keptManifests[key(mf.Path)] {
				keptManifests[key(mf.Path)] = true
				keptToRead = append(keptToRead, mf)
			}
		}
	}
	var doomedManifests []manifest.ManifestFile
	seen := map[string]bool{}
	var out []string
	for i := range expired {
		s := &expired[i]
		if s.ManifestList != "" && !keptLists[key(s.ManifestList)] && !seen[key(s.ManifestList)] {
			seen[key(s.ManifestList)] = true
			out = append(out, s.ManifestList)
		}
		list, err := t.manifestsOf(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, mf := range list {
			if !keptManifests[key(mf.Path)] && !seen[key(mf.Path)] {
				seen[key(mf.Path)] = true
				doomedManifests = append(doomedManifests, mf)
				out = append(out, mf.Path)
			}
		}
	}
	if len(doomedManifests) > 0 {
		live := map[string]bool{}
		kept, err := t.readManifests(ctx, keptToRead)
		if err != nil {
			return nil, err
		}
		for _, entries := range kept {
			for _, e := range entries {
				if e.Status != manifest.StatusDeleted {
					live[key(e.DataFile.FilePath)] = true
				}
			}
		}
		doomed, err := t.readManifests(ctx, doomedManifests)
		if err != nil {
			return nil, err
		}
		for _, entries := range doomed {
			for _, e := range entries {
				if p := e.DataFile.FilePath; !live[key(p)] && !seen[key(p)] {
					seen[key(p)] = true
					out = append(out, p)
				}
			}
		}
	}
	keptStats := map[string]bool{}
	for _, f := range t.Metadata.Statistics {
		keptStats[key(f.StatisticsPath)] = true
	}
	for _, f := range t.Metadata.PartitionStatistics {
		keptStats[key(f.StatisticsPath)] = true
	}
	for _, p := range stats {
		if !keptStats[key(p)] && !seen[key(p)] {
			seen[key(p)] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// ExpirableSnapshots are what ExpireSnapshots with its defaults (nil
// arguments: the table's retention properties) would remove at now
// (milliseconds since the epoch): snapshot ids ascending, and the refs
// past their age. Nothing is changed; the maintenance planner reports
// them.
func (t *Table) ExpirableSnapshots(now int64) ([]int64, []string, error) {
	plan, err := planExpiry(t.Metadata, now, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]int64, 0, len(plan.expire))
	for id := range plan.expire {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, plan.dropRefs, nil
}
