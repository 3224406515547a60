package table

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// RewriteManifestsOptions steer RewriteManifests.
type RewriteManifestsOptions struct {
	CommitOptions
	// TargetSizeBytes is the size the new manifests aim at; 0 means the
	// table's commit.manifest.target-size-bytes (8 MiB).
	TargetSizeBytes int64
}

// RewriteManifests regroups the live entries of the branch head's
// manifests into manifests near the target size, clustered by partition,
// and commits them as a snapshot whose operation is "replace": no data or
// delete file changes, and every entry keeps its snapshot id, data and
// file sequence numbers and row ids, now as EXISTING. Data and delete
// manifests are rewritten apart, and each partition spec apart; within a
// group the entries are sorted by partition tuple, so a filter on the
// partition prunes whole manifests. A group held by one manifest is kept
// as it is. The summary counts manifests-created, manifests-replaced,
// manifests-kept and entries-processed.
//
// Every commit attempt rebuilds from the head it commits on, so manifests
// another writer committed meanwhile are rewritten too, and nothing is
// lost to a concurrent commit. A table without a snapshot is refused.
// With a token, a retried call commits nothing twice. When each content
// and spec is one manifest already, nothing is committed (without a
// token; with one, the snapshot is committed so the token is recorded)
// and the result names the head.
func (t *Table) RewriteManifests(ctx context.Context, opts RewriteManifestsOptions) (CommitResult, error) {
	// Nothing to regroup (each content and spec in one manifest already):
	// no snapshot, as Java's action commits none.
	if b, err := newCommitBase(t, opts.branch()); err == nil && b.head != nil && opts.Token == "" {
		list, err := b.headManifests(ctx)
		if err != nil {
			return CommitResult{}, fmt.Errorf("rewrite manifests: %w", err)
		}
		groups := map[[2]int]bool{}
		for _, mf := range list {
			groups[[2]int{int(mf.Content), mf.PartitionSpecID}] = true
		}
		if len(groups) == len(list) {
			return CommitResult{SnapshotID: b.head.SnapshotID}, nil
		}
	}
	u, err := t.rewriteManifestsUpdate(opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// RewriteManifests regroups the head's manifests (Table.RewriteManifests).
func (tx *Transaction) RewriteManifests(opts RewriteManifestsOptions) error {
	return tx.addSnapshot(tx.t.rewriteManifestsUpdate(opts))
}

func (t *Table) rewriteManifestsUpdate(opts RewriteManifestsOptions) (*snapshotUpdate, error) {
	if opts.TargetSizeBytes < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "rewrite manifests: target size %d is negative", opts.TargetSizeBytes)
	}
	u := &snapshotUpdate{what: "rewrite manifests", opts: opts.CommitOptions}
	u.operation = func(*removal) string { return OpReplace }
	u.manifests = func(ctx context.Context, p *snapshotProducer, b *commitBase) ([]manifest.ManifestFile, map[string]string, error) {
		target := opts.TargetSizeBytes
		if target == 0 {
			settings, err := mergeSettingsOf(b.t)
			if err != nil {
				return nil, nil, err
			}
			target = settings.targetSize
		}
		return p.rewriteManifests(ctx, b, target)
	}
	return u, nil
}

// manifestGroup is the head's manifests of one content and spec.
type manifestGroup struct {
	content manifest.ManifestContent
	spec    int
	idx     []int // into the head's manifests
}

// rewriteManifests writes the head's manifests regrouped; see
// RewriteManifests.
func (p *snapshotProducer) rewriteManifests(ctx context.Context, b *commitBase, target int64) ([]manifest.ManifestFile, map[string]string, error) {
	if b.head == nil {
		return nil, nil, errkind.Errorf(errkind.InvalidArgument, "rewrite manifests: branch %q has no snapshot", b.branch)
	}
	list, err := b.headManifests(ctx)
	if err != nil {
		return nil, nil, err
	}
	var groups []*manifestGroup
	byKey := map[[2]int]*manifestGroup{}
	for i, mf := range list {
		k := [2]int{int(mf.Content), mf.PartitionSpecID}
		g := byKey[k]
		if g == nil {
			g = &manifestGroup{content: mf.Content, spec: mf.PartitionSpecID}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.idx = append(g.idx, i)
	}
	// Data before deletes, then by spec: a stable order for the list.
	slices.SortStableFunc(groups, func(x, y *manifestGroup) int {
		if x.content != y.content {
			return int(x.content) - int(y.content)
		}
		return x.spec - y.spec
	})
	var out []manifest.ManifestFile
	created, replaced, kept, processed := 0, 0, 0, 0
	for _, g := range groups {
		if len(g.idx) == 1 {
			out = append(out, list[g.idx[0]])
			kept++
			continue
		}
		if _, err := b.readEntries(ctx, func(mf *manifest.ManifestFile) bool {
			return mf.Content == g.content && mf.PartitionSpecID == g.spec
		}); err != nil {
			return nil, nil, err
		}
		var live []manifest.Entry
		var size int64
		for _, i := range g.idx {
			size += list[i].Length
			for _, e := range b.entries[i] {
				if e.Status == manifest.StatusDeleted {
					continue // a deletion the manifest's own snapshot recorded
				}
				e.Status = manifest.StatusExisting
				live = append(live, e)
			}
		}
		written, err := p.writeClustered(ctx, b, g, live, size, target)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, written...)
		created += len(written)
		replaced += len(g.idx)
		processed += len(live)
	}
	summary := map[string]string{
		"manifests-created":  strconv.Itoa(created),
		"manifests-replaced": strconv.Itoa(replaced),
		"manifests-kept":     strconv.Itoa(kept),
		"entries-processed":  strconv.Itoa(processed),
	}
	return out, summary, nil
}

// writeClustered sorts a group's live entries by partition tuple and
// writes them as manifests of about target bytes, estimated as Java does
// from the group's current size: as many manifests as that size holds
// targets, the entries shared evenly among them.
func (p *snapshotProducer) writeClustered(ctx context.Context, b *commitBase, g *manifestGroup, live []manifest.Entry, size, target int64) ([]manifest.ManifestFile, error) {
	if len(live) == 0 {
		return nil, nil
	}
	spec := b.t.Metadata.SpecByID(g.spec)
	if spec == nil {
		return nil, fmt.Errorf("rewrite manifests: partition spec %d is not in the table", g.spec)
	}
	partType, err := b.t.PartitionType(spec)
	if err != nil {
		return nil, err
	}
	fields := partType.Fields
	slices.SortStableFunc(live, func(x, y manifest.Entry) int {
		a, c := x.DataFile.Partition, y.DataFile.Partition
		for i := range min(len(a), len(c), len(fields)) {
			if r := iceberg.Compare(fields[i].Type, a[i], c[i]); r != 0 {
				return r
			}
		}
		return len(a) - len(c)
	})
	count := int((size + target - 1) / target)
	count = max(1, min(count, len(live)))
	per := (len(live) + count - 1) / count
	var out []manifest.ManifestFile
	for start := 0; start < len(live); start += per {
		mf, err := p.writeManifest(ctx, b.t, g.spec, g.content, live[start:min(start+per, len(live))])
		if err != nil {
			return nil, fmt.Errorf("rewrite manifests: %w", err)
		}
		out = append(out, mf)
	}
	return out, nil
}
