package table

import (
	"context"
	"fmt"
	"slices"

	"github.com/floedb/floe/iceberg/manifest"
)

// Manifest merging keeps a table that takes many small commits from
// piling up manifests, as the reference implementation's merging append
// does. The manifests of one spec and content, newest first, are packed
// into bins of commit.manifest.target-size-bytes counted from the oldest
// end (so the newest bin is the partly filled one). A bin of one manifest
// stays; the newest bin merges only once it holds
// commit.manifest.min-count-to-merge manifests; older bins of several
// manifests always merge. Merged entries keep their data and file sequence
// numbers (and row ids): ADDED entries of this snapshot stay ADDED, the
// DELETED entries of this snapshot stay DELETED, earlier deletions are
// dropped and everything else becomes EXISTING.

type mergeSettings struct {
	enabled    bool
	minCount   int
	targetSize int64
}

func mergeSettingsOf(t *Table) (mergeSettings, error) {
	md := t.Metadata
	enabled, err := md.PropertyBool(PropManifestMergeEnabled, true)
	if err != nil {
		return mergeSettings{}, err
	}
	minCount, err := md.PropertyInt(PropManifestMinCountToMerge, defaultManifestMinCountToMerge)
	if err != nil {
		return mergeSettings{}, err
	}
	target, err := md.PropertyInt(PropManifestTargetSizeBytes, defaultManifestTargetSizeBytes)
	if err != nil {
		return mergeSettings{}, err
	}
	return mergeSettings{enabled: enabled, minCount: int(max(minCount, 0)), targetSize: max(target, 1)}, nil
}

// merge applies manifest merging to the new snapshot's manifest list.
func (p *snapshotProducer) merge(ctx context.Context, b *commitBase, manifests []manifest.ManifestFile) ([]manifest.ManifestFile, error) {
	settings, err := mergeSettingsOf(b.t)
	if err != nil {
		return nil, err
	}
	if !settings.enabled || len(manifests) < 2 {
		return manifests, nil
	}
	type groupKey struct {
		content manifest.ManifestContent
		spec    int
	}
	var order []groupKey
	groups := map[groupKey][]manifest.ManifestFile{}
	for _, mf := range manifests {
		k := groupKey{mf.Content, mf.PartitionSpecID}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], mf)
	}
	var out []manifest.ManifestFile
	for _, k := range order {
		group := groups[k]
		for _, bin := range packEnd(group, settings.targetSize) {
			switch {
			case len(bin) == 1:
				out = append(out, bin[0])
			case bin[0].Path == group[0].Path && len(bin) < settings.minCount:
				out = append(out, bin...)
			default:
				merged, err := p.mergeBin(ctx, b, bin)
				if err != nil {
					return nil, err
				}
				out = append(out, merged)
			}
		}
	}
	return out, nil
}

// packEnd packs manifests, in order, into bins of at most target bytes
// (a larger manifest gets a bin of its own), filling from the end.
func packEnd(manifests []manifest.ManifestFile, target int64) [][]manifest.ManifestFile {
	var bins [][]manifest.ManifestFile
	var cur []manifest.ManifestFile
	var size int64
	for i := len(manifests) - 1; i >= 0; i-- {
		mf := manifests[i]
		if len(cur) > 0 && size+mf.Length > target {
			bins = append(bins, cur)
			cur, size = nil, 0
		}
		cur = append(cur, mf)
		size += mf.Length
	}
	if len(cur) > 0 {
		bins = append(bins, cur)
	}
	slices.Reverse(bins)
	for _, bin := range bins {
		slices.Reverse(bin)
	}
	return bins
}

// mergeBin writes the entries of several manifests as one.
func (p *snapshotProducer) mergeBin(ctx context.Context, b *commitBase, bin []manifest.ManifestFile) (manifest.ManifestFile, error) {
	var merged []manifest.Entry
	for _, mf := range bin {
		entries, err := p.entriesOf(ctx, b, mf)
		if err != nil {
			return manifest.ManifestFile{}, err
		}
		for _, e := range entries {
			switch {
			case e.Status == manifest.StatusDeleted && e.SnapshotID != p.snapshotID:
				continue
			case e.Status == manifest.StatusDeleted:
			case e.Status == manifest.StatusAdded && e.SnapshotID == p.snapshotID:
			default:
				e.Status = manifest.StatusExisting
			}
			merged = append(merged, e)
		}
	}
	mf, err := p.writeManifest(ctx, b.t, bin[0].PartitionSpecID, bin[0].Content, merged)
	if err != nil {
		return manifest.ManifestFile{}, fmt.Errorf("merge manifests: %w", err)
	}
	return mf, nil
}

// entriesOf gives a manifest's entries: kept in memory for those this
// producer wrote, read (or taken from the base's cache) for the others.
func (p *snapshotProducer) entriesOf(ctx context.Context, b *commitBase, mf manifest.ManifestFile) ([]manifest.Entry, error) {
	if e, ok := p.writtenEntries[mf.Path]; ok {
		return e, nil
	}
	for i := range b.manifests {
		if b.manifests[i].Path == mf.Path && b.entries[i] != nil {
			return b.entries[i], nil
		}
	}
	read, err := b.t.readManifests(ctx, []manifest.ManifestFile{mf})
	if err != nil {
		return nil, err
	}
	return read[0], nil
}
