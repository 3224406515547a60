package table

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/fixtures"
)

// filesOnDisk lists every regular file under dir.
func filesOnDisk(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// writeLeftover writes a file of data under the table at rel, as a
// killed writer leaves one.
func writeLeftover(t *testing.T, tbl *Table, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(tbl.Metadata.Location, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(p)
}

// ageAll sets the modification time of every file under dir to at.
func ageAll(t *testing.T, dir string, at time.Time) {
	t.Helper()
	for _, p := range filesOnDisk(t, dir) {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// currentReferences is what the current snapshot alone names, read
// plainly (no walk of the history): its manifest list, manifests and every
// file their entries name, plus the metadata files and hint. After an
// expiry that keeps only the current snapshot, it is all a table needs.
func currentReferences(t *testing.T, tbl *Table) map[string]bool {
	t.Helper()
	ctx := context.Background()
	fresh := reopen(t, tbl)
	out := map[string]bool{}
	s := fresh.Metadata.CurrentSnapshot()
	out[s.ManifestList] = true
	list, err := fresh.ManifestList(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range list {
		out[mf.Path] = true
		entries, err := fresh.ReadManifest(ctx, mf)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			out[filepath.ToSlash(plainPath(e.DataFile.FilePath))] = true
		}
	}
	for _, p := range filesOnDisk(t, filepath.Join(fresh.Metadata.Location, "metadata")) {
		if filepath.Ext(p) == ".json" || filepath.Base(p) == "version-hint.text" {
			out[p] = true
		}
	}
	return out
}

func plainPath(p string) string {
	if len(p) > len("file://") && p[:len("file://")] == "file://" {
		return p[len("file://"):]
	}
	return p
}

func TestRemoveOrphanFilesDeletesExactlyTheUnreferencedOldFiles(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 80), 10))
	for i := range 6 {
		if _, err := tbl.Append(ctx, []manifest.DataFile{files[i]}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// One file named in another spelling than the listing gives.
	respelled := files[6]
	respelled.FilePath = "file://" + files[6].FilePath
	if _, err := tbl.Append(ctx, []manifest.DataFile{respelled}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Commit(ctx, nil, []string{files[0].FilePath, files[1].FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// Expiry that deletes nothing leaves the expired snapshots' lists,
	// manifests and the removed files behind: orphans.
	now, keep := time.Now().UnixMilli()+1, 1
	if res, err := tbl.ExpireSnapshots(ctx, &now, &keep, ExpireOptions{KeepFiles: true}); err != nil || len(res.ExpiredSnapshots) != 7 {
		t.Fatalf("expire: %+v, %v", res, err)
	}
	live := currentReferences(t, tbl)
	var want []string
	for _, p := range filesOnDisk(t, tbl.Metadata.Location) {
		if !live[p] && !hiddenName(filepath.Base(p)) {
			want = append(want, p)
		}
	}
	if len(want) < 10 {
		t.Fatalf("expected the expired snapshots to leave files, found %v", want)
	}
	// A killed commit's leftovers: a data file and a manifest and list no
	// metadata names; one in a partition directory of a "_" field.
	manifestBytes, err := os.ReadFile(files[7].FilePath)
	if err != nil {
		t.Fatal(err)
	}
	// files[7] was moved into data/ and never committed: already in want.
	want = append(want,
		writeLeftover(t, tbl, "metadata/killed-m0.avro", manifestBytes[:100]),
		writeLeftover(t, tbl, "metadata/snap-1-1-killed.avro", []byte("list")),
		writeLeftover(t, tbl, "data/_k=2/killed.parquet", manifestBytes),
		writeLeftover(t, tbl, "data/k=1/deep/killed.parquet", manifestBytes),
	)
	slices.Sort(want)
	// Hidden files stay: other tools' and writers' own.
	hidden := []string{
		writeLeftover(t, tbl, "data/_temporary/0/part.parquet", manifestBytes),
		writeLeftover(t, tbl, "data/.part.parquet.crc", []byte("crc")),
		writeLeftover(t, tbl, "_SUCCESS", nil),
	}
	old := time.Now().Add(-4 * 24 * time.Hour)
	ageAll(t, tbl.Metadata.Location, old)
	// A write in flight: unreferenced but fresh.
	inflight := writeLeftover(t, tbl, "data/inflight.parquet", manifestBytes)
	before := filesOnDisk(t, tbl.Metadata.Location)

	dry, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dry.Orphans, want) {
		t.Fatalf("dry run found\n%v\nwant\n%v", dry.Orphans, want)
	}
	visible := 0
	for _, p := range before {
		rel, _ := filepath.Rel(tbl.Metadata.Location, p)
		if !slices.ContainsFunc(strings.Split(rel, "/"), hiddenName) {
			visible++
		}
	}
	if dry.Deleted != 0 || dry.TooNew != 1 || dry.Listed != visible || dry.Referenced != visible-len(want)-1 {
		t.Fatalf("dry run: %+v (listed want %d)", dry, visible)
	}
	for _, p := range hidden {
		if slices.Contains(dry.Orphans, p) {
			t.Fatalf("hidden %s taken for an orphan", p)
		}
	}
	if got := filesOnDisk(t, tbl.Metadata.Location); !slices.Equal(got, before) {
		t.Fatal("a dry run deleted files")
	}

	res, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Orphans, want) || res.Deleted != len(want) || res.FailedDeletes != 0 {
		t.Fatalf("removed %+v, want %v", res, want)
	}
	var left []string
	for _, p := range before {
		if !slices.Contains(want, p) {
			left = append(left, p)
		}
	}
	if got := filesOnDisk(t, tbl.Metadata.Location); !slices.Equal(got, left) {
		t.Fatalf("files left\n%v\nwant\n%v", got, left)
	}
	if !exists(inflight) || !exists(files[6].FilePath) {
		t.Fatal("the in-flight file or the respelled live file was deleted")
	}
	// The table reads whole: every live file is there.
	fresh := reopen(t, tbl)
	for _, p := range livePaths(t, fresh) {
		if !exists(plainPath(p)) {
			t.Errorf("live file %s is gone", p)
		}
	}
	if got := len(livePaths(t, fresh)); got != 5 {
		t.Fatalf("%d live files, want 5", got)
	}
	again, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{})
	if err != nil || len(again.Orphans) != 0 {
		t.Fatalf("second run: %+v, %v", again, err)
	}
	// A young threshold takes the in-flight file only when forced.
	if _, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{OlderThan: time.Minute}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("older-than 1m without force: %v", err)
	}
	if err := os.Chtimes(inflight, time.Now().Add(-2*time.Minute), time.Now().Add(-2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	forced, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{OlderThan: time.Minute, Force: true})
	if err != nil || !slices.Equal(forced.Orphans, []string{inflight}) || exists(inflight) {
		t.Fatalf("forced: %+v, %v", forced, err)
	}
}

func TestRemoveOrphanFilesStaysInside(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10))
	if _, err := tbl.Append(ctx, files[:1], CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-4 * 24 * time.Hour)
	// A sibling directory sharing the location's name as a prefix, and a
	// symlinked directory inside the table leading back to data/.
	sibling := tbl.Metadata.Location + "-other"
	if err := os.MkdirAll(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(sibling, "f.parquet")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tbl.Metadata.Location, "data"), filepath.Join(tbl.Metadata.Location, "data", "loop")); err != nil {
		t.Fatal(err)
	}
	ageAll(t, tbl.Metadata.Location, old)
	ageAll(t, sibling, old)

	for _, loc := range []string{sibling, filepath.Dir(tbl.Metadata.Location), tbl.Metadata.Location + "/data/../../x"} {
		if _, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{Location: loc}); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("location %s: %v, want refused", loc, err)
		}
	}
	res, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{Location: "file://" + tbl.Metadata.Location + "/data"})
	if err != nil {
		t.Fatal(err)
	}
	// files[1] never committed: the one orphan, found once although the
	// loop would name it again.
	if len(res.Orphans) != 1 || plainPath(res.Orphans[0]) != files[1].FilePath {
		t.Fatalf("orphans %v, want %s", res.Orphans, files[1].FilePath)
	}
	if !exists(outside) || !exists(files[0].FilePath) || exists(files[1].FilePath) {
		t.Fatal("deleted outside the location or a live file, or kept the orphan")
	}

	if err := tbl.SetProperties(ctx, map[string]string{PropGCEnabled: "false"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{DryRun: true}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("gc disabled: %v", err)
	}
}

// A table Flink and Impala wrote, copied and opened through a location
// map (its metadata names hdfs:// and bare /test-warehouse paths): what
// it references in any spelling stays, every snapshot still plans, and
// only files nothing names go.
func TestRemoveOrphanFilesOnAForeignTable(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Get("impala_iceberg_v2_delete_equality_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tbl")
	if err := os.CopyFS(dir, os.DirFS(fx.Dir)); err != nil {
		t.Fatal(err)
	}
	locations := map[string]string{}
	for from := range fx.LocationMap {
		locations[from] = dir
	}
	open := func() *Table {
		tbl, err := Open(ctx, dir, Options{LocationMap: locations})
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	ageAll(t, dir, time.Now().Add(-4*24*time.Hour))
	stray := filepath.ToSlash(filepath.Join(dir, "data", "d=2023-12-24", "stray.parquet"))
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(stray, time.Now().Add(-4*24*time.Hour), time.Now().Add(-4*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	tbl := open()
	res, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	// Orphans are named in the table's own spelling, where its map
	// sends them.
	if !slices.ContainsFunc(res.Orphans, func(p string) bool { return tbl.Locations.Apply(p) == stray }) {
		t.Fatalf("the stray file is not an orphan: %+v", res)
	}
	// Everything else the engines wrote is referenced: data files named
	// /test-warehouse/..., position deletes naming hdfs://..., the
	// metadata log.
	if len(res.Orphans) != 1 || res.Referenced != len(filesOnDisk(t, dir))-1 {
		t.Fatalf("orphans %v, %d referenced", res.Orphans, res.Referenced)
	}
	if _, err := open().RemoveOrphanFiles(ctx, OrphanOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = open()
	for _, s := range tbl.Metadata.Snapshots {
		id := s.SnapshotID
		plan, err := tbl.PlanFiles(ctx, SnapshotSelector{SnapshotID: &id})
		if err != nil {
			t.Fatalf("snapshot %d: %v", id, err)
		}
		for _, task := range plan.Tasks {
			if !exists(task.Path) {
				t.Errorf("snapshot %d: %s is gone", id, task.Path)
			}
			for _, d := range task.Deletes {
				if !exists(d.Path) {
					t.Errorf("snapshot %d: delete file %s is gone", id, d.Path)
				}
			}
		}
	}
	if exists(stray) {
		t.Fatal("the stray file is still there")
	}
}

// A copy of a table opened with no relocation still names its original's
// location: orphan removal refuses rather than delete there (deleteRoot).
func TestRemoveOrphanFilesRefusesATableOpenedAwayFromItsLocation(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10))
	if _, err := tbl.Append(ctx, files[:1], CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	ageAll(t, tbl.Metadata.Location, time.Now().Add(-4*24*time.Hour))
	copyDir := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(copyDir, os.DirFS(tbl.Metadata.Location)); err != nil {
		t.Fatal(err)
	}
	ageAll(t, copyDir, time.Now().Add(-4*24*time.Hour))
	moved, err := Open(ctx, copyDir, Options{NoRelocate: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := moved.RemoveOrphanFiles(ctx, OrphanOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a copy opened with no relocation: %v", err)
	}
	if !exists(files[1].FilePath) {
		t.Fatal("the original's orphan was deleted through its copy")
	}
	// Relocated (the default), the copy cleans itself only.
	relocated, err := Open(ctx, copyDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := relocated.RemoveOrphanFiles(ctx, OrphanOptions{})
	if err != nil || len(res.Orphans) != 1 || relocated.Locations.Apply(res.Orphans[0]) != filepath.Join(copyDir, "data", filepath.Base(files[1].FilePath)) {
		t.Fatalf("relocated copy: %+v, %v", res, err)
	}
	if !exists(files[1].FilePath) || exists(filepath.Join(copyDir, "data", filepath.Base(files[1].FilePath))) {
		t.Fatal("deleted in the original, or not in the copy")
	}
}

// A manifest that cannot be read leaves what it names unknown: the call
// fails before deleting anything.
func TestRemoveOrphanFilesDeletesNothingWhenAManifestIsUnreadable(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 30), 10))
	for i := range 2 {
		if _, err := tbl.Append(ctx, files[i:i+1], CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := tbl.ManifestList(ctx, tbl.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list[0].Path, []byte("not avro"), 0o644); err != nil {
		t.Fatal(err)
	}
	ageAll(t, tbl.Metadata.Location, time.Now().Add(-4*24*time.Hour))
	before := filesOnDisk(t, tbl.Metadata.Location)
	if _, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{}); err == nil {
		t.Fatal("removed orphans with a manifest unread")
	}
	if got := filesOnDisk(t, tbl.Metadata.Location); !slices.Equal(got, before) {
		t.Fatal("files were deleted")
	}
}
