package table

import (
	"context"
	"fmt"
	"strconv"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/google/uuid"
)

// CherryPickResult is what a cherry-pick did.
type CherryPickResult struct {
	// SnapshotID is the branch's new head: the picked snapshot itself
	// when FastForward, else the snapshot the cherry-pick wrote.
	SnapshotID int64
	// FastForward: the picked snapshot's parent was the branch's head, so
	// the branch moved to it and no snapshot was written.
	FastForward bool
	// PublishedWapID is the picked snapshot's wap id, now published.
	PublishedWapID string
}

// CherryPick applies a snapshot of the table onto a branch (opts.Branch,
// main when empty) as one commit, Java's ManageSnapshots.cherrypick and
// pyiceberg's cherry_pick: how write-audit-publish publishes a staged
// snapshot (CommitOptions.WapID, StageOnly), and how a change made on
// one branch is carried to another.
//
//   - When the snapshot's parent is the branch's head, the branch is
//     fast-forwarded to it: no snapshot is written.
//   - Otherwise an append is applied by adding its data files in a new
//     snapshot, and a dynamic partition overwrite (ReplacePartitions,
//     summary replace-partitions=true) by adding its files and removing
//     those it removed, when its parent is an ancestor of the branch and
//     no snapshot since the parent changed a partition it replaced (else
//     ErrConflict). The new snapshot's summary names the picked snapshot
//     (SummarySourceSnapshotID) and its wap id (SummaryPublishedWAPID).
//   - Any other snapshot (a delete, an overwrite by filter or of rows) is
//     refused unless it is a fast-forward, as Java refuses it.
//
// Refused, with errors wrapping ErrPublished: a snapshot already in the
// branch, one already cherry-picked into it, and one whose wap id the
// branch already carries (staged and fast-forwarded, or published by a
// cherry-pick). These checks, like the rest, are made again on every
// attempt against the version it builds on, so of two processes
// publishing one wap id at once exactly one commits. A snapshot the
// table does not have is NotFound.
//
// opts.Properties go into a written snapshot's summary (a fast-forward
// writes none); tokens, run ids, wap ids and staging do not apply to a
// cherry-pick and are refused.
func (t *Table) CherryPick(ctx context.Context, snapshotID int64, opts CommitOptions) (CherryPickResult, error) {
	tx := t.Transaction()
	if err := tx.CherryPick(snapshotID, opts); err != nil {
		return CherryPickResult{}, err
	}
	if _, err := tx.Commit(ctx); err != nil {
		return CherryPickResult{}, err
	}
	return tx.steps[0].pick.result, nil
}

// CherryPick adds a cherry-pick of a snapshot to the transaction
// (Table.CherryPick). It is planned on the metadata the steps before it
// produced: a snapshot an earlier step staged can be picked in the same
// transaction (its id is known only once built, so in practice the
// picked snapshot is one already in the table).
func (tx *Transaction) CherryPick(snapshotID int64, opts CommitOptions) error {
	p, err := newCherryPick(tx.t, snapshotID, opts)
	if err != nil {
		tx.fail(err)
		return err
	}
	tx.steps = append(tx.steps, txStep{pick: p})
	return nil
}

// cherryPick is a cherry-pick step. Whether it fast-forwards or writes a
// snapshot is decided on each attempt's base; the snapshot it writes is
// built by a snapshotProducer made on the first attempt that needs one
// and kept, so its manifests are written once.
type cherryPick struct {
	t          *Table
	snapshotID int64
	opts       CommitOptions

	// source is what the picked snapshot changed, read once: snapshots
	// do not change.
	source *snapshotChange
	// producer writes the new snapshot; nil until an attempt needs one.
	producer *snapshotProducer
	// result is what the last attempt built.
	result CherryPickResult
	// own are the snapshots the transaction's earlier steps made in the
	// attempt being built (commitBase.own).
	own map[int64]bool
}

func newCherryPick(t *Table, snapshotID int64, opts CommitOptions) (*cherryPick, error) {
	switch {
	case opts.Token != "":
		return nil, errkind.Errorf(errkind.InvalidArgument, "cherry-pick of snapshot %d: a token does not apply (a fast-forward writes no snapshot to record it in; picking a snapshot twice is refused with ErrPublished)", snapshotID)
	case opts.RunID != "":
		return nil, errkind.Errorf(errkind.InvalidArgument, "cherry-pick of snapshot %d: a run id does not apply", snapshotID)
	case opts.WapID != "" || opts.StageOnly:
		return nil, errkind.Errorf(errkind.InvalidArgument, "cherry-pick of snapshot %d publishes: it cannot be staged or carry a wap id of its own", snapshotID)
	}
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("cherry-pick of snapshot %d: %w", snapshotID, err)
	}
	return &cherryPick{t: t, snapshotID: snapshotID, opts: opts}, nil
}

// build is one attempt of the step on base.
func (c *cherryPick) build(ctx context.Context, base *Table, attempt int) (*metadata.Changes, error) {
	md := base.Metadata
	src := md.SnapshotByID(c.snapshotID)
	if src == nil {
		return nil, errkind.Errorf(errkind.NotFound, "table has no snapshot %d", c.snapshotID)
	}
	if r, ok := md.Refs[c.opts.branch()]; ok && r.Type != metadata.RefBranch {
		return nil, errkind.Errorf(errkind.InvalidArgument, "snapshot %d: %q is a %s, not a branch to cherry-pick onto", c.snapshotID, c.opts.branch(), r.Type)
	}
	b, err := newCommitBase(base, c.opts.branch())
	if err != nil {
		return nil, err
	}
	b.own = c.own
	wapID, err := checkNotPublished(md, b.head, src, b.branch)
	if err != nil {
		return nil, err
	}
	c.result = CherryPickResult{PublishedWapID: wapID}
	if isFastForward(b.head, src) {
		ref, ok := md.Refs[b.branch]
		if !ok {
			ref = metadata.Ref{Type: metadata.RefBranch}
		}
		ref.SnapshotID = src.SnapshotID
		changes := metadata.Edit(md)
		if err := changes.Apply(metadata.SetSnapshotRef{Name: b.branch, Ref: ref}); err != nil {
			return nil, err
		}
		c.result.SnapshotID, c.result.FastForward = src.SnapshotID, true
		return changes, nil
	}
	replace := src.Summary["operation"] == OpOverwrite && src.Summary["replace-partitions"] == "true"
	if op := src.Summary["operation"]; op != OpAppend && !replace {
		return nil, errkind.Errorf(errkind.InvalidArgument,
			"snapshot %d (operation %q): only appends and dynamic partition overwrites (replace-partitions) are applied onto a branch that moved on, and its parent %s is not the head of branch %q (%s)",
			src.SnapshotID, op, idString(src.ParentSnapshotID), b.branch, idString(b.headID()))
	}
	if replace && src.ParentSnapshotID != nil && !isAncestor(md, b.head, *src.ParentSnapshotID) {
		return nil, errkind.Errorf(errkind.InvalidArgument,
			"snapshot %d replaces partitions on snapshot %d, which is not an ancestor of branch %q: what it replaced cannot be checked",
			src.SnapshotID, *src.ParentSnapshotID, b.branch)
	}
	if err := c.readSource(ctx, b, src, replace); err != nil {
		return nil, err
	}
	if c.producer == nil {
		c.producer = c.newProducer(src, replace, wapID)
	}
	c.producer.own = c.own
	changes, err := c.producer.build(ctx, base, attempt)
	if err != nil {
		return nil, err
	}
	if changes == nil {
		// Only a token makes a producer commit nothing, and a cherry-pick's
		// producer has none.
		return nil, fmt.Errorf("snapshot %d: the snapshot copying it was not built", c.snapshotID)
	}
	c.result.SnapshotID = c.producer.snapshotID
	return changes, nil
}

// isFastForward: the branch can move to src as it is, src's parent being
// the branch's head (or both absent).
func isFastForward(head, src *metadata.Snapshot) bool {
	if head == nil {
		return src.ParentSnapshotID == nil
	}
	return src.ParentSnapshotID != nil && *src.ParentSnapshotID == head.SnapshotID
}

// isAncestor says whether id is head or one of its ancestors.
func isAncestor(md *metadata.Metadata, head *metadata.Snapshot, id int64) bool {
	for _, a := range md.Ancestors(head) {
		if a.SnapshotID == id {
			return true
		}
	}
	return false
}

// readSource reads, once, the entries the picked snapshot added and
// removed, and refuses what a cherry-pick cannot copy: an append that
// removed files or added delete files.
func (c *cherryPick) readSource(ctx context.Context, b *commitBase, src *metadata.Snapshot, replace bool) error {
	if c.source != nil {
		return nil
	}
	changes, err := b.changesOf(ctx, []*metadata.Snapshot{src})
	if err != nil {
		return fmt.Errorf("read snapshot %d: %w", src.SnapshotID, err)
	}
	ch := changes[0]
	// The files are found by the snapshot id their manifests carry: a
	// table whose metadata names its snapshots otherwise (ids rounded by
	// a tool that read them as floating point) would copy nothing where
	// the summary says files were added.
	if err := checkCounted(src, "added-data-files", len(ch.added)); err != nil {
		return err
	}
	if err := checkCounted(src, "deleted-data-files", countData(ch.deleted)); err != nil {
		return err
	}
	for i := range ch.added {
		if df := &ch.added[i].DataFile; df.Content != manifest.ContentData {
			return errkind.Errorf(errkind.InvalidArgument, "snapshot %d (operation %q) adds %s file %s: only data files are copied", src.SnapshotID, src.Summary["operation"], df.Content, df.FilePath)
		}
	}
	if !replace && len(ch.deleted) > 0 {
		return errkind.Errorf(errkind.InvalidArgument, "snapshot %d is an append but removes file %s", src.SnapshotID, ch.deleted[0].DataFile.FilePath)
	}
	c.source = &ch
	return nil
}

// newProducer makes the producer of the snapshot that copies src: its
// added files added again, and for a partition replacement its removed
// files removed after checking its partitions did not change since its
// parent (Java's validateReplacedPartitions, which floe's own
// ReplacePartitions also applies: any file added or removed there).
func (c *cherryPick) newProducer(src *metadata.Snapshot, replace bool, wapID string) *snapshotProducer {
	added := make([]manifest.DataFile, len(c.source.added))
	for i := range c.source.added {
		added[i] = c.source.added[i].DataFile
	}
	op := src.Summary["operation"]
	u := &snapshotUpdate{what: "cherry-pick", opts: c.opts, added: added, operation: func(*removal) string { return op }}
	srcID := src.SnapshotID
	parent := src.ParentSnapshotID
	u.plan = func(ctx context.Context, b *commitBase) (*removal, error) {
		rm := newRemoval()
		rm.summary[SummarySourceSnapshotID] = strconv.FormatInt(srcID, 10)
		if wapID != "" {
			rm.summary[SummaryPublishedWAPID] = wapID
		}
		if !replace {
			return rm, nil
		}
		rm.summary["replace-partitions"] = "true"
		replaced := map[string]bool{}
		specs := map[int]bool{}
		for i := range added {
			replaced[PartitionKey(added[i].SpecID, added[i].Partition)] = true
		}
		for i := range c.source.deleted {
			df := &c.source.deleted[i].DataFile
			replaced[PartitionKey(df.SpecID, df.Partition)] = true
			specs[df.SpecID] = true
			rm.add(df)
		}
		// The head's manifests that may hold the removed files are read,
		// so the snapshot rewrites them without those files.
		if _, err := b.readEntries(ctx, func(mf *manifest.ManifestFile) bool { return specs[mf.PartitionSpecID] }); err != nil {
			return nil, err
		}
		since, err := b.changesSince(ctx, parent)
		if err != nil {
			return nil, err
		}
		for _, ch := range since {
			for _, group := range [][]manifest.Entry{ch.added, ch.deleted} {
				for i := range group {
					df := &group[i].DataFile
					if replaced[PartitionKey(df.SpecID, df.Partition)] {
						return nil, fmt.Errorf("snapshot %d changed %s (file %s), which snapshot %d replaced on its parent %s: %w",
							ch.snap.SnapshotID, describePartition(b.t, df), df.FilePath, srcID, idString(parent), ErrConflict)
					}
				}
			}
		}
		return rm, nil
	}
	return &snapshotProducer{t: c.t, u: u, commitID: uuid.NewString(), writtenEntries: map[string][]manifest.Entry{}}
}

// checkCounted refuses a snapshot whose summary counts a different number
// of files under key than its manifests hold for it (a summary without
// the count is taken as it is).
func checkCounted(src *metadata.Snapshot, key string, found int) error {
	text, ok := src.Summary[key]
	if !ok {
		return nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n == found {
		return nil
	}
	return errkind.Errorf(errkind.Corrupt, "snapshot %d: its summary says %s=%d, but its manifests hold %d such files written by snapshot %d", src.SnapshotID, key, n, found, src.SnapshotID)
}

func countData(entries []manifest.Entry) int {
	n := 0
	for i := range entries {
		if entries[i].DataFile.Content == manifest.ContentData {
			n++
		}
	}
	return n
}
