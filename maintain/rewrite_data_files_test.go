package maintain

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// A v2 table of many small files with position and equality deletes is
// compacted into one file per partition: the same rows, no delete file
// left, a "replace" snapshot a changelog reports nothing for.
func TestRewriteDataFilesV2WithDeletes(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 600, 20)
	deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(45)))
	deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", int64(100), int64(333), int64(598)))
	var trueIDs []int64
	for _, row := range tableRows(t, tbl) {
		if b, ok := row[10].(bool); ok && b && len(trueIDs) < 7 {
			trueIDs = append(trueIDs, row[0].(int64))
		}
	}
	deleteByEquality(t, tbl, true, trueIDs...)
	before := tableRows(t, tbl)
	beforePlan := liveFiles(t, tbl)
	if len(beforePlan.Tasks) < 60 || len(beforePlan.DeleteFiles) < 3 {
		t.Fatalf("setup: %d data files, %d delete files", len(beforePlan.Tasks), len(beforePlan.DeleteFiles))
	}
	start := tbl.Metadata.CurrentSnapshot().SnapshotID

	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 3 || len(res.SnapshotIDs) != 1 || res.RewrittenDataFiles != len(beforePlan.Tasks) || res.AddedDataFiles != 3 {
		t.Fatalf("result %+v", res)
	}
	if res.RemovedDeleteFiles != len(beforePlan.DeleteFiles) {
		t.Fatalf("removed %d delete files of %d", res.RemovedDeleteFiles, len(beforePlan.DeleteFiles))
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
	after := liveFiles(t, tbl)
	if len(after.Tasks) != 3 || len(after.DeleteFiles) != 0 {
		t.Fatalf("after: %d data files, %d delete files; want 3 and 0", len(after.Tasks), len(after.DeleteFiles))
	}
	snap := tbl.Metadata.CurrentSnapshot()
	if snap.Operation() != table.OpReplace || snap.SnapshotID != res.SnapshotIDs[0] {
		t.Fatalf("snapshot %d: operation %q", snap.SnapshotID, snap.Operation())
	}
	if n := changelogRows(t, tbl, start, snap.SnapshotID); n != 0 {
		t.Fatalf("changelog over the compaction: %d rows", n)
	}
	// Compacted files are at the target: nothing more to do.
	again, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, MinFileSizeBytes: 1})
	if err != nil || len(again.Groups) != 0 {
		t.Fatalf("second compaction: %+v, %v", again, err)
	}
}

// Files are written near the target size, and files already in range
// are left alone.
func TestRewriteDataFilesTargetSize(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 3000, 50)
	before := tableRows(t, tbl)
	var total int64
	for _, task := range liveFiles(t, tbl).Tasks {
		total += task.File.FileSizeInBytes
	}
	target := total / 40
	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: target, MinFileSizeBytes: target / 2})
	if err != nil {
		t.Fatal(err)
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
	after := liveFiles(t, tbl)
	var newTotal int64
	for _, task := range after.Tasks {
		newTotal += task.File.FileSizeInBytes
		if task.File.FileSizeInBytes > target*18/10 {
			t.Errorf("%s: %d bytes, target %d", task.File.FilePath, task.File.FileSizeInBytes, target)
		}
	}
	// Bigger files compress better: at most one file per target's worth
	// of the output plus one partly filled file per partition.
	if want := int(newTotal/target) + 3; len(after.Tasks) > want || len(after.Tasks) < int(newTotal/target) {
		t.Fatalf("%d files of %d bytes in all, target %d: want at most %d", len(after.Tasks), newTotal, target, want)
	}
	t.Logf("%d files -> %d files (%d -> %d bytes, target %d)", res.RewrittenDataFiles, len(after.Tasks), total, newTotal, target)
	// The written files are in range now: a second run finds no group.
	again, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: target, MinFileSizeBytes: target / 4})
	if err != nil || len(again.Groups) != 0 {
		t.Fatalf("second plan: %d groups, %v", len(again.Groups), err)
	}
}

// v3: deletion vectors and equality deletes are applied, the vectors go
// with their files, and every row keeps its _row_id and
// _last_updated_sequence_number.
func TestRewriteDataFilesV3KeepsRowLineage(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 3, 400, 20)
	deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(30)))
	deleteByEquality(t, tbl, false, 101, 202, 303)
	// An update gives some rows a newer _last_updated_sequence_number.
	if _, err := ops.DeleteRows(ctx, tbl, pred(t, expr.OpEq, "id", int64(399)), ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
		t.Fatal(err)
	}
	before := tableRows(t, tbl)
	lineage := lineageByID(t, tbl)
	start := tbl.Metadata.CurrentSnapshot().SnapshotID
	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.SnapshotIDs) != 1 {
		t.Fatalf("result %+v", res)
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
	got := lineageByID(t, tbl)
	if len(got) != len(lineage) {
		t.Fatalf("%d rows with lineage after, %d before", len(got), len(lineage))
	}
	for id, want := range lineage {
		if got[id] != want {
			t.Fatalf("row %d: lineage %v after compaction, %v before", id, got[id], want)
		}
	}
	after := liveFiles(t, tbl)
	if len(after.Tasks) != 3 || len(after.DeleteFiles) != 0 {
		t.Fatalf("after: %d data files, %d delete files", len(after.Tasks), len(after.DeleteFiles))
	}
	if n := changelogRows(t, tbl, start, res.SnapshotIDs[0]); n != 0 {
		t.Fatalf("changelog over the compaction: %d rows", n)
	}
}

// The distributed path: the plan and results go through JSON; another
// writer appends while the groups run (its rows survive) and deletes a
// row of one group's file by position (that group fails with a conflict,
// the table unchanged, while the other groups commit); a retried commit
// with its token commits nothing twice.
func TestRewriteDistributedWithConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	plan, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var shipped RewritePlan
	raw, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &shipped); err != nil {
		t.Fatal(err)
	}
	if len(shipped.Groups) != 3 {
		t.Fatalf("%d groups", len(shipped.Groups))
	}

	// Workers rewrite the groups from their JSON.
	worker := reopen(t, tbl)
	results := make([]GroupResult, len(shipped.Groups))
	for i, g := range shipped.Groups {
		r, err := RewriteGroup(ctx, worker, g)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &results[i]); err != nil {
			t.Fatal(err)
		}
	}

	// Meanwhile another writer appends, and deletes a row of group 0.
	other := reopen(t, tbl)
	extra := [][]any{{int64(10_000), nil, nil, nil, "late", nil, nil, nil, nil, nil, true}}
	rr := rowstest.Reader(t, other.Metadata.CurrentSchema(), extra)
	if _, err := ops.Append(ctx, other, rr, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	victim := firstID(t, other, shipped.Groups[0])
	deleteByPosition(t, other, pred(t, expr.OpEq, "id", victim))
	before := tableRows(t, other)
	location := reopen(t, other).MetadataLocation

	_, err = CommitRewrite(ctx, tbl, results[:1], RewriteCommitOptions{Token: "compact/g0"})
	if !errors.Is(err, table.ErrConflict) || errkind.Of(err) != errkind.Conflict {
		t.Fatalf("group over a concurrent delete: %v", err)
	}
	if got := reopen(t, tbl).MetadataLocation; got != location {
		t.Fatalf("a failed group moved the table from %s to %s", location, got)
	}
	c, err := CommitRewrite(ctx, tbl, results[1:], RewriteCommitOptions{Token: "compact/g1"})
	if err != nil || c.TokenFound {
		t.Fatalf("groups 1, 2: %+v %v", c, err)
	}
	// The client retries the commit it did not hear back from.
	retry, err := CommitRewrite(ctx, reopen(t, tbl), results[1:], RewriteCommitOptions{Token: "compact/g1"})
	if err != nil || !retry.TokenFound || retry.SnapshotID != c.SnapshotID {
		t.Fatalf("retried commit: %+v %v", retry, err)
	}
	fresh := reopen(t, tbl)
	if n := len(fresh.Metadata.Snapshots); n != len(reopen(t, other).Metadata.Snapshots) {
		t.Fatalf("%d snapshots after the retry", n)
	}
	rowstest.CompareRows(t, "after the commits", fresh.Metadata.CurrentSchema(), before, tableRows(t, fresh))
	for _, p := range shipped.Groups[1].DataFiles {
		for _, task := range liveFiles(t, fresh).Tasks {
			if task.File.FilePath == p {
				t.Fatalf("%s of committed group 1 is still live", p)
			}
		}
	}
}

// With partial progress, the groups commit separately (at most
// max-commits commits), and with a token a second run commits nothing.
func TestRewriteDataFilesPartialProgress(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	before := tableRows(t, tbl)
	var calls []int
	committed := 0
	opts := RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, PartialProgress: true, PartialProgressMaxCommits: 2, MaxConcurrentGroups: 2, Token: "nightly",
		Progress: func(done, total int, g GroupOutcome) {
			calls = append(calls, done)
			if total != 3 {
				t.Errorf("progress of %d groups", total)
			}
			if g.SnapshotID != 0 {
				committed++
			}
		}}
	res, err := RewriteDataFiles(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 || calls[2] != 3 || committed != 3 {
		t.Fatalf("progress calls %v, %d of them after the group's commit", calls, committed)
	}
	if len(res.Groups) != 3 || len(res.SnapshotIDs) != 2 || res.FailedDataFiles != 0 {
		t.Fatalf("result %+v", res)
	}
	for _, id := range res.SnapshotIDs {
		if s := tbl.Metadata.SnapshotByID(id); s == nil || s.Operation() != table.OpReplace {
			t.Fatalf("snapshot %d is not a replace", id)
		}
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
}

// A run with a token: in one commit, running it again does nothing; with
// partial progress, a run retried after committing some groups (here: one
// partition's) commits the rest, and each group once.
func TestRewriteDataFilesRetriedWithToken(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	before := tableRows(t, tbl)
	once := RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, Token: "once", Filter: pred(t, expr.OpEq, "b", false)}
	if res, err := RewriteDataFiles(ctx, tbl, once); err != nil || len(res.SnapshotIDs) != 1 {
		t.Fatalf("first run: %+v %v", res, err)
	}
	snaps := len(reopen(t, tbl).Metadata.Snapshots)
	once.RewriteAll = true
	again, err := RewriteDataFiles(ctx, reopen(t, tbl), once)
	if err != nil || !again.TokenFound || len(reopen(t, tbl).Metadata.Snapshots) != snaps {
		t.Fatalf("rerun: %+v %v", again, err)
	}

	nightly := RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, PartialProgress: true, Token: "nightly", Filter: pred(t, expr.OpEq, "b", true)}
	if res, err := RewriteDataFiles(ctx, tbl, nightly); err != nil || len(res.SnapshotIDs) != 1 {
		t.Fatalf("the run that stopped after one group: %+v %v", res, err)
	}
	nightly.Filter = nil
	res, err := RewriteDataFiles(ctx, tbl, nightly)
	if err != nil || len(res.SnapshotIDs) != 1 || res.TokenFound || len(res.Groups) != 1 {
		t.Fatalf("the retried run: %+v %v", res, err)
	}
	rowstest.CompareRows(t, "after the runs", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
	if n := len(liveFiles(t, tbl).Tasks); n != 3 {
		t.Fatalf("%d files after the runs, want one a partition", n)
	}
}

// Hive's position deletes on Impala's partitioned table: compacting
// with rewrite-all keeps its ten rows and drops its three delete files.
func TestRewriteDataFilesImpalaPositionDeletes(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	before := tableRows(t, tbl)
	if len(before) != 10 || len(liveFiles(t, tbl).DeleteFiles) != 3 {
		t.Fatalf("fixture: %d rows, want 10 (INDEX.md)", len(before))
	}
	if _, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{RewriteAll: true}); err != nil {
		t.Fatal(err)
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
	if d := liveFiles(t, tbl).DeleteFiles; len(d) != 0 {
		t.Fatalf("%d delete files left", len(d))
	}
	if d := danglingDeletes(t, tbl); len(d) != 0 {
		t.Fatalf("dangling deletes %v", d)
	}
}

// A filter limits the rewrite to the partitions it selects.
func TestRewriteDataFilesFilter(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 200, 20)
	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, Filter: pred(t, expr.OpEq, "b", true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || res.AddedDataFiles != 1 {
		t.Fatalf("result %+v", res)
	}
	perPartition := map[any]int{}
	for _, task := range liveFiles(t, tbl).Tasks {
		perPartition[task.File.Partition[0]]++
	}
	if perPartition[true] != 1 || perPartition[false] < 5 {
		t.Fatalf("files per partition %v", perPartition)
	}
}

// The planner picks files as Java's bin-pack does.
func TestPlanRewriteChoosesFiles(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 80, 20) // 4 small files per partition
	count := func(o RewriteDataFilesOptions) int {
		t.Helper()
		p, err := PlanRewrite(ctx, tbl, o)
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Groups)
	}
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20}); n != 0 {
		t.Errorf("4 small files under min-input-files 5: %d groups", n)
	}
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, MinInputFiles: 4}); n != 3 {
		t.Errorf("min-input-files 4: %d groups, want 3", n)
	}
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, MinInputFiles: 2, MaxFileGroupSizeBytes: 1}); n != 0 {
		t.Errorf("one file a group cannot be worth rewriting: %d groups", n)
	}
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, RewriteAll: true}); n != 3 {
		t.Errorf("rewrite-all: %d groups, want 3", n)
	}
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 1000, MinFileSizeBytes: 1}); n != 3 {
		// Every file is above max-file-size-bytes (1800): each group
		// holds more than the target.
		t.Errorf("files above the maximum: %d groups, want 3", n)
	}
	// Deletes: one file of each partition loses most of its rows.
	deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(18)))
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20}); n == 0 {
		t.Errorf("files with a high delete ratio: no group")
	}
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, DeleteRatioThreshold: -1}); n != 0 {
		t.Errorf("delete ratio off: %d groups", n)
	}
	if n := count(RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, DeleteRatioThreshold: -1, DeleteFileThreshold: 1}); n == 0 {
		t.Errorf("delete-file-threshold 1: no group")
	}
	if _, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 100, MinFileSizeBytes: 200}); errkind.Of(err) != errkind.InvalidArgument {
		t.Errorf("min above target: %v", err)
	}
}

// firstID is the id of the first row a group's first task reads.
func firstID(t *testing.T, tbl *table.Table, g FileGroup) int64 {
	t.Helper()
	task, err := scan.UnmarshalTask(g.Tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	rr, err := task.Reader(context.Background(), tbl.IO, memory.DefaultAllocator, scan.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
		if rec := rr.RecordBatch(); rec.NumRows() > 0 {
			return rec.Column(0).(*array.Int64).Value(0)
		}
	}
	t.Fatalf("no rows in %s: %v", g.DataFiles[0], rr.Err())
	return 0
}

// An equality delete committed while the groups run still deletes its
// rows from the compacted files (they keep the starting sequence
// number), and a later change to a compacted file is what a changelog
// reports, with the row's values.
func TestRewriteKeepsConcurrentEqualityDeletes(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 200, 20)
	plan, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var results []GroupResult
	for _, g := range plan.Groups {
		r, err := RewriteGroup(ctx, tbl, g)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	other := reopen(t, tbl)
	var victims []int64
	for _, row := range tableRows(t, other) {
		if b, ok := row[10].(bool); ok && !b && len(victims) < 4 {
			victims = append(victims, row[0].(int64))
		}
	}
	deleteByEquality(t, other, false, victims...)
	want := tableRows(t, other)
	if len(want) != 196 {
		t.Fatalf("setup: %d rows after the equality delete", len(want))
	}
	c, err := CommitRewrite(ctx, tbl, results, RewriteCommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), want, tableRows(t, tbl))

	deleteByPosition(t, tbl, pred(t, expr.OpEq, "id", want[0][0]))
	if n := changelogRows(t, tbl, c.SnapshotID, tbl.Metadata.CurrentSnapshot().SnapshotID); n != 1 {
		t.Fatalf("changelog of one deleted row after the compaction: %d rows", n)
	}
}

// The case: 1,000 small files with position deletes and
// equality deletes, compacted with partial progress: the same rows, a
// few files near the target, no delete file left.
func TestRewriteThousandSmallFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,000 files")
	}
	ctx := context.Background()
	tbl := rowstest.NewTable(t, 2, byB, nil)
	rows := testtable.RandomRows(11, 20_000)
	for i := range rows {
		rows[i][0] = int64(i)
	}
	var files []manifest.DataFile
	for start := 0; len(files) < 1000; start += 15 {
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows[start:start+15])
		written, err := ops.WriteFiles(ctx, tbl, rr)
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, written...)
	}
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(500)))
	deleteByEquality(t, tbl, true, 600, 601, 602, 603, 604, 605, 606, 607, 608, 609)
	before := tableRows(t, tbl)
	live := len(liveFiles(t, tbl).Tasks) // deletes dropped some files whole
	target := int64(64 << 10)
	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{
		TargetFileSizeBytes: target, PartialProgress: true, MaxConcurrentGroups: 2, MaxFileGroupSizeBytes: 1 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
	after := liveFiles(t, tbl)
	var size int64
	for _, task := range after.Tasks {
		size += task.File.FileSizeInBytes
	}
	if res.RewrittenDataFiles != live || len(after.Tasks) > int(size/target)+len(res.Groups) || len(after.DeleteFiles) != 0 {
		t.Fatalf("%d of %d files rewritten into %d (%d bytes, target %d, %d groups), %d delete files left",
			res.RewrittenDataFiles, live, len(after.Tasks), size, target, len(res.Groups), len(after.DeleteFiles))
	}
	t.Logf("%d files -> %d in %d groups, %d commits", live, len(after.Tasks), len(res.Groups), len(res.SnapshotIDs))
}

// v3 tables Spark wrote (row lineage after Spark's own compaction;
// deletion vectors): floe's compaction keeps every row and its lineage
// and leaves no delete file.
func TestRewriteDataFilesV3Fixtures(t *testing.T) {
	for _, name := range []string{"impala_iceberg_v3_row_lineage", "impala_iceberg_v3_deletion_vectors"} {
		t.Run(name, func(t *testing.T) {
			tbl := rowstest.CopyFixture(t, name)
			before := rowsWithLineage(t, tbl)
			if len(before) == 0 {
				t.Fatal("fixture has no rows")
			}
			res, err := RewriteDataFiles(context.Background(), tbl, RewriteDataFilesOptions{RewriteAll: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.SnapshotIDs) != 1 {
				t.Fatalf("result %+v", res)
			}
			after := rowsWithLineage(t, reopen(t, tbl))
			if strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Fatalf("rows with lineage changed:\nbefore %v\nafter  %v", before, after)
			}
			if d := liveFiles(t, tbl).DeleteFiles; len(d) != 0 {
				t.Fatalf("%d delete files left", len(d))
			}
		})
	}
}

// A compaction planned on a version older than another writer's position
// delete: with partial progress the group holding the deleted row fails
// with a conflict and the others commit; without it nothing commits.
// Either way no file written for a failed group is left behind.
func TestRewriteDataFilesConflictingGroup(t *testing.T) {
	ctx := context.Background()
	for _, partial := range []bool{true, false} {
		tbl, _ := smallFilesTable(t, 2, 300, 20)
		stale := reopen(t, tbl)
		deleteByPosition(t, tbl, pred(t, expr.OpEq, "id", int64(7)))
		before := tableRows(t, tbl)
		dataDir := tbl.Metadata.Location + "/data"
		filesBefore := len(rowstest.FilesUnder(t, dataDir))
		location := reopen(t, tbl).MetadataLocation

		res, err := RewriteDataFiles(ctx, stale, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, PartialProgress: partial})
		failed := 0
		for _, g := range res.Groups {
			if g.Err != nil {
				if !errors.Is(g.Err, table.ErrConflict) {
					t.Fatalf("partial=%v: group %d: %v", partial, g.ID, g.Err)
				}
				failed++
			}
		}
		fresh := reopen(t, tbl)
		rowstest.CompareRows(t, "after compaction", fresh.Metadata.CurrentSchema(), before, tableRows(t, fresh))
		if partial {
			if err != nil || failed != 1 || len(res.SnapshotIDs) != 2 || len(res.Groups) != 3 {
				t.Fatalf("partial progress: %d failed groups, %+v, %v", failed, res, err)
			}
			if got := len(rowstest.FilesUnder(t, dataDir)); got != filesBefore+2 {
				t.Fatalf("partial progress: %d files under data/, %d before and 2 written for the groups committed", got, filesBefore)
			}
			continue
		}
		if !errors.Is(err, table.ErrConflict) || len(res.SnapshotIDs) != 0 || failed != 3 || res.FailedDataFiles != filesBeforeCount(res) {
			t.Fatalf("one commit: %d failed groups, %+v, %v", failed, res, err)
		}
		if got := fresh.MetadataLocation; got != location {
			t.Fatalf("a failed compaction moved the table from %s to %s", location, got)
		}
		if got := len(rowstest.FilesUnder(t, dataDir)); got != filesBefore {
			t.Fatalf("%d files under data/ after a failed compaction, %d before", got, filesBefore)
		}
	}
}

// Columns added and renamed since the last snapshot: the files are read
// and written in the current schema.
func TestRewriteDataFilesAfterSchemaChange(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 100, 20)
	if _, err := tbl.Apply(ctx, new(action.UpdateSchema).AddColumn("extra", iceberg.IntType{}).RenameColumn("s", "text")); err != nil {
		t.Fatal(err)
	}
	before := tableRows(t, tbl)
	if _, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{RewriteAll: true}); err != nil {
		t.Fatal(err)
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), before, tableRows(t, tbl))
}

// Impala's v1 table (hour and identity partitions, one-row files) and a
// branch: compaction keeps the rows, and of a branch leaves main alone.
func TestRewriteDataFilesV1AndBranch(t *testing.T) {
	ctx := context.Background()
	v1 := rowstest.CopyFixture(t, "impala_iceberg_partitioned")
	before := tableRows(t, v1)
	res, err := RewriteDataFiles(ctx, v1, RewriteDataFilesOptions{MinInputFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	rowstest.CompareRows(t, "v1 after compaction", v1.Metadata.CurrentSchema(), before, tableRows(t, v1))
	if len(before) != 20 || res.RewrittenDataFiles != 20 || len(liveFiles(t, v1).Tasks) != 3 {
		t.Fatalf("v1: %d rows, %+v, %d files after", len(before), res, len(liveFiles(t, v1).Tasks))
	}

	tbl, _ := smallFilesTable(t, 2, 100, 20)
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), [][]any{{int64(5000), nil, nil, nil, "dev", nil, nil, nil, nil, nil, true}})
	if _, err := ops.Append(ctx, tbl, rr, table.CommitOptions{Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	branchRows := func(tb *table.Table) [][]any {
		rows := rowstest.ScanRows(t, tb, scan.Options{Ref: "dev"})
		rowstest.SortRows(tb.Metadata.CurrentSchema(), rows)
		return rows
	}
	devBefore, mainFiles := branchRows(tbl), len(liveFiles(t, tbl).Tasks)
	if _, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	rowstest.CompareRows(t, "dev after compaction", fresh.Metadata.CurrentSchema(), devBefore, branchRows(fresh))
	if got := len(liveFiles(t, fresh).Tasks); got != mainFiles {
		t.Fatalf("main has %d files after compacting dev, %d before", got, mainFiles)
	}
	dev := fresh.Metadata.SnapshotByID(fresh.Metadata.Refs["dev"].SnapshotID)
	if dev.Operation() != table.OpReplace {
		t.Fatalf("dev's head is a %q", dev.Operation())
	}
}

// A group whose last file cannot be read fails, leaving no file of its
// own behind, and a group from a bad worker's JSON is refused.
func TestRewriteGroupFailures(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	plan, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20})
	if err != nil || len(plan.Groups) == 0 {
		t.Fatalf("plan: %v", err)
	}
	g := plan.Groups[0]
	task, err := scan.UnmarshalTask(g.Tasks[len(g.Tasks)-1])
	if err != nil {
		t.Fatal(err)
	}
	task.Path += ".missing"
	if g.Tasks[len(g.Tasks)-1], err = task.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	dataDir := tbl.Metadata.Location + "/data"
	files := len(rowstest.FilesUnder(t, dataDir))
	if _, err := RewriteGroup(ctx, tbl, g); err == nil {
		t.Fatal("a group with a missing file was rewritten")
	}
	if got := len(rowstest.FilesUnder(t, dataDir)); got != files {
		t.Fatalf("%d files under data/ after a failed group, %d before", got, files)
	}
	var r GroupResult
	if err := json.Unmarshal([]byte(`{"group_id": 1, "added": {"version": 99}}`), &r); errkind.Of(err) != errkind.InvalidArgument {
		t.Fatalf("a result of an unknown version: %v", err)
	}
}

// Another writer drops a delete file of a group's file while the group
// runs: the commit, on the newest version, does not name it again.
func TestCommitRewriteAfterADeleteFileWentAway(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	deleteByPosition(t, tbl, pred(t, expr.OpEq, "id", int64(3)))
	plan, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{TargetFileSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var results []GroupResult
	for _, g := range plan.Groups {
		r, err := RewriteGroup(ctx, tbl, g)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	want := tableRows(t, tbl)
	other := reopen(t, tbl)
	deletes := liveFiles(t, other).DeleteFiles
	if len(deletes) != 1 {
		t.Fatalf("setup: %d delete files", len(deletes))
	}
	// Dropping it brings its row back, which the compacted files do not
	// have: a writer doing so would be wrong, but the delete file is gone
	// either way, and the compaction must still commit.
	if _, err := other.RewriteFiles(ctx, nil, []string{deletes[0].File.FilePath}, nil, table.RewriteOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := CommitRewrite(ctx, tbl, results, RewriteCommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.RemovedDeleteFiles) != 0 {
		t.Fatalf("removed %v again", c.RemovedDeleteFiles)
	}
	rowstest.CompareRows(t, "after compaction", tbl.Metadata.CurrentSchema(), want, tableRows(t, tbl))
}

// filesBeforeCount adds up the groups' input files.
func filesBeforeCount(r Result) int {
	n := 0
	for _, g := range r.Groups {
		n += g.InputFiles
	}
	return n
}

// The sort strategy writes each group's rows in the table's sort order
// (recorded in the entries), keeping the rows and their lineage; an
// unsorted table has no order to use.
func TestRewriteDataFilesSortStrategy(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 3, 400, 40)
	deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(25)))
	if _, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{Strategy: StrategySort}); errkind.Of(err) != errkind.InvalidArgument {
		t.Fatalf("sort strategy on an unsorted table: %v", err)
	}
	if _, err := tbl.Apply(ctx, new(action.ReplaceSortOrder).
		Asc("s", iceberg.TruncateTransform{Width: 2}, action.NullsLast).
		Desc("d", nil, action.NullsFirst)); err != nil {
		t.Fatal(err)
	}
	before := rowsWithLineage(t, tbl)
	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{Strategy: StrategySort, RewriteAll: true})
	if err != nil || len(res.SnapshotIDs) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if after := rowsWithLineage(t, reopen(t, tbl)); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatal("rows or their lineage changed")
	}
	md := tbl.Metadata
	order := md.DefaultSortOrder()
	files := liveFiles(t, tbl).Tasks
	if len(files) != 3 {
		t.Fatalf("%d files", len(files))
	}
	for _, task := range files {
		if id := task.File.SortOrderID; id == nil || *id != order.OrderID {
			t.Fatalf("%s: sort_order_id %v, want %d", task.Path, id, order.OrderID)
		}
		rowstest.CheckSorted(t, task.Path, md.CurrentSchema(), order, rowstest.ReadFile(t, task.Path, md.CurrentSchema()))
	}
	if _, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{Strategy: "zorder"}); errkind.Of(err) != errkind.InvalidArgument {
		t.Fatalf("unknown strategy: %v", err)
	}
}
