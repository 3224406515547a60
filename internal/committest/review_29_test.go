package committest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
)

// A v1 table in the legacy form whose snapshots list their manifests
// inline ("manifests", no manifest list): each snapshot's changelog holds
// the rows it appended, not those of every earlier append again (every
// inline manifest counts as the snapshot's own, so its entries must be
// told by their snapshot id).
func TestReview29ChangelogOfInlineManifests(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "tbl")
	tbl, err := table.Create(ctx, nil, loc, testtable.Schema(), nil, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w := writeData(t, *tbl.Metadata.DefaultSpec(), rowsIn(uint64(i), int64(10*i), 4), 10)
		if _, err := tbl.Commit(ctx, w.files, nil, table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		if tbl, err = table.Open(ctx, loc, table.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	// Rewrite the current metadata with inline manifests.
	raw, err := os.ReadFile(tbl.MetadataLocation)
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // snapshot ids keep every digit
	if err := dec.Decode(&md); err != nil {
		t.Fatal(err)
	}
	for _, s := range md["snapshots"].([]any) {
		snap := s.(map[string]any)
		data, err := os.ReadFile(strings.TrimPrefix(snap["manifest-list"].(string), "file://"))
		if err != nil {
			t.Fatal(err)
		}
		list, err := manifest.ReadManifestList(data, 1)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, mf := range list {
			paths = append(paths, mf.Path)
		}
		delete(snap, "manifest-list")
		snap["manifests"] = paths
	}
	out, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	inline := filepath.Join(filepath.Dir(tbl.MetadataLocation), "v99.metadata.json")
	if err := os.WriteFile(inline, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if tbl, err = table.Open(ctx, inline, table.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(fullRows(t, tbl, &tbl.Metadata.CurrentSnapshot().SnapshotID)); n != 12 {
		t.Fatalf("the inline table scans %d rows, want 12", n)
	}
	rows := changelogRows(t, tbl, scan.Options{})
	perSnapshot := map[int64]int{}
	for _, r := range rows {
		if r.change != scan.ChangeInsert {
			t.Errorf("%s: %s", r.row, r.change)
		}
		perSnapshot[r.snapshot]++
	}
	if len(rows) != 12 || len(perSnapshot) != 3 {
		t.Fatalf("changelog of three 4-row appends: %d rows over snapshots %v", len(rows), perSnapshot)
	}
}

// A snapshot that removes a delete file and leaves its data file (Java's
// RowDelta.removeDeletes, or a Commit naming the delete file) brings the
// rows it deleted back: the changelog reports them as inserts, as the
// difference of full scans has them.
func TestReview29ChangelogOfAWithdrawnDelete(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "tbl")
	tbl, err := table.Create(ctx, nil, loc, testtable.Schema(), nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	w := writeData(t, *tbl.Metadata.DefaultSpec(), rowsIn(1, 0, 4), 10)
	if _, err := tbl.Commit(ctx, w.files, nil, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if tbl, err = table.Open(ctx, loc, table.Options{}); err != nil {
		t.Fatal(err)
	}
	delPath := filepath.Join(t.TempDir(), "del.parquet")
	del, err := WritePositionDeletes(delPath, 0, []any{}, []Position{{Path: w.files[0].FilePath, Pos: 1}, {Path: w.files[0].FilePath, Pos: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{del}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if tbl, err = table.Open(ctx, loc, table.Options{}); err != nil {
		t.Fatal(err)
	}
	before := tbl.Metadata.CurrentSnapshot().SnapshotID
	if _, err := tbl.Commit(ctx, nil, []string{del.FilePath}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if tbl, err = table.Open(ctx, loc, table.Options{}); err != nil {
		t.Fatal(err)
	}
	after := tbl.Metadata.CurrentSnapshot().SnapshotID
	wantIns := minus(fullRows(t, tbl, &after), fullRows(t, tbl, &before))
	if len(wantIns) != 2 {
		t.Fatalf("the withdrawn delete brings back %d rows, want 2", len(wantIns))
	}
	var ins, del2 []string
	for _, r := range changelogRows(t, tbl, scan.Options{FromSnapshotID: &before}) {
		if r.change == scan.ChangeInsert {
			ins = append(ins, r.row)
		} else {
			del2 = append(del2, r.row)
		}
	}
	slices.Sort(ins)
	if !slices.Equal(ins, wantIns) || len(del2) != 0 {
		t.Fatalf("changelog inserted %v deleted %v; want inserted %v", ins, del2, wantIns)
	}
}

// A changelog from a snapshot that was expired (its child names it as
// parent) reports the snapshots after it: with the first of three appends
// and a position delete expired, the changes of the others, in order.
func TestReview29ChangelogFromAnExpiredSnapshot(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "tbl")
	tbl, err := table.Create(ctx, nil, loc, testtable.Schema(), nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []int64
	var first manifest.DataFile
	for i := range 3 {
		w := writeData(t, *tbl.Metadata.DefaultSpec(), rowsIn(uint64(i), int64(10*i), 4), 10)
		if i == 0 {
			first = w.files[0]
		}
		r, err := tbl.Commit(ctx, w.files, nil, table.CommitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, r.SnapshotID)
		if tbl, err = table.Open(ctx, loc, table.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	del, err := WritePositionDeletes(filepath.Join(t.TempDir(), "del.parquet"), 0, []any{}, []Position{{Path: first.FilePath, Pos: 0}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{del}, table.CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snaps = append(snaps, r.SnapshotID)
	if tbl, err = table.Open(ctx, loc, table.Options{}); err != nil {
		t.Fatal(err)
	}
	wantIns := minus(fullRows(t, tbl, &snaps[2]), fullRows(t, tbl, &snaps[0]))
	wantDel := minus(fullRows(t, tbl, &snaps[0]), fullRows(t, tbl, &snaps[3]))
	now := int64(1) << 62
	keep := 3
	if _, err := tbl.ExpireSnapshots(ctx, &now, &keep, table.ExpireOptions{KeepFiles: true}); err != nil {
		t.Fatal(err)
	}
	if tbl, err = table.Open(ctx, loc, table.Options{}); err != nil {
		t.Fatal(err)
	}
	if tbl.Metadata.SnapshotByID(snaps[0]) != nil {
		t.Fatal("the first snapshot was not expired")
	}
	var ins, dels []string
	ords := map[int64]int32{}
	for _, c := range changelogRows(t, tbl, scan.Options{FromSnapshotID: &snaps[0]}) {
		ords[c.snapshot] = c.ordinal
		if c.change == scan.ChangeInsert {
			ins = append(ins, c.row)
		} else {
			dels = append(dels, c.row)
		}
	}
	slices.Sort(ins)
	slices.Sort(dels)
	if !slices.Equal(ins, wantIns) || !slices.Equal(dels, wantDel) {
		t.Fatalf("inserted %d deleted %d; want %d and %d", len(ins), len(dels), len(wantIns), len(wantDel))
	}
	if ords[snaps[1]] != 0 || ords[snaps[2]] != 1 || ords[snaps[3]] != 2 {
		t.Fatalf("ordinals %v", ords)
	}
}
