package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// commitBase is the table version one commit attempt builds on: its
// metadata, the head of the branch being committed to, and the head's
// manifests, read on demand and kept for the rest of the attempt.
type commitBase struct {
	t      *Table
	branch string
	// head is the branch's snapshot; nil for an empty table.
	head *metadata.Snapshot

	manifests []manifest.ManifestFile
	listed    bool
	entries   [][]manifest.Entry // parallel to manifests; nil until read

	// own are the snapshots earlier steps of the same transaction made in
	// this attempt: not another writer's changes (ancestorsAfter skips
	// them).
	own map[int64]bool
}

func newCommitBase(t *Table, branch string) (*commitBase, error) {
	b := &commitBase{t: t, branch: branch}
	md := t.Metadata
	if r, ok := md.Refs[branch]; ok {
		if r.Type != metadata.RefBranch {
			return nil, fmt.Errorf("commit: %q is a %s, not a branch", branch, r.Type)
		}
		if b.head = md.SnapshotByID(r.SnapshotID); b.head == nil {
			return nil, fmt.Errorf("commit: branch %q points at snapshot %d, which is not in the table", branch, r.SnapshotID)
		}
		return b, nil
	}
	// A new branch starts from main.
	b.head = md.CurrentSnapshot()
	return b, nil
}

// headManifests lists the head snapshot's manifests.
func (b *commitBase) headManifests(ctx context.Context) ([]manifest.ManifestFile, error) {
	if b.listed || b.head == nil {
		return b.manifests, nil
	}
	list, err := b.t.manifestsOf(ctx, b.head)
	if err != nil {
		return nil, err
	}
	b.manifests, b.entries, b.listed = list, make([][]manifest.Entry, len(list)), true
	return list, nil
}

// readEntries reads (once) the entries of the head manifests that want
// accepts (all when want is nil) and returns the indexes read.
func (b *commitBase) readEntries(ctx context.Context, want func(*manifest.ManifestFile) bool) ([]int, error) {
	list, err := b.headManifests(ctx)
	if err != nil {
		return nil, err
	}
	var idx []int
	var toRead []manifest.ManifestFile
	var readIdx []int
	for i := range list {
		if want != nil && !want(&list[i]) {
			continue
		}
		idx = append(idx, i)
		if b.entries[i] == nil {
			toRead = append(toRead, list[i])
			readIdx = append(readIdx, i)
		}
	}
	if len(toRead) > 0 {
		read, err := b.t.readManifests(ctx, toRead)
		if err != nil {
			return nil, err
		}
		for j, i := range readIdx {
			b.entries[i] = read[j]
			if b.entries[i] == nil {
				b.entries[i] = []manifest.Entry{}
			}
		}
	}
	return idx, nil
}

// liveFile is a live entry of the head snapshot and the manifest holding it.
type liveFile struct {
	manifest int
	entry    *manifest.Entry
}

// liveFiles reads the head manifests want accepts and calls fn with each
// live entry (ADDED or EXISTING).
func (b *commitBase) liveFiles(ctx context.Context, want func(*manifest.ManifestFile) bool, fn func(liveFile) error) error {
	idx, err := b.readEntries(ctx, want)
	if err != nil {
		return err
	}
	for _, i := range idx {
		for j := range b.entries[i] {
			e := &b.entries[i][j]
			if e.Status == manifest.StatusDeleted {
				continue
			}
			if err := fn(liveFile{manifest: i, entry: e}); err != nil {
				return err
			}
		}
	}
	return nil
}

// snapshotChange is what one snapshot did: the entries it added and
// deleted.
type snapshotChange struct {
	snap           *metadata.Snapshot
	added, deleted []manifest.Entry
}

// ancestorsAfter lists the branch's snapshots after since (exclusive),
// newest first, but for the transaction's own; since nil means all of
// them. It is a conflict when since is
// no longer an ancestor of the head (the branch was rolled back or
// replaced since the commit was planned).
func (b *commitBase) ancestorsAfter(since *int64) ([]*metadata.Snapshot, error) {
	if b.head == nil {
		if since != nil {
			return nil, fmt.Errorf("snapshot %d, which the commit was planned on, is no longer in branch %q: %w", *since, b.branch, ErrConflict)
		}
		return nil, nil
	}
	var snaps []*metadata.Snapshot
	for _, s := range b.t.Metadata.Ancestors(b.head) {
		if since != nil && s.SnapshotID == *since {
			return snaps, nil
		}
		if !b.own[s.SnapshotID] {
			snaps = append(snaps, s)
		}
	}
	if since != nil {
		return nil, fmt.Errorf("snapshot %d, which the commit was planned on, is no longer an ancestor of branch %q: %w", *since, b.branch, ErrConflict)
	}
	return snaps, nil
}

// changesSince lists what each snapshot after since changed, newest first.
func (b *commitBase) changesSince(ctx context.Context, since *int64) ([]snapshotChange, error) {
	snaps, err := b.ancestorsAfter(since)
	if err != nil {
		return nil, err
	}
	return b.changesOf(ctx, snaps)
}

// changesOf reads what each snapshot added and deleted, from the manifests
// it wrote.
func (b *commitBase) changesOf(ctx context.Context, snaps []*metadata.Snapshot) ([]snapshotChange, error) {
	out := make([]snapshotChange, len(snaps))
	for i, s := range snaps {
		out[i].snap = s
		list, err := b.t.manifestsOf(ctx, s)
		if err != nil {
			return nil, err
		}
		var own []manifest.ManifestFile
		for _, mf := range list {
			if mf.AddedSnapshotID == s.SnapshotID && (mf.HasAddedFiles() || mf.HasDeletedFiles()) {
				own = append(own, mf)
			}
		}
		read, err := b.t.readManifests(ctx, own)
		if err != nil {
			return nil, err
		}
		for _, entries := range read {
			for _, e := range entries {
				if e.SnapshotID != s.SnapshotID {
					continue
				}
				switch e.Status {
				case manifest.StatusAdded:
					out[i].added = append(out[i].added, e)
				case manifest.StatusDeleted:
					out[i].deleted = append(out[i].deleted, e)
				}
			}
		}
	}
	return out, nil
}

// headID is the head snapshot's id, nil for an empty table.
func (b *commitBase) headID() *int64 {
	if b.head == nil {
		return nil
	}
	id := b.head.SnapshotID
	return &id
}
