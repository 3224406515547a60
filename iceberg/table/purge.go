package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/floedb/floe/iceberg/fileio"
)

// Purge deletes the files the table's metadata reaches: the data and
// delete files of every snapshot's manifests (unless gc.enabled is false:
// another table may own them, as after Spark's snapshot or migrate; Java's
// dropTableData keeps them too), the manifests, manifest lists,
// statistics files, the metadata files in its log and the current one,
// and the version hint. It is the file half of dropping a table with
// purge, so it runs after the catalog forgot the table (no reader can
// then find it half gone). Files already missing are skipped. It goes on
// past failures, a manifest that cannot be read included (what it names
// is then left), and reports the first with how many there were. Only
// files under the table's location are deleted (ownedFiles): one named
// elsewhere is left, as registered data another owner may hold.
func (t *Table) Purge(ctx context.Context) error {
	owned, err := t.ownedFiles()
	if err != nil {
		return fmt.Errorf("purge %s: %w", t.Metadata.Location, err)
	}
	gc, err := t.Metadata.PropertyBool(PropGCEnabled, true)
	if err != nil {
		gc = false // a malformed setting keeps the data, the safe side
	}
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		if k := t.Locations.Apply(p); p != "" && !seen[k] {
			seen[k] = true
			paths = append(paths, p)
		}
	}
	var first error
	failed := 0
	fail := func(err error) {
		failed++
		if first == nil {
			first = err
		}
	}
	for i := range t.Metadata.Snapshots {
		s := &t.Metadata.Snapshots[i]
		list, err := t.manifestsOf(ctx, s)
		if err != nil {
			fail(err)
			continue
		}
		if gc {
			entries, err := t.readManifests(ctx, list)
			if err != nil {
				fail(err)
			}
			for _, es := range entries {
				for _, e := range es {
					add(e.DataFile.FilePath)
				}
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
	for _, p := range paths {
		if !owned(p) {
			continue
		}
		if err := t.IO.Delete(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fail(err)
		}
	}
	if first != nil {
		return fmt.Errorf("purge %s: %d failures among %d files: %w", t.Metadata.Location, failed, len(paths), first)
	}
	return nil
}
