package table

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/internal/fixtures"
)

// The branch form of write-audit-publish: write to an audit branch, read
// it there while main is unchanged, then fast-forward main to it
// (ManageSnapshots.FastForwardBranch). Once main has moved on, the
// fast-forward is refused and commits nothing; cherry-picking the audit
// branch's snapshot publishes it instead.
func TestWapThroughAnAuditBranch(t *testing.T) {
	ctx := context.Background()
	tbl, head, a := wapTable(t, nil)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
	audited, err := snapshotIDOf(tbl.Append(ctx, b, CommitOptions{Branch: "audit"}))
	if err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if *fresh.Metadata.CurrentSnapshotID != head || !slices.Equal(livePaths(t, fresh), pathsOf(a)) {
		t.Fatal("writing to the audit branch changed main")
	}
	plan, err := fresh.PlanFiles(ctx, SnapshotSelector{Ref: "audit"})
	if err != nil || plan.RecordCount() != 17 {
		t.Fatalf("audit reads %v rows: %v", plan, err)
	}
	if _, err := fresh.Apply(ctx, new(action.ManageSnapshots).FastForwardBranch(metadata.MainBranch, "audit")); err != nil {
		t.Fatal(err)
	}
	if md := reopen(t, tbl).Metadata; *md.CurrentSnapshotID != audited || !slices.Equal(livePaths(t, reopen(t, tbl)), sortedPaths(a, b)) {
		t.Fatalf("main at %d after the fast-forward, want %d", *md.CurrentSnapshotID, audited)
	}

	// A second audit, while main moves on.
	c := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 3), 3)
	d := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(4, 300, 2), 2)
	second, err := snapshotIDOf(fresh.Append(ctx, c, CommitOptions{Branch: "audit"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Append(ctx, d, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	versions := versionsOf(t, fresh)
	_, err = fresh.Apply(ctx, new(action.ManageSnapshots).FastForwardBranch(metadata.MainBranch, "audit"))
	if !errkindIs(err, errkind.InvalidArgument) || versionsOf(t, fresh) != versions {
		t.Fatalf("fast-forward of a main that moved on: %v", err)
	}
	res, err := fresh.CherryPick(ctx, second, CommitOptions{})
	if err != nil || res.FastForward {
		t.Fatalf("%+v, %v", res, err)
	}
	if got := livePaths(t, reopen(t, tbl)); !slices.Equal(got, sortedPaths(a, b, c, d)) {
		t.Fatalf("main reads %v", got)
	}
}

func errkindIs(err error, k errkind.Kind) bool { return err != nil && errkind.Of(err) == k }

// copyFixtureTable copies a fixture table into a scratch directory and
// opens its current metadata there, the location map pointed at the copy.
func copyFixtureTable(t *testing.T, name string) *Table {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "copy")
	err = filepath.WalkDir(fx.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fx.Dir, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(filepath.Join(dir, rel))
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	locations := map[string]string{}
	for prefix, target := range fx.LocationMap {
		locations[prefix] = strings.Replace(target, fx.Dir, dir, 1)
	}
	tbl, err := Open(context.Background(), strings.Replace(fx.Metadata, fx.Dir, dir, 1), Options{LocationMap: locations})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// Spark's v3 table with row lineage (three appends of one row each, then
// a compaction, "replace", into one file): a branch at the first append
// gets Spark's later appends by cherry-pick, newest first, each a new
// snapshot holding Spark's file, its rows given ids past the table's; the
// branch then reads main's rows. Picking an ancestor of main, the same
// snapshot twice, or the compaction onto a branch it is not a
// fast-forward of is refused. A delete staged on main (StageOnly) is
// published by a fast-forward.
func TestCherryPickSparkAppends(t *testing.T) {
	ctx := context.Background()
	tbl := copyFixtureTable(t, "impala_iceberg_v3_row_lineage")
	chain := tbl.Metadata.Ancestors(tbl.Metadata.CurrentSnapshot())
	if len(chain) != 4 || chain[0].Summary["operation"] != OpReplace {
		t.Fatalf("the fixture has %d snapshots on main", len(chain))
	}
	compaction, third, second, first := chain[0].SnapshotID, chain[1].SnapshotID, chain[2].SnapshotID, chain[3].SnapshotID
	if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).CreateBranch("b", first)); err != nil {
		t.Fatal(err)
	}
	refusedUnchanged(t, tbl, second, CommitOptions{}, ErrPublished)
	nextRowID := tbl.Metadata.NextRowID
	var picked []int64
	for _, src := range []int64{third, second} {
		res, err := tbl.CherryPick(ctx, src, CommitOptions{Branch: "b"})
		if err != nil {
			t.Fatal(err)
		}
		if res.FastForward {
			t.Fatalf("picking %d onto b fast-forwarded", src)
		}
		s := tbl.Metadata.SnapshotByID(res.SnapshotID)
		want := tbl.Metadata.SnapshotByID(src).Summary
		if s.Summary[SummarySourceSnapshotID] != strconv.FormatInt(src, 10) || s.Summary["added-records"] != want["added-records"] ||
			s.Summary["added-data-files"] != "1" || s.FirstRowID == nil || *s.FirstRowID != nextRowID {
			t.Fatalf("snapshot %d copying %d: %v (first row id %v, want %d)", res.SnapshotID, src, s.Summary, s.FirstRowID, nextRowID)
		}
		nextRowID += *s.AddedRows
		picked = append(picked, res.SnapshotID)
	}
	fresh := refreshedTable(t, tbl)
	if fresh.Metadata.NextRowID != nextRowID || fresh.Metadata.Refs["b"].SnapshotID != picked[1] {
		t.Fatalf("next row id %d, want %d; b at %d", fresh.Metadata.NextRowID, nextRowID, fresh.Metadata.Refs["b"].SnapshotID)
	}
	bPaths, bRows := planOf(t, fresh, picked[1])
	spark, _ := planOf(t, fresh, third)
	if !slices.Equal(bPaths, spark) || bRows != 3 {
		t.Fatalf("b reads %v (%d rows), Spark's third append %v", bPaths, bRows, spark)
	}
	if _, mainRows := planOf(t, fresh, compaction); mainRows != 3 {
		t.Fatalf("main reads %d rows", mainRows)
	}
	refusedUnchanged(t, fresh, third, CommitOptions{Branch: "b"}, ErrPublished)
	refusedUnchanged(t, fresh, compaction, CommitOptions{Branch: "b"}, errkind.InvalidArgument)

	mainPaths, _ := planOf(t, fresh, compaction)
	tx := fresh.Transaction()
	if err := tx.CommitFiles(nil, mainPaths, CommitOptions{StageOnly: true}); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if *fresh.Metadata.CurrentSnapshotID != compaction {
		t.Fatal("staging a delete moved main")
	}
	if pick, err := fresh.CherryPick(ctx, res.SnapshotIDs[0], CommitOptions{}); err != nil || !pick.FastForward {
		t.Fatalf("%+v, %v", pick, err)
	}
	if got, n := planOf(t, refreshedTable(t, tbl), *fresh.Metadata.CurrentSnapshotID); len(got) != 0 || n != 0 {
		t.Fatalf("main after the delete: %v (%d rows)", got, n)
	}
}

// Impala's copy of Spark's v3 table names its snapshots by ids rounded to
// a double's precision in metadata.json, while its manifests carry the
// real ones: a cherry-pick would find no file of the snapshot it copies.
// It is refused as corrupt, naming the count the summary promised,
// rather than committing an empty copy.
func TestCherryPickRefusesASnapshotWhoseFilesItCannotFind(t *testing.T) {
	ctx := context.Background()
	tbl := copyFixtureTable(t, "impala_test_default_part")
	chain := tbl.Metadata.Ancestors(tbl.Metadata.CurrentSnapshot())
	if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).CreateBranch("b", chain[2].SnapshotID)); err != nil {
		t.Fatal(err)
	}
	err := refusedUnchanged(t, tbl, chain[0].SnapshotID, CommitOptions{Branch: "b"}, errkind.Corrupt)
	if !containsAll(err.Error(), "added-data-files=1") {
		t.Errorf("the refusal does not name the summary's count: %v", err)
	}
}

// recordsOf is the record count of one file of a snapshot.
func recordsOf(t *testing.T, tbl *Table, id int64, path string) int64 {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{SnapshotID: &id})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range plan.Tasks {
		if task.File.FilePath == path {
			return task.File.RecordCount
		}
	}
	t.Fatalf("snapshot %d has no file %s", id, path)
	return 0
}

// refreshedTable reads the table's newest version from its metadata
// directory, as another process would, with the table's location map.
func refreshedTable(t *testing.T, tbl *Table) *Table {
	t.Helper()
	fresh, err := tbl.refreshed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}
