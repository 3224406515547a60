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
	err = t.walkReferenced(ctx, func(p string, snapshot int64) {
		if i, in := asked[key(p)]; in && i < first {
			first, firstSnapshot = i, snapshot
		}
	})
	if err != nil {
		return "", 0, false, err
	}
	if first == len(paths) {
		return "", 0, false, nil
	}
	return paths[first], firstSnapshot, true, nil
}

// walkReferenced calls visit with every file t's snapshots reach and the
// snapshot that reaches it: the statistics and partition statistics files
// (snapshot as recorded), each snapshot's manifest list and manifests, and
// the data and delete files of every entry of those manifests, whatever
// its status (deletion vectors' Puffin files among them). A manifest
// shared by several snapshots is read once, credited to the first that
// lists it. The walk stops at the first file it cannot read: a caller
// deciding what may be deleted must not guess. It is the one walk of a
// table's references; FirstReferenced and RemoveOrphanFiles use it.
func (t *Table) walkReferenced(ctx context.Context, visit func(path string, snapshotID int64)) error {
	key := func(p string) string { return fileio.Canonical(t.Locations.Apply(p)) }
	for _, f := range t.Metadata.Statistics {
		visit(f.StatisticsPath, f.SnapshotID)
	}
	for _, f := range t.Metadata.PartitionStatistics {
		visit(f.StatisticsPath, f.SnapshotID)
	}
	seen := map[string]bool{}
	var toRead []manifest.ManifestFile
	var listedBy []int64
	for i := range t.Metadata.Snapshots {
		s := &t.Metadata.Snapshots[i]
		visit(s.ManifestList, s.SnapshotID)
		list, err := t.manifestsOf(ctx, s)
		if err != nil {
			return err
		}
		for _, mf := range list {
			visit(mf.Path, s.SnapshotID)
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
	return streamManifests(ctx, toRead, read, func(i int, r *manifestRead) error {
		for _, e := range r.entries {
			snapshot := e.SnapshotID
			if snapshot == 0 {
				snapshot = listedBy[i]
			}
			visit(e.DataFile.FilePath, snapshot)
		}
		return nil
	})
}
