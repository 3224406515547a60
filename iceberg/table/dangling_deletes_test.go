package table

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/committest"
	"github.com/floedb/floe/internal/testtable"
)

// byPartition groups data files by their identity(i) partition value.
func byPartition(files []manifest.DataFile) map[int32][]manifest.DataFile {
	out := map[int32][]manifest.DataFile{}
	for _, f := range files {
		p := f.Partition[0].(int32)
		out[p] = append(out[p], f)
	}
	return out
}

func removedPaths(res DanglingDeletesResult) []string {
	var out []string
	for _, df := range res.Removed {
		out = append(out, df.FilePath)
	}
	sort.Strings(out)
	return out
}

func TestRemoveDanglingDeletesV2(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	parts := byPartition(writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 60, 0, 1, 2), 10))
	var all []manifest.DataFile
	for _, p := range []int32{0, 1, 2} {
		all = append(all, parts[p]...)
	}
	if _, err := tbl.Append(ctx, all, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	delta := func(data []manifest.DataFile, deletes ...manifest.DataFile) {
		t.Helper()
		if _, err := tbl.RowDelta(ctx, data, deletes, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pos := func(name string, partition int32, ps ...committest.Position) manifest.DataFile {
		t.Helper()
		df, err := committest.WritePositionDeletes(filepath.Join(dir, name), 0, []any{partition}, ps)
		if err != nil {
			t.Fatal(err)
		}
		return df
	}
	eq := func(name string, partition int32, ids ...int64) manifest.DataFile {
		t.Helper()
		df, err := committest.WriteEqualityDeletes(filepath.Join(dir, name), 0, []any{partition}, testtable.IDID, "id", ids)
		if err != nil {
			t.Fatal(err)
		}
		return df
	}
	// Partition 0: a file-scoped position delete of a file later removed
	// (the partition keeps an older file: only the reference rule finds it).
	posGone := pos("pos-p0.parquet", 0, committest.Position{Path: parts[0][0].FilePath, Pos: 1})
	delta(nil, posGone)
	// Partition 1: an equality delete older than every file left there.
	eqOld := eq("eq-p1.parquet", 1, 1, 4)
	delta(nil, eqOld)
	// Partition 2: an equality delete that still applies.
	eqLive := eq("eq-p2.parquet", 2, 2, 5)
	delta(nil, eqLive)
	// Partition 1 again: a position delete over both files (no single
	// referenced file), older than every file left there.
	posOld := pos("pos-p1.parquet", 1, committest.Position{Path: parts[1][0].FilePath, Pos: 0}, committest.Position{Path: parts[1][1].FilePath, Pos: 0})
	delta(nil, posOld)
	// Partition 9 holds no data at all.
	eqEmpty := eq("eq-p9.parquet", 9, 7)
	delta(nil, eqEmpty)
	// Partition 5: data and an equality delete in one commit (same
	// sequence number: it applies to nothing), and a position delete of
	// that data in a later commit (it applies).
	fresh5 := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 1000, 10, 5), 10)
	eqSame := eq("eq-p5.parquet", 5, 1000)
	delta(fresh5, eqSame)
	posLive := pos("pos-p5.parquet", 5, committest.Position{Path: fresh5[0].FilePath, Pos: 2})
	delta(nil, posLive)

	if _, err := tbl.Commit(ctx, nil, []string{parts[0][0].FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	newer := writeFiles(t, t.TempDir(), byInt, rowsIn(3, 2000, 10, 1), 10)
	if _, err := tbl.Commit(ctx, newer, []string{parts[1][0].FilePath, parts[1][1].FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := planShape(t, tbl)
	stale := reopen(t, tbl)

	res, err := tbl.RemoveDanglingDeletes(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{posGone.FilePath, eqOld.FilePath, posOld.FilePath, eqEmpty.FilePath, eqSame.FilePath}
	sort.Strings(want)
	if got := removedPaths(res); !slices.Equal(got, want) {
		t.Fatalf("removed %v\nwant %v", got, want)
	}
	after := reopen(t, tbl)
	snap := after.Metadata.CurrentSnapshot()
	if snap.SnapshotID != res.SnapshotID || snap.Summary["operation"] != OpReplace ||
		summaryInt(t, snap.Summary, "removed-delete-files") != 5 || summaryInt(t, snap.Summary, "total-delete-files") != 2 {
		t.Fatalf("snapshot %d: %v", snap.SnapshotID, snap.Summary)
	}
	// What a read applies is unchanged: the removed files applied to
	// nothing, the kept ones still apply.
	if got := planShape(t, after); !slices.Equal(got, before) {
		t.Fatalf("plan changed:\n%v\nwas\n%v", got, before)
	}
	plan, err := after.PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, d := range plan.DeleteFiles {
		kept = append(kept, d.File.FilePath)
	}
	sort.Strings(kept)
	if wantKept := []string{eqLive.FilePath, posLive.FilePath}; !slices.Equal(kept, sorted(wantKept)) {
		t.Fatalf("delete files left %v", kept)
	}
	// Nothing left dangling: no commit.
	if again, err := after.RemoveDanglingDeletes(ctx, CommitOptions{}); err != nil || len(again.Removed) != 0 || again.SnapshotID != 0 {
		t.Fatalf("second run: %+v, %v", again, err)
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != len(after.Metadata.Snapshots) {
		t.Fatal("a run with nothing dangling committed")
	}
	// A handle planned before the removal finds its files gone: a
	// conflict, nothing committed.
	if _, err := stale.RemoveDanglingDeletes(ctx, CommitOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale run: %v", err)
	}
	checkNoOrphans(t, tbl)
}

// removeKeepingVectors commits the removal of a data file leaving its
// deletion vectors live, as an engine that does not follow the v3 rule
// would: the way a dangling vector comes about.
func removeKeepingVectors(t *testing.T, tbl *Table, path string) {
	t.Helper()
	u := &snapshotUpdate{what: "remove keeping vectors", operation: func(*removal) string { return OpDelete }}
	u.manifests = func(ctx context.Context, p *snapshotProducer, b *commitBase) ([]manifest.ManifestFile, map[string]string, error) {
		list, err := b.headManifests(ctx)
		if err != nil {
			return nil, nil, err
		}
		if _, err := b.readEntries(ctx, nil); err != nil {
			return nil, nil, err
		}
		var out []manifest.ManifestFile
		for i, mf := range list {
			if !slices.ContainsFunc(b.entries[i], func(e manifest.Entry) bool { return e.DataFile.FilePath == path }) {
				out = append(out, mf)
				continue
			}
			var es []manifest.Entry
			for _, e := range b.entries[i] {
				switch {
				case e.Status == manifest.StatusDeleted:
					continue
				case e.DataFile.FilePath == path:
					e.Status, e.SnapshotID = manifest.StatusDeleted, p.snapshotID
				default:
					e.Status = manifest.StatusExisting
				}
				es = append(es, e)
			}
			nmf, err := p.writeManifest(ctx, b.t, mf.PartitionSpecID, mf.Content, es)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, nmf)
		}
		return out, nil, nil
	}
	if _, err := tbl.commitSnapshot(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

func TestRemoveDanglingDeletesV3(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 3, &byInt, nil)
	parts := byPartition(writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 40, 0, 1), 10))
	if _, err := tbl.Append(ctx, append(slices.Clone(parts[0]), parts[1]...), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var dvs []manifest.DataFile
	for k, f := range []manifest.DataFile{parts[0][0], parts[0][1], parts[1][0]} {
		dv, err := committest.WriteDeletionVector(filepath.Join(dir, fmt.Sprintf("dv%d.puffin", k)), f, []int64{1, 3})
		if err != nil {
			t.Fatal(err)
		}
		dvs = append(dvs, dv)
	}
	if _, err := tbl.RowDelta(ctx, nil, dvs, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	eqOld, err := committest.WriteEqualityDeletes(filepath.Join(dir, "eq-p1.parquet"), 0, []any{int32(1)}, testtable.IDID, "id", []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{eqOld}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// parts[0][0] goes, its vector stays behind.
	removeKeepingVectors(t, tbl, parts[0][0].FilePath)
	// Partition 1 is rewritten: its vector goes with its file (the v3
	// rule), the equality delete is left older than every file there.
	newer := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 1000, 10, 1), 10)
	if _, err := tbl.Commit(ctx, newer, pathsOf(parts[1]), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := planShape(t, tbl)
	res, err := tbl.RemoveDanglingDeletes(ctx, CommitOptions{Token: "dangling-1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := removedPaths(res), sorted([]string{dvs[0].FilePath, eqOld.FilePath}); !slices.Equal(got, want) {
		t.Fatalf("removed %v, want %v", got, want)
	}
	after := reopen(t, tbl)
	if got := planShape(t, after); !slices.Equal(got, before) {
		t.Fatalf("plan changed:\n%v\nwas\n%v", got, before)
	}
	plan, err := after.PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.DeleteFiles) != 1 || plan.DeleteFiles[0].File.FilePath != dvs[1].FilePath {
		t.Fatalf("delete files left %v", plan.DeleteFiles)
	}
	// A retry with the token commits nothing more.
	n := len(after.Metadata.Snapshots)
	again, err := reopen(t, tbl).RemoveDanglingDeletes(ctx, CommitOptions{Token: "dangling-1"})
	if err != nil || len(reopen(t, tbl).Metadata.Snapshots) != n {
		t.Fatalf("retry: %+v, %v", again, err)
	}
}

// An equality delete written under the unpartitioned spec applies in
// every partition of a later spec: it is not dangling while an older data
// file of any spec is live, though no file of its own spec is (Java's
// per-spec rule would drop it and bring the deleted row back).
func TestRemoveDanglingDeletesKeepsAGlobalEqualityDelete(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10)
	if _, err := tbl.Append(ctx, a, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).AddField("i", iceberg.IdentityTransform{}, "")); err != nil {
		t.Fatal(err)
	}
	spec := *tbl.Metadata.DefaultSpec()
	b := writeFiles(t, t.TempDir(), spec, rowsIn(2, 100, 10, 7), 10)
	if _, err := tbl.Append(ctx, b, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	eq, err := committest.WriteEqualityDeletes(filepath.Join(t.TempDir(), "eq.parquet"), 0, []any{}, testtable.IDID, "id", []int64{100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{eq}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Commit(ctx, nil, pathsOf(a), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := planShape(t, tbl)
	if !strings.Contains(strings.Join(before, "\n"), eq.FilePath) {
		t.Fatalf("the equality delete applies to nothing before: %v", before)
	}
	res, err := tbl.RemoveDanglingDeletes(ctx, CommitOptions{})
	if err != nil || len(res.Removed) != 0 {
		t.Fatalf("removed %v, %v", removedPaths(res), err)
	}
	// Once the older file of the later spec is gone too, it goes.
	if _, err := tbl.Commit(ctx, nil, pathsOf(b), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = tbl.RemoveDanglingDeletes(ctx, CommitOptions{})
	if err != nil || !slices.Equal(removedPaths(res), []string{eq.FilePath}) {
		t.Fatalf("removed %v, %v", removedPaths(res), err)
	}
}
