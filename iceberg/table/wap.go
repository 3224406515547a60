package table

import (
	"fmt"
	"strconv"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// Write-audit-publish (WAP): a writer stages a snapshot that no branch
// points at (CommitOptions.StageOnly, or a WapID on a table with
// write.wap.enabled=true), auditors read it by snapshot id, and
// CherryPick publishes it onto a branch, once per wap id. The keys and
// the property are Java's, so a table staged by Spark is published here
// and the other way round.
const (
	// PropWAPEnabled makes a commit with a wap id stage its snapshot.
	PropWAPEnabled = "write.wap.enabled"
	// SummaryWAPID is the wap id a staged snapshot was written under.
	SummaryWAPID = "wap.id"
	// SummaryPublishedWAPID is the wap id a cherry-pick published, on the
	// snapshot the cherry-pick wrote.
	SummaryPublishedWAPID = "published-wap-id"
	// SummarySourceSnapshotID is the snapshot a cherry-pick copied.
	SummarySourceSnapshotID = "source-snapshot-id"
)

// ErrPublished is wrapped by a cherry-pick refused because what it would
// publish is already in the branch: the snapshot is an ancestor of the
// branch, an ancestor was cherry-picked from it, or an ancestor carries
// its wap id (published before, by any process). A retry after an
// unknown outcome can take it as "done"; it is of kind InvalidArgument,
// since trying again never helps.
var ErrPublished = errkind.New(errkind.InvalidArgument, "already published")

// wapEnabled reads write.wap.enabled as Java reads a boolean property:
// "true" in any case is true, anything else false.
func wapEnabled(md *metadata.Metadata) bool {
	v, err := strconv.ParseBool(md.Properties[PropWAPEnabled])
	return err == nil && v
}

// staged says whether a commit with these options adds its snapshot
// without moving its branch: StageOnly, or a WapID on a table with
// write.wap.enabled. A WapID on a table without it is refused rather than
// ignored as Spark ignores its session's spark.wap.id: here the id is
// given to this one commit, and committing it to the branch would publish
// what the caller meant to audit first. Checked on every attempt, on the
// metadata the attempt builds on (the property may have changed since).
func (o *CommitOptions) staged(md *metadata.Metadata) (bool, error) {
	if o.StageOnly {
		return true, nil
	}
	if o.WapID == "" {
		return false, nil
	}
	if !wapEnabled(md) {
		return false, errkind.Errorf(errkind.InvalidArgument,
			"wap id %q: the table's %s is not \"true\", so the snapshot would be committed to branch %q instead of staged; set the property or StageOnly",
			o.WapID, PropWAPEnabled, o.branch())
	}
	return true, nil
}

// headRef names the ref the head came from: the branch, or main for a
// branch that does not exist yet.
func (b *commitBase) headRef() string {
	if _, ok := b.t.Metadata.Refs[b.branch]; ok {
		return b.branch
	}
	return metadata.MainBranch
}

// refAt is the requirement that ref is where md has it (or still absent).
// A staged snapshot moves no ref, so no requirement is implied by its
// updates; yet its sequence number and first row id follow the version it
// was built on, so it requires the ref it was built on to be unchanged:
// a catalog then answers a race as stale and the commit is rebuilt.
func refAt(md *metadata.Metadata, ref string) metadata.Requirement {
	r := metadata.AssertRefSnapshotID{Ref: ref}
	if cur, ok := md.Refs[ref]; ok {
		id := cur.SnapshotID
		r.SnapshotID = &id
	}
	return r
}

// checkNotPublished refuses to publish src onto the branch whose head is
// head: src is already one of its ancestors, an ancestor was
// cherry-picked from it, or an ancestor was staged or published under
// src's wap id (Java's WapUtil.validateWapPublish and the cherry-pick's
// ancestor checks). It returns src's wap id.
func checkNotPublished(md *metadata.Metadata, head *metadata.Snapshot, src *metadata.Snapshot, branch string) (string, error) {
	wapID := src.Summary[SummaryWAPID]
	srcID := strconv.FormatInt(src.SnapshotID, 10)
	for _, a := range md.Ancestors(head) {
		switch {
		case a.SnapshotID == src.SnapshotID:
			return "", fmt.Errorf("snapshot %d is already in branch %q: %w", src.SnapshotID, branch, ErrPublished)
		case a.Summary[SummarySourceSnapshotID] == srcID:
			return "", fmt.Errorf("snapshot %d was already cherry-picked into branch %q as snapshot %d: %w", src.SnapshotID, branch, a.SnapshotID, ErrPublished)
		case wapID != "" && (a.Summary[SummaryWAPID] == wapID || a.Summary[SummaryPublishedWAPID] == wapID):
			return "", fmt.Errorf("snapshot %d: wap id %q was already published to branch %q (snapshot %d): %w", src.SnapshotID, wapID, branch, a.SnapshotID, ErrPublished)
		}
	}
	return wapID, nil
}
