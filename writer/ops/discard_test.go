package ops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/writer"
)

// Files written for a commit that did not take them (here: never
// committed) are deleted, and discarding them again is no error.
func TestDiscardFilesRemovesFilesNoSnapshotTook(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, byBool, nil)
	appendInChunks(t, tbl, testtable.RandomRows(1, 30), 30)
	dataDir := writer.DataLocation(tbl.Metadata)
	before := filesUnderDir(t, dataDir)
	files := writeTableFiles(t, tbl, testtable.RandomRows(2, 40))
	if len(filesUnderDir(t, dataDir)) <= len(before) {
		t.Fatal("WriteFiles wrote no file")
	}
	if err := DiscardFiles(ctx, tbl, files); err != nil {
		t.Fatal(err)
	}
	if after := filesUnderDir(t, dataDir); !slices.Equal(after, before) {
		t.Fatalf("after the discard:\n%v\nbefore the write:\n%v", after, before)
	}
	if err := DiscardFiles(ctx, tbl, files); err != nil {
		t.Fatalf("a second discard of the same files: %v", err)
	}
}

// A file any snapshot references is refused (CONFLICT), the current one's
// and one only an older snapshot still holds; nothing of the call is
// deleted, the unreferenced files given with it neither.
func TestDiscardFilesRefusesReferencedFiles(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, nil, nil)
	committed := writeTableFiles(t, tbl, testtable.RandomRows(1, 20))
	if _, err := AppendFiles(ctx, tbl, committed, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := reopened(t, tbl) // a handle that does not know the overwrite below
	replaced := writeTableFiles(t, tbl, testtable.RandomRows(2, 20))
	if _, err := Overwrite(ctx, tbl, expr.AlwaysTrue{}, rowsReader(t, tbl, testtable.RandomRows(3, 5)), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// committed[0] is now only in the first snapshot; replaced is in none.
	current := liveFiles(t, reopened(t, tbl)).Tasks[0].Path
	for name, tc := range map[string]struct {
		tbl  *table.Table
		path string
	}{
		"current snapshot's file":                     {tbl, current},
		"an older snapshot's file":                    {tbl, committed[0].FilePath},
		"a file committed after the handle's version": {stale, current},
	} {
		t.Run(name, func(t *testing.T) {
			files := append(slices.Clone(replaced), manifest.DataFile{FilePath: tc.path, Content: manifest.ContentData})
			err := DiscardFiles(ctx, tc.tbl, files)
			if errkind.Of(err) != errkind.Conflict || !strings.Contains(err.Error(), filepath.Base(tc.path)) {
				t.Fatalf("discard of a referenced file: %v; want CONFLICT naming %s", err, tc.path)
			}
			for _, p := range append([]string{tc.path}, paths(replaced)...) {
				if _, err := os.Stat(strings.TrimPrefix(p, "file://")); err != nil {
					t.Fatalf("a refused discard deleted %s: %v", p, err)
				}
			}
		})
	}
}

// A file outside the table's data location is refused (INVALID_ARGUMENT):
// one elsewhere on the disk, the table's own metadata, a path climbing out
// of the data directory; none is deleted.
func TestDiscardFilesRefusesFilesOutsideTheDataLocation(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, nil, nil)
	appendInChunks(t, tbl, testtable.RandomRows(1, 10), 10)
	outside := filepath.Join(t.TempDir(), "precious.parquet")
	if err := os.WriteFile(outside, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	dataDir := strings.TrimPrefix(writer.DataLocation(tbl.Metadata), "file://")
	climbing := filepath.Join(filepath.Dir(dataDir), "beside.parquet")
	if err := os.WriteFile(climbing, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory under the data location that links out of the table.
	linkedDir := t.TempDir()
	linked := filepath.Join(linkedDir, "linked.parquet")
	if err := os.WriteFile(linked, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(linkedDir, filepath.Join(dataDir, "link")); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"through a symlink out":   dataDir + "/link/linked.parquet",
		"elsewhere":               outside,
		"the table's metadata":    strings.TrimPrefix(tbl.MetadataLocation, "file://"),
		"a path climbing out":     dataDir + "/../beside.parquet",
		"the table's location":    filepath.Dir(dataDir) + "/beside.parquet",
		"a file:// URI elsewhere": "file://" + outside,
	} {
		t.Run(name, func(t *testing.T) {
			err := DiscardFiles(ctx, tbl, []manifest.DataFile{{FilePath: path, Content: manifest.ContentData}})
			if errkind.Of(err) != errkind.InvalidArgument || !strings.Contains(err.Error(), path) {
				t.Fatalf("discard of %s: %v; want INVALID_ARGUMENT naming it", path, err)
			}
			for _, p := range []string{outside, climbing, linked, strings.TrimPrefix(tbl.MetadataLocation, "file://")} {
				if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
					t.Fatalf("a refused discard deleted %s", p)
				}
			}
		})
	}
}

func paths(files []manifest.DataFile) []string {
	out := make([]string, len(files))
	for i := range files {
		out[i] = files[i].FilePath
	}
	return out
}

// DiscardNotTaken deletes the files given to a commit exactly when it did
// not take them: its token was found (a stale handle's commit finds what
// another attempt committed), or it was refused (a replace whose
// partition another writer changed); after a commit that took them it
// deletes nothing.
func TestDiscardNotTakenFollowsTheCommit(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, byBool, nil)
	appendInChunks(t, tbl, testtable.RandomRows(1, 30), 30)
	dataDir := writer.DataLocation(tbl.Metadata)

	stale := reopened(t, tbl)
	before := filesUnderDir(t, dataDir)
	first := writeTableFiles(t, tbl, testtable.RandomRows(2, 20))
	res, err := DiscardNotTaken(ctx, tbl, first)(AppendFiles(ctx, tbl, first, table.CommitOptions{Token: "job-1"}))
	if err != nil || !res.Committed {
		t.Fatalf("first attempt: %+v, %v", res, err)
	}
	taken := filesUnderDir(t, dataDir)
	if len(taken) != len(before)+len(first) {
		t.Fatalf("the commit that took its files left %d files, want %d", len(taken), len(before)+len(first))
	}
	again := writeTableFiles(t, stale, testtable.RandomRows(3, 20))
	found, err := DiscardNotTaken(ctx, stale, again)(AppendFiles(ctx, stale, again, table.CommitOptions{Token: "job-1"}))
	if err != nil || !found.TokenFound || found.SnapshotID != res.SnapshotID {
		t.Fatalf("second attempt: %+v, %v; want the token found in snapshot %d", found, err, res.SnapshotID)
	}
	if after := filesUnderDir(t, dataDir); !slices.Equal(after, taken) {
		t.Fatalf("after the token was found:\n%v\nwant what the first attempt left:\n%v", after, taken)
	}
	// A retry after an unknown outcome sends the very files the first
	// attempt committed: the token is found, nothing is deleted, no error.
	same, err := DiscardNotTaken(ctx, stale, first)(AppendFiles(ctx, stale, first, table.CommitOptions{Token: "job-1"}))
	if err != nil || !same.TokenFound || same.SnapshotID != res.SnapshotID {
		t.Fatalf("retry with the committed files: %+v, %v; want the token found in snapshot %d", same, err, res.SnapshotID)
	}
	if after := filesUnderDir(t, dataDir); !slices.Equal(after, taken) {
		t.Fatalf("after a retry with the committed files:\n%v\nwant:\n%v", after, taken)
	}

	opened := reopened(t, tbl)
	if _, err := ReplacePartitions(ctx, tbl, rowsReader(t, tbl, testtable.RandomRows(4, 20)), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	replaced := filesUnderDir(t, dataDir)
	refused := writeTableFiles(t, opened, testtable.RandomRows(5, 20))
	_, err = DiscardNotTaken(ctx, opened, refused)(ReplacePartitionsFiles(ctx, opened, refused, table.CommitOptions{}))
	if errkind.Of(err) != errkind.Conflict {
		t.Fatalf("a replace of partitions another writer changed: %v; want CONFLICT", err)
	}
	if after := filesUnderDir(t, dataDir); !slices.Equal(after, replaced) {
		t.Fatalf("after the refused replace:\n%v\nwant:\n%v", after, replaced)
	}
}
