package table

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// Purge deletes every file the table reaches, and nothing else.
func TestPurgeDeletesWhatTheTableReaches(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	scratch := t.TempDir()
	first := intoTable(t, tbl, writeFiles(t, filepath.Join(scratch, "a"), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 50), 20))
	second := intoTable(t, tbl, writeFiles(t, filepath.Join(scratch, "b"), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 50), 20))
	if _, err := tbl.Append(ctx, first, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopen(t, tbl)
	// Replace the first files: they stay reachable from the first snapshot.
	if _, err := tbl.Commit(ctx, second, pathsOf(first), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopen(t, tbl)
	if len(tbl.Metadata.Snapshots) != 2 {
		t.Fatalf("%d snapshots", len(tbl.Metadata.Snapshots))
	}
	if err := tbl.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(first, second...) {
		if _, err := os.Stat(strings.TrimPrefix(f.FilePath, "file://")); !os.IsNotExist(err) {
			t.Errorf("data file %s is still there (%v)", f.FilePath, err)
		}
	}
	var left []string
	_ = filepath.Walk(tbl.Metadata.Location, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && info.Name() != commitLockName {
			left = append(left, p)
		}
		return nil
	})
	if len(left) != 0 {
		t.Errorf("files left in the table directory: %v", left)
	}
	// The scratch tables' own metadata was never the table's: it stays.
	if _, err := LocateMetadata(ctx, tbl.IO, filepath.ToSlash(filepath.Join(scratch, "a"))); err != nil {
		t.Errorf("purge deleted a file the table does not reference: %v", err)
	}
	if _, err := Open(ctx, tbl.Metadata.Location, Options{}); err == nil {
		t.Error("the purged table still opens")
	}
}

// With gc.enabled=false the data files stay (another table may own
// them); the table's own metadata, manifests and lists go.
func TestPurgeKeepsDataWithoutGC(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, map[string]string{PropGCEnabled: "false"})
	files := intoTable(t, tbl, writeFiles(t, filepath.Join(t.TempDir(), "a"), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 30), 10))
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopen(t, tbl)
	list := tbl.Metadata.CurrentSnapshot().ManifestList
	if err := tbl.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := os.Stat(strings.TrimPrefix(f.FilePath, "file://")); err != nil {
			t.Errorf("data file %s was deleted with gc.enabled=false: %v", f.FilePath, err)
		}
	}
	if _, err := os.Stat(strings.TrimPrefix(list, "file://")); !os.IsNotExist(err) {
		t.Errorf("the manifest list %s is still there (%v)", list, err)
	}
}
