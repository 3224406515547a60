package maintain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// deleteCounts counts a plan's live delete files: Parquet position delete
// files, deletion vectors and equality delete files.
func deleteCounts(plan *table.Plan) (positions, vectors, equality int) {
	for _, d := range plan.DeleteFiles {
		switch {
		case d.IsDeletionVector():
			vectors++
		case d.File.Content == manifest.ContentEqualityDeletes:
			equality++
		default:
			positions++
		}
	}
	return
}

// checkSameRows: the rewrite kept the table's rows and committed a replace
// snapshot over which the changelog reports nothing.
func checkSameRows(t *testing.T, tbl *table.Table, before [][]any, start int64, res DeleteRewriteResult) {
	t.Helper()
	rowstest.CompareRows(t, "after the delete rewrite", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
	snap := reopen(t, tbl).Metadata.CurrentSnapshot()
	if snap.SnapshotID != res.SnapshotID || snap.Operation() != table.OpReplace {
		t.Fatalf("head %d (%q), result %+v", snap.SnapshotID, snap.Operation(), res)
	}
	if n := changelogRows(t, reopen(t, tbl), start, snap.SnapshotID); n != 0 {
		t.Fatalf("changelog over the delete rewrite: %d rows", n)
	}
}

// v2: many position delete files per partition merge into one each, the
// equality delete stays, and each merged file's data sequence number is
// the largest of those it replaced.
func TestRewritePositionDeletesV2(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	for _, ids := range [][]int64{{1, 2, 3}, {40, 41, 90}, {150, 151, 299}, {2, 4, 200}} {
		deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", ids[0], ids[1], ids[2]))
	}
	deleteByEquality(t, tbl, true, 5, 7, 9, 11)
	before := tableRows(t, tbl)
	plan := liveFiles(t, tbl)
	pos, _, eq := deleteCounts(plan)
	if pos < 6 || eq != 1 {
		t.Fatalf("setup: %d position delete files, %d equality", pos, eq)
	}
	maxSeq := map[string]int64{}
	perPartition := map[string]int{}
	for _, d := range plan.DeleteFiles {
		if d.File.Content == manifest.ContentPositionDeletes {
			k := fmt.Sprint(d.File.Partition)
			maxSeq[k] = max(maxSeq[k], d.DataSequenceNumber)
			perPartition[k]++
		}
	}
	merged := 0
	for _, n := range perPartition {
		if n > 1 {
			merged += n
		}
	}
	start := tbl.Metadata.CurrentSnapshot().SnapshotID

	res, err := RewritePositionDeletes(ctx, tbl, DeleteRewriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, tbl, before, start, res)
	after := liveFiles(t, tbl)
	posAfter, _, eqAfter := deleteCounts(after)
	if posAfter > len(maxSeq) || posAfter == 0 || eqAfter != 1 || len(res.RemovedDeleteFiles) != merged || merged < 4 {
		t.Fatalf("after: %d position delete files (partitions %d), %d equality; result %+v", posAfter, len(maxSeq), eqAfter, res)
	}
	for _, d := range after.DeleteFiles {
		if d.File.Content == manifest.ContentPositionDeletes && d.DataSequenceNumber != maxSeq[fmt.Sprint(d.File.Partition)] {
			t.Fatalf("%s: data sequence number %d, want %d", d.File.FilePath, d.DataSequenceNumber, maxSeq[fmt.Sprint(d.File.Partition)])
		}
	}
	// One file per partition left: nothing more to merge.
	again, err := RewritePositionDeletes(ctx, tbl, DeleteRewriteOptions{})
	if err != nil || again.SnapshotID != 0 {
		t.Fatalf("second run: %+v, %v", again, err)
	}
}

// v3: Parquet position delete files (a table upgraded from v2 has them)
// become deletion vectors, one per data file.
func TestRewritePositionDeletesV3ToVectors(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 200, 50)
	for _, ids := range [][]int64{{1, 2, 3}, {40, 41, 90}, {150, 151, 199}} {
		deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", ids[0], ids[1], ids[2]))
	}
	if _, err := tbl.Transaction().UpgradeFormatVersion(3).Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tbl = reopen(t, tbl)
	deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", int64(77), int64(120))) // vectors
	before := tableRows(t, tbl)
	plan := liveFiles(t, tbl)
	pos, vectors, _ := deleteCounts(plan)
	touched := 0
	for _, task := range plan.Tasks {
		for _, d := range task.Deletes {
			if !d.IsDeletionVector() {
				touched++
				break
			}
		}
	}
	if pos < 3 || vectors == 0 || touched == 0 {
		t.Fatalf("setup: %d position files, %d vectors, %d data files with position files", pos, vectors, touched)
	}
	start := tbl.Metadata.CurrentSnapshot().SnapshotID
	res, err := RewritePositionDeletes(ctx, tbl, DeleteRewriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, tbl, before, start, res)
	after := liveFiles(t, tbl)
	posAfter, vectorsAfter, _ := deleteCounts(after)
	if len(res.AddedDeleteFiles) != touched || vectorsAfter != vectors+touched {
		t.Fatalf("after: %d position files, %d vectors (before %d, %d files touched); %+v", posAfter, vectorsAfter, vectors, touched, res)
	}
	for _, task := range after.Tasks {
		if len(task.Deletes) > 1 || (len(task.Deletes) == 1 && !task.Deletes[0].IsDeletionVector()) {
			t.Fatalf("%s: %d deletes after", task.File.FilePath, len(task.Deletes))
		}
	}
}

// A delete file removed by another commit after the rewrite planned
// fails the rewrite with ErrConflict and changes nothing.
func TestRewritePositionDeletesConflict(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 200, 20)
	for _, ids := range [][]int64{{1, 2}, {40, 41}, {150, 151}} {
		deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", ids[0], ids[1]))
	}
	stale := reopen(t, tbl)
	if _, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{RewriteAll: true}); err != nil {
		t.Fatal(err)
	}
	head := reopen(t, tbl).Metadata.CurrentSnapshot().SnapshotID
	_, err := RewritePositionDeletes(ctx, stale, DeleteRewriteOptions{})
	if !errors.Is(err, table.ErrConflict) {
		t.Fatalf("want ErrConflict, got %v", err)
	}
	if got := reopen(t, tbl).Metadata.CurrentSnapshot().SnapshotID; got != head {
		t.Fatalf("head moved to %d", got)
	}
}

// Impala's position delete tables: afterwards each partition has at most
// one position delete file and the rows are Impala's (the first table has
// one per partition already, the second two in one partition).
func TestRewritePositionDeletesImpala(t *testing.T) {
	for _, name := range []string{"impala_iceberg_v2_partitioned_position_deletes", "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"} {
		t.Run(name, func(t *testing.T) {
			tbl := rowstest.CopyFixture(t, name)
			before := tableRows(t, tbl)
			pos, _, _ := deleteCounts(liveFiles(t, tbl))
			start := tbl.Metadata.CurrentSnapshot().SnapshotID
			res, err := RewritePositionDeletes(context.Background(), tbl, DeleteRewriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d position delete files before; %+v", pos, res)
			if res.SnapshotID != 0 {
				checkSameRows(t, tbl, before, start, res)
			} else {
				rowstest.CompareRows(t, "after nothing to rewrite", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
			}
			perPartition := map[string]int{}
			for _, d := range liveFiles(t, tbl).DeleteFiles {
				k := fmt.Sprint(d.File.SpecID, d.File.Partition)
				if perPartition[k]++; perPartition[k] > 1 {
					t.Fatalf("partition %s has two position delete files", k)
				}
			}
		})
	}
}

// A run retried with a committed token commits nothing and leaves no
// file behind.
func TestRewritePositionDeletesToken(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 100, 20)
	for _, ids := range [][]int64{{1, 2}, {40, 41}, {60, 99}} {
		deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", ids[0], ids[1]))
	}
	stale := reopen(t, tbl)
	opts := DeleteRewriteOptions{Token: "merge-1"}
	first, err := RewritePositionDeletes(ctx, tbl, opts)
	if err != nil || first.SnapshotID == 0 {
		t.Fatalf("first: %+v %v", first, err)
	}
	again, err := RewritePositionDeletes(ctx, stale, opts)
	if err != nil || !again.TokenFound || again.SnapshotID != first.SnapshotID {
		t.Fatalf("retried: %+v %v", again, err)
	}
	for _, f := range again.AddedDeleteFiles {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("retried run left %s: %v", f, err)
		}
	}
}

// A target below the merged files' bytes cuts a partition's positions
// into several files, a data file's positions in one.
func TestRewritePositionDeletesTargetSize(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	for _, ids := range [][]int64{{1, 2, 3}, {40, 41, 90}, {150, 151, 299}, {2, 4, 200}} {
		deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", ids[0], ids[1], ids[2]))
	}
	before := tableRows(t, tbl)
	start := tbl.Metadata.CurrentSnapshot().SnapshotID
	res, err := RewritePositionDeletes(ctx, tbl, DeleteRewriteOptions{TargetFileSizeBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, tbl, before, start, res)
	plan := liveFiles(t, tbl)
	merged := map[string]bool{}
	for _, f := range res.AddedDeleteFiles {
		merged[f] = true
	}
	withDeletes := 0
	for _, task := range plan.Tasks {
		n := 0
		for _, d := range task.Deletes {
			if merged[d.File.FilePath] {
				n++
			}
		}
		if n > 1 {
			t.Fatalf("%s: positions in %d merged files", task.File.FilePath, n)
		}
		withDeletes += n
	}
	if len(res.AddedDeleteFiles) < 4 || withDeletes != len(res.AddedDeleteFiles) {
		t.Fatalf("%d files added for %d data files; %+v", len(res.AddedDeleteFiles), withDeletes, res)
	}
}
