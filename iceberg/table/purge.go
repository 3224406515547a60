package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/floedb/floe/iceberg/fileio"
)

// Purge deletes every file the table's metadata reaches: the data and
// delete files of every snapshot's manifests, the manifests, manifest
// lists, statistics files, the metadata files in its log and the current
// one, and the version hint. It is the file half of dropping a table with
// purge, so it runs after the catalog forgot the table (no reader can
// then find it half gone). Files already missing are skipped; it goes on
// past failures and reports the first with how many failed.
func (t *Table) Purge(ctx context.Context) error {
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		if k := t.Locations.Apply(p); p != "" && !seen[k] {
			seen[k] = true
			paths = append(paths, p)
		}
	}
	for i := range t.Metadata.Snapshots {
		s := &t.Metadata.Snapshots[i]
		list, err := t.manifestsOf(ctx, s)
		if err != nil {
			return fmt.Errorf("purge %s: %w", t.Metadata.Location, err)
		}
		entries, err := t.readManifests(ctx, list, nil)
		if err != nil {
			return fmt.Errorf("purge %s: %w", t.Metadata.Location, err)
		}
		for _, es := range entries {
			for _, e := range es {
				add(e.DataFile.FilePath)
			}
		}
		for _, mf := range list {
			add(mf.Path)
		}
		add(s.ManifestList)
	}
	for _, f := range t.Metadata.Statistics {
		add(f.StatisticsPath)
	}
	for _, f := range t.Metadata.PartitionStatistics {
		add(f.StatisticsPath)
	}
	for _, e := range t.Metadata.MetadataLog {
		add(e.MetadataFile)
	}
	add(t.MetadataLocation)
	for _, name := range versionHintNames {
		add(fileio.JoinPath(parentDir(t.MetadataLocation), name))
	}
	var first error
	failed := 0
	for _, p := range paths {
		if err := t.IO.Delete(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			failed++
			if first == nil {
				first = err
			}
		}
	}
	if first != nil {
		return fmt.Errorf("purge %s: %d of %d files not deleted: %w", t.Metadata.Location, failed, len(paths), first)
	}
	return nil
}
