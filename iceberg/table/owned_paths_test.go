package table

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/testtable"
)

// outsideFiles gives a table files its metadata may name but expiry and
// purge must never delete: one in another directory (as add_files
// registers), one reached through ".." from the data directory, and one
// under a symlink in the data directory that points outside. Each exists.
func outsideFiles(t *testing.T, tbl *Table) []manifest.DataFile {
	t.Helper()
	outside := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(7, 1000, 30), 10)
	victimDir := filepath.Dir(strings.TrimPrefix(outside[1].FilePath, "file://"))
	data := filepath.Join(tbl.Metadata.Location, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(data, strings.TrimPrefix(outside[1].FilePath, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	dotted := outside[1]
	dotted.FilePath = filepath.ToSlash(data) + "/" + filepath.ToSlash(rel) // data/../../…/victim
	if err := os.Symlink(victimDir, filepath.Join(data, "link")); err != nil {
		t.Fatal(err)
	}
	linked := outside[2]
	linked.FilePath = filepath.ToSlash(filepath.Join(data, "link", filepath.Base(outside[2].FilePath)))
	return []manifest.DataFile{outside[0], dotted, linked}
}

func present(path string) bool {
	_, err := os.Lstat(strings.TrimPrefix(path, "file://"))
	return err == nil
}

func TestOwnedFiles(t *testing.T) {
	tbl := createTable(t, 2, nil, nil)
	loc := tbl.Metadata.Location
	for path, want := range map[string]bool{
		loc + "/data/a.parquet":                  true,
		"file://" + loc + "/data/x/b.parquet":    true,
		loc + "/metadata/snap-1.avro":            true,
		loc:                                      false,
		loc + "/":                                false,
		loc + "/../other/data/a.parquet":         false,
		loc + "/data/./a.parquet":                false,
		loc + "x/data/a.parquet":                 false, // a sibling sharing the prefix
		"/etc/passwd":                            false,
		loc + "/data/a\x00.parquet":              false,
		loc + "/data\\..\\..\\b.parquet":         false,
		"s3://bucket/" + loc + "/data/a.parquet": false,
		"hdfs://nn" + loc + "/data/a.parquet":    true, // the same path in another spelling
		"":                                       false,
	} {
		if got := mustOwned(t, tbl)(path); got != want {
			t.Errorf("owned(%q) = %v, want %v", path, got, want)
		}
	}
	// A symlink in the table directory pointing outside: files under it
	// are not the table's, though their path says so.
	if err := os.Symlink(t.TempDir(), filepath.Join(loc, "escape")); err != nil {
		t.Fatal(err)
	}
	if mustOwned(t, tbl)(loc + "/escape/f.parquet") {
		t.Error("a file under a symlink out of the table is owned")
	}
	// A table location that is itself reached through a symlink still owns
	// its files.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(loc, alias); err != nil {
		t.Fatal(err)
	}
	aliased, err := Open(context.Background(), alias, Options{})
	if err != nil {
		t.Fatal(err)
	}
	aliased.Metadata.Location = alias
	if !mustOwned(t, aliased)(alias + "/data/a.parquet") {
		t.Error("a table opened through a symlink does not own its data files")
	}
}

// Expiry deletes only the unreferenced files under the table's location
// and reports the others as Outside.
func TestExpireNeverDeletesOutsideTheTable(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	inside := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10))
	outside := outsideFiles(t, tbl)
	old := append(append([]manifest.DataFile(nil), inside...), outside...)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopen(t, tbl)
	// Replace them all, so that only the expired snapshot references them.
	fresh := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 10))
	if _, err := tbl.Commit(ctx, fresh, pathsOf(old), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopen(t, tbl)
	retain, now := 1, int64(1)<<62
	res, err := tbl.ExpireSnapshots(ctx, &now, &retain, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ExpiredSnapshots) != 1 {
		t.Fatalf("expired %v", res.ExpiredSnapshots)
	}
	checkDeletedInsideOnly(t, inside, outside)
	got := append([]string(nil), res.Outside...)
	sort.Strings(got)
	if want := pathsOf(outside); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Outside:\n%v\nwant\n%v", got, want)
	}
}

func TestPurgeNeverDeletesOutsideTheTable(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	inside := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10))
	outside := outsideFiles(t, tbl)
	if _, err := tbl.Append(ctx, append(append([]manifest.DataFile(nil), inside...), outside...), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = reopen(t, tbl)
	if err := tbl.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	checkDeletedInsideOnly(t, inside, outside)
}

// checkDeletedInsideOnly: every inside file is gone, every outside one is
// still there.
func checkDeletedInsideOnly(t *testing.T, inside, outside []manifest.DataFile) {
	t.Helper()
	for _, f := range inside {
		if present(f.FilePath) {
			t.Errorf("%s, inside the table, was not deleted", f.FilePath)
		}
	}
	for _, f := range outside {
		if !present(f.FilePath) {
			t.Errorf("%s, outside the table, was deleted", f.FilePath)
		}
	}
}

func mustOwned(t *testing.T, tbl *Table) func(string) bool {
	t.Helper()
	owned, err := tbl.ownedFiles()
	if err != nil {
		t.Fatal(err)
	}
	return owned
}

// setRecordedLocation rewrites the table's current metadata file in place
// so that it records location, as a hostile or damaged file would.
func setRecordedLocation(t *testing.T, tbl *Table, location string) {
	t.Helper()
	data, err := os.ReadFile(tbl.MetadataLocation)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["location"] = location
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tbl.MetadataLocation, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A metadata file whose location is the folder above the table (wh/ for
// wh/t) made every file under wh/ the table's to delete: expiry and purge
// removed a file of wh/other that an expired snapshot named. Both are now
// refused, committing and deleting nothing.
func TestExpireAndPurgeRefuseALocationAboveTheTable(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	dir := filepath.Join(wh, "t")
	tbl, err := Create(ctx, nil, dir, testtable.Schema(), nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	victims := writeFiles(t, filepath.Join(wh, "other"), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	if _, err := tbl.Append(ctx, victims, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 10))
	if _, err := tbl.Commit(ctx, fresh, pathsOf(victims), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	setRecordedLocation(t, tbl, wh)
	hostile, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	version := hostile.MetadataLocation
	now := int64(1) << 62
	_, err = hostile.ExpireSnapshots(ctx, &now, nil, ExpireOptions{})
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "a directory above it") {
		t.Errorf("expire: %v, want an invalid-argument error naming the location above the table", err)
	}
	if err := hostile.Purge(ctx); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("purge: %v, want an invalid-argument error", err)
	}
	for _, f := range victims {
		if !present(f.FilePath) {
			t.Errorf("%s, beside the table, was deleted", f.FilePath)
		}
	}
	again, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.MetadataLocation != version {
		t.Errorf("a refused expiry committed %s", again.MetadataLocation)
	}
}
