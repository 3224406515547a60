package table

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/testtable"
)

// byInt is testtable's schema partitioned by identity on column i.
var byInt = iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
	{SourceID: testtable.IDInt, FieldID: 1000, Name: "i", Transform: iceberg.IdentityTransform{}},
}}

// rowsIn gives n rows with ids from first on whose column i cycles through
// parts, so they land in those identity(i) partitions.
func rowsIn(seed uint64, first int64, n int, parts ...int32) [][]any {
	rows := rowsWithIDs(seed, first, n)
	for k := range rows {
		rows[k][testtable.IDInt-1] = parts[k%len(parts)]
	}
	return rows
}

func partitionsOf(t *testing.T, tbl *Table) map[int32][]string {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32][]string{}
	for _, task := range plan.Tasks {
		p := task.File.Partition[0].(int32)
		out[p] = append(out[p], task.File.FilePath)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// checkNoOrphans asserts that every Avro file in the metadata directory is
// a manifest list or manifest of some snapshot: failed and superseded
// attempts cleaned up after themselves.
func checkNoOrphans(t *testing.T, tbl *Table) {
	t.Helper()
	fresh := reopen(t, tbl)
	referenced := map[string]bool{}
	for i := range fresh.Metadata.Snapshots {
		s := &fresh.Metadata.Snapshots[i]
		referenced[s.ManifestList] = true
		list, err := fresh.manifestsOf(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range list {
			referenced[mf.Path] = true
		}
	}
	dir := filepath.Join(fresh.Metadata.Location, "metadata")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if strings.HasSuffix(e.Name(), ".avro") && !referenced[p] {
			t.Errorf("orphan %s", e.Name())
		}
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestCommitRemovesAndAdds(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 30), 10)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 5), 10)
	if _, err := tbl.Append(ctx, a, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	id, err := snapshotIDOf(tbl.Commit(ctx, b, []string{a[0].FilePath}, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	want := pathsOf(append(slices.Clone(a[1:]), b...))
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, want) {
		t.Fatalf("live %v, want %v", got, want)
	}
	s := tbl.Metadata.SnapshotByID(id).Summary
	if s["operation"] != OpOverwrite || summaryInt(t, s, "deleted-data-files") != 1 ||
		summaryInt(t, s, "deleted-records") != a[0].RecordCount || summaryInt(t, s, "total-records") != 35-a[0].RecordCount {
		t.Fatalf("summary %v", s)
	}

	// The file is gone now: removing it again commits nothing.
	before := len(reopen(t, tbl).Metadata.Snapshots)
	_, err = tbl.Commit(ctx, nil, []string{a[0].FilePath}, CommitOptions{})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), a[0].FilePath) {
		t.Fatalf("removing a removed file: %v", err)
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != before {
		t.Fatalf("%d snapshots after a refused commit, want %d", n, before)
	}

	// Only removing gives a delete.
	id, err = snapshotIDOf(tbl.Commit(ctx, nil, []string{a[1].FilePath}, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if op := tbl.Metadata.SnapshotByID(id).Summary["operation"]; op != OpDelete {
		t.Fatalf("operation %q", op)
	}
	checkNoOrphans(t, tbl)
}

func TestCommitRemovalRacesAnotherRemoval(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	x := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 5), 10)
	if _, err := tbl.Append(ctx, a, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	first, second := reopen(t, tbl), reopen(t, tbl)
	if _, err := first.Commit(ctx, nil, []string{a[0].FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// second still holds the version before: it loses the race, refreshes
	// and finds the file gone.
	_, err := second.Commit(ctx, x, []string{a[0].FilePath}, CommitOptions{})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("second removal: %v", err)
	}
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, pathsOf(a[1:])) {
		t.Fatalf("live %v", got)
	}
	checkNoOrphans(t, tbl)
}

func TestTokenMakesCommitsIdempotent(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	stale := reopen(t, tbl)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	opts := CommitOptions{Token: "run-7/step-3", Properties: map[string]string{"pipeline": "nightly", "step": "3"}}
	first, err := tbl.Append(ctx, files, opts)
	if err != nil || first.TokenFound {
		t.Fatalf("first commit: %+v, %v", first, err)
	}
	id := first.SnapshotID
	s := tbl.Metadata.CurrentSnapshot().Summary
	if s[SummaryToken] != opts.Token || s["pipeline"] != "nightly" || s["step"] != "3" {
		t.Fatalf("summary %v", s)
	}
	// The same handle, and a handle opened before the commit (as a killed
	// step's retry that had opened the table earlier would be).
	for name, h := range map[string]*Table{"same": tbl, "stale": stale, "fresh": reopen(t, tbl)} {
		again, err := h.Append(ctx, files, opts)
		if err != nil || again != (CommitResult{SnapshotID: id, TokenFound: true}) {
			t.Fatalf("%s handle: retry gave %+v, %v; want snapshot %d with its token found", name, again, err, id)
		}
	}
	fresh := reopen(t, tbl)
	if len(fresh.Metadata.Snapshots) != 1 || !slices.Equal(livePaths(t, fresh), pathsOf(files)) {
		t.Fatalf("%d snapshots, files %v", len(fresh.Metadata.Snapshots), livePaths(t, fresh))
	}
	// A different token commits.
	if _, err := tbl.Append(ctx, nil, CommitOptions{Token: "run-7/step-4"}); err != nil {
		t.Fatal(err)
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != 2 {
		t.Fatalf("%d snapshots", n)
	}
	if _, err := tbl.Append(ctx, nil, CommitOptions{Properties: map[string]string{"total-records": "1"}}); err == nil {
		t.Fatal("a property replaced a standard summary entry")
	}
	checkNoOrphans(t, tbl)
}

func TestReplacePartitions(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	old := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 60, 1, 2, 3), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := partitionsOf(t, tbl)
	repl := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 1000, 7, 2), 100)
	id, err := snapshotIDOf(tbl.ReplacePartitions(ctx, repl, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	after := partitionsOf(t, reopen(t, tbl))
	if !slices.Equal(after[1], before[1]) || !slices.Equal(after[3], before[3]) || !slices.Equal(after[2], pathsOf(repl)) {
		t.Fatalf("partitions before %v, after %v", before, after)
	}
	s := tbl.Metadata.SnapshotByID(id).Summary
	if s["replace-partitions"] != "true" || s["operation"] != OpOverwrite ||
		summaryInt(t, s, "deleted-data-files") != int64(len(before[2])) || summaryInt(t, s, "deleted-records") != 20 ||
		summaryInt(t, s, "added-records") != 7 || summaryInt(t, s, "total-records") != 47 {
		t.Fatalf("summary %v", s)
	}
	checkNoOrphans(t, tbl)
}

func TestReplacePartitionsUnpartitionedReplacesEverything(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	old := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 30), 10)
	repl := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 5), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.ReplacePartitions(ctx, repl, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, pathsOf(repl)) {
		t.Fatalf("live %v", got)
	}
}

func TestConcurrentReplaceOfOnePartition(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	old := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 30, 1, 2), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	writerA, writerB, writerC := reopen(t, tbl), reopen(t, tbl), reopen(t, tbl)
	filesA := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 100, 5, 1), 10)
	filesB := writeFiles(t, t.TempDir(), byInt, rowsIn(3, 200, 5, 1), 10)
	filesC := writeFiles(t, t.TempDir(), byInt, rowsIn(4, 300, 5, 2), 10)
	if _, err := writerA.ReplacePartitions(ctx, filesA, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// B planned on the same version and replaces the same partition.
	if _, err := writerB.ReplacePartitions(ctx, filesB, CommitOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("second replace of partition i=1: %v", err)
	}
	// C replaces another partition: it is rebuilt on A's commit.
	if _, err := writerC.ReplacePartitions(ctx, filesC, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	got := partitionsOf(t, reopen(t, tbl))
	if !slices.Equal(got[1], pathsOf(filesA)) || !slices.Equal(got[2], pathsOf(filesC)) {
		t.Fatalf("partitions %v", got)
	}
	checkNoOrphans(t, tbl)
}

func TestReplacePartitionsWithinARun(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	old := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 40, 1, 2), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := partitionsOf(t, tbl)
	run := CommitOptions{RunID: "run-42"}

	step1 := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 100, 4, 1), 10)
	if _, err := tbl.ReplacePartitions(ctx, step1, run); err != nil {
		t.Fatal(err)
	}
	// The run's second commit to partition 1 appends; its first to
	// partition 2 replaces.
	step2 := writeFiles(t, t.TempDir(), byInt, rowsIn(3, 200, 6, 1, 2), 10)
	if _, err := tbl.ReplacePartitions(ctx, step2, run); err != nil {
		t.Fatal(err)
	}
	got := partitionsOf(t, reopen(t, tbl))
	var step2In1, step2In2 []manifest.DataFile
	for _, df := range step2 {
		if df.Partition[0] == int32(1) {
			step2In1 = append(step2In1, df)
		} else {
			step2In2 = append(step2In2, df)
		}
	}
	if want := pathsOf(append(slices.Clone(step1), step2In1...)); !slices.Equal(got[1], want) {
		t.Fatalf("partition 1: %v, want %v", got[1], want)
	}
	if want := pathsOf(step2In2); !slices.Equal(got[2], want) {
		t.Fatalf("partition 2: %v, want %v (before: %v)", got[2], want, before[2])
	}

	// Another run replaces partition 1 ...
	other := writeFiles(t, t.TempDir(), byInt, rowsIn(4, 300, 3, 1), 10)
	if _, err := reopen(t, tbl).ReplacePartitions(ctx, other, CommitOptions{RunID: "run-43"}); err != nil {
		t.Fatal(err)
	}
	// ... so run-42 writing it again would mix two runs' rows: refused.
	step3 := writeFiles(t, t.TempDir(), byInt, rowsIn(5, 400, 2, 1), 10)
	if _, err := tbl.ReplacePartitions(ctx, step3, run); !errors.Is(err, ErrConflict) {
		t.Fatalf("run-42 after run-43 replaced its partition: %v", err)
	}
	got = partitionsOf(t, reopen(t, tbl))
	if !slices.Equal(got[1], pathsOf(other)) {
		t.Fatalf("partition 1: %v, want run-43's %v", got[1], pathsOf(other))
	}
	checkNoOrphans(t, tbl)
}

func TestOverwriteByFilter(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	// Files hold id ranges [0,10), [10,20), … within partitions 1 and 2.
	old := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 40, 1, 2), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := reopen(t, tbl)
	newRows := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 1000, 4, 1), 10)

	// By partition: i = 1 selects whole files.
	pred, _ := expr.NewPredicate(expr.OpEq, "i", int64(1))
	id, err := snapshotIDOf(tbl.Overwrite(ctx, pred, newRows, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	before := partitionsOf(t, stale)
	got := partitionsOf(t, reopen(t, tbl))
	if !slices.Equal(got[1], pathsOf(newRows)) || !slices.Equal(got[2], before[2]) {
		t.Fatalf("partitions %v", got)
	}
	if s := tbl.Metadata.SnapshotByID(id).Summary; s["operation"] != OpOverwrite || summaryInt(t, s, "deleted-records") != 20 {
		t.Fatalf("summary %v", s)
	}

	// The stale handle planned on the version before: that commit changed
	// partition 1, so an overwrite of i = 1 from it conflicts...
	if _, err := stale.Overwrite(ctx, pred, nil, CommitOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("overwrite planned on an old version: %v", err)
	}

	// By metrics: the lowest ids of partition 2 sit in files whose bounds
	// prove every id is below the limit.
	p2 := partitionsOf(t, tbl)[2]
	var limit int64
	var whole []string
	plan, _ := tbl.PlanFiles(ctx, SnapshotSelector{})
	for _, task := range plan.Tasks {
		if task.File.Partition[0] == int32(2) {
			hi, _ := iceberg.ValueFromBytes(iceberg.LongType{}, task.File.Metrics.Maps().UpperBounds[testtable.IDID])
			if len(whole) == 0 || hi.(int64) < limit {
				limit, whole = hi.(int64)+1, []string{task.File.FilePath}
			}
		}
	}
	below, _ := expr.NewPredicate(expr.OpLt, "id", limit)
	if _, err := tbl.Overwrite(ctx, expr.NewAnd(below, mustPred(t, expr.OpEq, "i", int64(2))), nil, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	got = partitionsOf(t, reopen(t, tbl))
	if want := slices.DeleteFunc(slices.Clone(p2), func(p string) bool { return p == whole[0] }); !slices.Equal(got[2], want) {
		t.Fatalf("partition 2 after overwrite of id < %d: %v, want %v", limit, got[2], want)
	}
	if op := tbl.Metadata.CurrentSnapshot().Summary["operation"]; op != OpDelete {
		t.Fatalf("operation %q", op)
	}

	// A filter that splits a file is refused.
	split, _ := expr.NewPredicate(expr.OpLt, "id", limit+3)
	if _, err := tbl.Overwrite(ctx, split, nil, CommitOptions{}); err == nil || !strings.Contains(err.Error(), "whole files") {
		t.Fatalf("overwrite splitting a file: %v", err)
	}
	checkNoOrphans(t, tbl)
}

func mustPred(t *testing.T, op expr.Op, col string, v ...any) expr.Expr {
	t.Helper()
	p, err := expr.NewPredicate(op, col, v...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSetProperties(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, map[string]string{"a": "1", "b": "2"})
	stale := reopen(t, tbl)
	if err := tbl.SetProperties(ctx, map[string]string{"c": "3", "a": "10"}, []string{"b", "missing"}); err != nil {
		t.Fatal(err)
	}
	// A stale handle's change is rebuilt on the newer version.
	if err := stale.SetProperties(ctx, map[string]string{"d": "4"}, nil); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	want := map[string]string{"a": "10", "c": "3", "d": "4"}
	if len(fresh.Metadata.Properties) != len(want) {
		t.Fatalf("properties %v, want %v", fresh.Metadata.Properties, want)
	}
	for k, v := range want {
		if fresh.Metadata.Properties[k] != v {
			t.Fatalf("properties %v, want %v", fresh.Metadata.Properties, want)
		}
	}
	if !strings.HasSuffix(fresh.MetadataLocation, "v3.metadata.json") || len(fresh.Metadata.Snapshots) != 0 {
		t.Fatalf("at %s with %d snapshots", fresh.MetadataLocation, len(fresh.Metadata.Snapshots))
	}
	// Nothing to change: no new version.
	if err := fresh.SetProperties(ctx, map[string]string{"a": "10"}, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	if got := reopen(t, tbl).MetadataLocation; got != fresh.MetadataLocation {
		t.Fatalf("a no-op committed %s", got)
	}
	if err := tbl.SetProperties(ctx, map[string]string{"format-version": "3"}, nil); err == nil {
		t.Fatal("a reserved property was set")
	}
}

func TestMetadataCleanupAfterCommit(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, map[string]string{
		PropMetadataDeleteAfterCommit: "true", PropMetadataPreviousVersions: "2",
	})
	for range 5 {
		if _, err := tbl.Append(ctx, nil, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(tbl.Metadata.Location, "metadata")
	var versions []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".metadata.json") {
			versions = append(versions, e.Name())
		}
	}
	slices.Sort(versions)
	if want := []string{"v4.metadata.json", "v5.metadata.json", "v6.metadata.json"}; !slices.Equal(versions, want) {
		t.Fatalf("metadata files %v, want %v", versions, want)
	}
	log := reopen(t, tbl).Metadata.MetadataLog
	if len(log) != 2 || !strings.HasSuffix(log[0].MetadataFile, "v4.metadata.json") || !strings.HasSuffix(log[1].MetadataFile, "v5.metadata.json") {
		t.Fatalf("metadata log %v", log)
	}
}

func TestCommitToABranch(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 10)
	mainID, err := snapshotIDOf(tbl.Append(ctx, a, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	devID, err := snapshotIDOf(tbl.Append(ctx, b, CommitOptions{Branch: "dev"}))
	if err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	md := fresh.Metadata
	if *md.CurrentSnapshotID != mainID || md.Refs["dev"].SnapshotID != devID || *md.SnapshotByID(devID).ParentSnapshotID != mainID {
		t.Fatalf("main %d, dev %+v", *md.CurrentSnapshotID, md.Refs["dev"])
	}
	if len(md.SnapshotLog) != 1 {
		t.Fatalf("a branch commit entered the snapshot log: %v", md.SnapshotLog)
	}
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(a)) {
		t.Fatalf("main has %v", got)
	}
	plan, err := fresh.PlanFiles(ctx, SnapshotSelector{Ref: "dev"})
	if err != nil || len(plan.Tasks) != len(a)+len(b) {
		t.Fatalf("dev plans %v, %v", plan, err)
	}
	// The next commit to dev builds on dev's head.
	id, err := snapshotIDOf(fresh.Commit(ctx, nil, []string{a[0].FilePath}, CommitOptions{Branch: "dev"}))
	if err != nil || *fresh.Metadata.SnapshotByID(id).ParentSnapshotID != devID {
		t.Fatalf("second dev commit: %v", err)
	}
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, pathsOf(a)) {
		t.Fatalf("main changed: %v", got)
	}
}
