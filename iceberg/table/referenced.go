package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
)

// FirstReferenced reports the first of paths (in their order) that t's
// metadata references, and the snapshot that references it: a data or
// delete file in a manifest of any snapshot (entries of every status: a
// file an older snapshot still reads counts), a manifest, a manifest list,
// or a statistics file (snapshot id as the metadata records it). ok is
// false when none is. Paths are compared as the table's location map sends
// them, in their canonical spelling, so /p and file:///p are one file.
// It reads every snapshot's manifests: the check that files written for a
// commit that did not take them (writer/ops.DiscardFiles) may go.
func (t *Table) FirstReferenced(ctx context.Context, paths []string) (path string, snapshotID int64, ok bool, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("find the files the table references: %w", err)
		}
	}()
	key := func(p string) string { return fileio.Canonical(t.Locations.Apply(p)) }
	asked := make(map[string]int, len(paths))
	for i, p := range paths {
		if _, dup := asked[key(p)]; !dup {
			asked[key(p)] = i
		}
	}
	first := len(paths)
	var firstSnapshot int64
	hit := func(p string, snapshot int64) {
		if i, in := asked[key(p)]; in && i < first {
			first, firstSnapshot = i, snapshot
		}
	}
	for _, f := range t.Metadata.Statistics {
		hit(f.StatisticsPath, f.SnapshotID)
	}
	for _, f := range t.Metadata.PartitionStatistics {
		hit(f.StatisticsPath, f.SnapshotID)
	}
	seen := map[string]bool{}
	var toRead []manifest.ManifestFile
	var listedBy []int64
	for i := range t.Metadata.Snapshots {
		s := &t.Metadata.Snapshots[i]
		hit(s.ManifestList, s.SnapshotID)
		list, err := t.manifestsOf(ctx, s)
		if err != nil {
			return "", 0, false, err
		}
		for _, mf := range list {
			hit(mf.Path, s.SnapshotID)
			if k := key(mf.Path); !seen[k] {
				seen[k] = true
				toRead = append(toRead, mf)
				listedBy = append(listedBy, s.SnapshotID)
			}
		}
	}
	// Streamed a window at a time, as planning reads: a table's whole
	// history of manifests is never held at once.
	read := func(ctx context.Context, i int) manifestRead {
		var r manifestRead
		r.entries, r.err = t.readManifest(ctx, toRead[i])
		return r
	}
	err = streamManifests(ctx, toRead, read, func(i int, r *manifestRead) error {
		for _, e := range r.entries {
			snapshot := e.SnapshotID
			if snapshot == 0 {
				snapshot = listedBy[i]
			}
			hit(e.DataFile.FilePath, snapshot)
		}
		return nil
	})
	if err != nil {
		return "", 0, false, err
	}
	if first == len(paths) {
		return "", 0, false, nil
	}
	return paths[first], firstSnapshot, true, nil
}
