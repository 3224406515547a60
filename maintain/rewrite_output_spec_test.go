package maintain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// evolvedTable is smallFilesTable's (spec 0: b; ten small files per
// partition) whose spec then evolved to spec 1 (b, bucket[4](id)), with
// four appends of 25 rows under it: rows 0..299 in spec 0's files,
// 300..399 in spec 1's.
func evolvedTable(t *testing.T) (*table.Table, [][]any) {
	t.Helper()
	ctx := context.Background()
	tbl, rows := smallFilesTable(t, 2, 300, 30)
	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "")); err != nil {
		t.Fatal(err)
	}
	more := testtable.RandomRows(8, 100)
	for i := range more {
		more[i][0] = int64(300 + i)
	}
	for start := 0; start < len(more); start += 25 {
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), more[start:start+25])
		_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	return tbl, append(rows, more...)
}

// checkPartitions checks every live data file is of spec want and that
// each of its rows falls in the file's partition under that spec, and
// returns the files by partition.
func checkPartitions(t *testing.T, tbl *table.Table, want int) map[string]int {
	t.Helper()
	schema := tbl.Metadata.CurrentSchema()
	spec := tbl.Metadata.SpecByID(want)
	byPartition := map[string]int{}
	for _, task := range liveFiles(t, tbl).Tasks {
		f := task.File
		if f.SpecID != want {
			t.Fatalf("%s is of spec %d, want %d", f.FilePath, f.SpecID, want)
		}
		byPartition[table.PartitionKey(f.SpecID, f.Partition)]++
		for _, row := range rowstest.ReadFile(t, tbl.Locations.Apply(f.FilePath), schema) {
			for k, pf := range spec.Fields {
				src, _ := schema.FindField(pf.SourceID)
				v, err := pf.Transform.Apply(src.Type, row[indexOf(schema, pf.SourceID)])
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(v) != fmt.Sprint(f.Partition[k]) {
					t.Fatalf("%s (partition %v) holds a row whose %s is %v", f.FilePath, f.Partition, pf.Name, v)
				}
			}
		}
	}
	return byPartition
}

// specFiles counts the live data files of a spec.
func specFiles(t *testing.T, tbl *table.Table, spec int) int {
	n := 0
	for _, task := range liveFiles(t, tbl).Tasks {
		if task.File.SpecID == spec {
			n++
		}
	}
	return n
}

func indexOf(schema *iceberg.Schema, id int) int {
	for i, f := range schema.Fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// Compacting a table whose spec evolved: by default into the current
// spec — spec 0's 30 files are one group (Java's: their rows may fall in
// any of spec 1's partitions) written partitioned by spec 1, spec 1's
// partitions each their own group — and with output-spec-id 0 back into
// spec 0. The rows stay, every new file is of the output spec and holds
// only rows of its partition, and a filter on id prunes by the bucket.
func TestRewriteIntoOutputSpec(t *testing.T) {
	ctx := context.Background()
	for _, out := range []*int{nil, new(int)} {
		name := "default spec"
		if out != nil {
			name = "output-spec-id 0"
		}
		t.Run(name, func(t *testing.T) {
			tbl, _ := evolvedTable(t)
			before := tableRows(t, tbl)
			old := specFiles(t, tbl, 0)
			// Into spec 0 every file goes, singletons too.
			res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{MinInputFiles: 2, OutputSpecID: out, RewriteAll: out != nil})
			if err != nil {
				t.Fatal(err)
			}
			rowstest.CompareRows(t, "after the rewrite", tbl.Metadata.CurrentSchema(), before, tableRows(t, reopen(t, tbl)))
			wantSpec := 1
			if out != nil {
				wantSpec = 0
			}
			byPartition := checkPartitions(t, reopen(t, tbl), wantSpec)
			var sizes []int
			for _, g := range res.Groups {
				if g.Err != nil {
					t.Fatalf("group %d (%s): %v", g.ID, g.Partition, g.Err)
				}
				sizes = append(sizes, g.InputFiles)
			}
			// Spec 0's files are one group (Java's key for another
			// spec's files); spec 1's partitions (3 b values x 4 buckets
			// at most) are one group each, of up to 4 files.
			slices.Sort(sizes)
			if len(sizes) < 2 || len(sizes) > 13 || sizes[len(sizes)-1] != old || sizes[len(sizes)-2] > 4 {
				t.Fatalf("groups of %v files: want spec 0's %d as one group and one per spec 1 partition", sizes, old)
			}
			if out == nil {
				// A partition gets a file from spec 0's group and one
				// from its own.
				for key, n := range byPartition {
					if n > 2 {
						t.Fatalf("partition %s has %d files, want 1 or 2", key, n)
					}
				}
				checkBucketPruning(t, reopen(t, tbl), before)
			} else if len(byPartition) != 3 {
				t.Fatalf("spec 0 partitions %v, want the 3 b values", byPartition)
			}
		})
	}
}

// checkBucketPruning plans id = 317 and reads it: only files of 317's
// bucket are planned, and the row is the one the table held.
func checkBucketPruning(t *testing.T, tbl *table.Table, rows [][]any) {
	t.Helper()
	ctx := context.Background()
	const id = int64(317)
	bucket, err := iceberg.BucketTransform{N: 4}.Apply(iceberg.LongType{}, id)
	if err != nil {
		t.Fatal(err)
	}
	filter := pred(t, expr.OpEq, "id", id)
	planned, err := tbl.PlanFilesFiltered(ctx, table.SnapshotSelector{}, filter, false)
	if err != nil {
		t.Fatal(err)
	}
	all := len(liveFiles(t, tbl).Tasks)
	if len(planned.Tasks) == 0 || len(planned.Tasks) >= all {
		t.Fatalf("id = %d planned %d of %d files", id, len(planned.Tasks), all)
	}
	for _, task := range planned.Tasks {
		if task.File.Partition[1] != bucket {
			t.Fatalf("id = %d planned %s of partition %v, not bucket %v", id, task.File.FilePath, task.File.Partition, bucket)
		}
	}
	got := rowstest.ScanRows(t, tbl, scan.Options{Filter: filter})
	var want [][]any
	for _, r := range rows {
		if r[0] == id {
			want = append(want, r)
		}
	}
	rowstest.CompareRows(t, "id = 317", tbl.Metadata.CurrentSchema(), want, got)
}

// A group that moves rows to another spec's partitions commits with a
// fresh sequence number: an equality delete another writer commits in an
// old partition after the plan would miss the moved rows, so it fails
// the commit (table unchanged) instead of being lost.
func TestRewriteIntoOutputSpecConflictsWithEqualityDelete(t *testing.T) {
	ctx := context.Background()
	tbl, _ := evolvedTable(t)
	plan, err := PlanRewrite(ctx, tbl, RewriteDataFilesOptions{MinInputFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	var moving *FileGroup
	for i := range plan.Groups {
		if plan.Groups[i].Repartition {
			moving = &plan.Groups[i]
		} else if plan.Groups[i].SpecID != 1 {
			t.Fatalf("group %d (%s) of spec %d", i, plan.Groups[i].Partition, plan.Groups[i].SpecID)
		}
	}
	if moving == nil || len(moving.DataFiles) != specFiles(t, tbl, 0) || moving.SpecID != 1 || !moving.SpecChange {
		t.Fatal("want spec 0's files as one group, repartitioned into spec 1")
	}
	res, err := RewriteGroup(ctx, tbl, *moving)
	if err != nil {
		t.Fatal(err)
	}
	if !res.SpecChange {
		t.Fatal("the group's result does not say it repartitioned")
	}
	other := reopen(t, tbl)
	deleteByEquality(t, other, true, 1, 2, 3, 4, 5, 6)
	location := reopen(t, other).MetadataLocation
	before := tableRows(t, other)
	_, err = CommitRewrite(ctx, tbl, []GroupResult{res}, RewriteCommitOptions{})
	if !errors.Is(err, table.ErrConflict) || errkind.Of(err) != errkind.Conflict {
		t.Fatalf("commit over an equality delete in an old partition: %v", err)
	}
	fresh := reopen(t, tbl)
	if fresh.MetadataLocation != location {
		t.Fatalf("a failed commit moved the table to %s", fresh.MetadataLocation)
	}
	rowstest.CompareRows(t, "after the failed commit", fresh.Metadata.CurrentSchema(), before, tableRows(t, fresh))
}

// Spark's v3 table whose spec evolved from unpartitioned (rows 1 and 2)
// to identity(j): compaction writes spec 0's two files as one file of
// partition j=-1 under spec 1, rows and row lineage unchanged, and j =
// -1 then plans that file alone; an unknown output spec is refused. The
// j=null file joins spec 0's group, as in Java (whose key for another
// spec's files is the default spec's tuple of nulls), and is written
// again as it was.
func TestRewriteIntoOutputSpecOnSparkTable(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_test_default_part")
	before := tableRows(t, tbl)
	lineage := rowsWithLineage(t, tbl)
	if _, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{MinInputFiles: 2, OutputSpecID: intp(7)}); errkind.Of(err) != errkind.NotFound {
		t.Fatalf("output spec 7: %v", err)
	}
	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{MinInputFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || res.Groups[0].InputFiles != 3 || res.AddedDataFiles != 2 || res.Groups[0].Err != nil {
		t.Fatalf("result %+v: want spec 0's 2 files and j=null's rewritten as 2", res)
	}
	fresh := reopen(t, tbl)
	rowstest.CompareRows(t, "after the rewrite", fresh.Metadata.CurrentSchema(), before, tableRows(t, fresh))
	if got := rowsWithLineage(t, fresh); fmt.Sprint(got) != fmt.Sprint(lineage) {
		t.Fatalf("lineage %v, want %v", got, lineage)
	}
	checkPartitions(t, fresh, 1)
	planned, err := fresh.PlanFilesFiltered(ctx, table.SnapshotSelector{}, pred(t, expr.OpEq, "j", int64(-1)), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(planned.Tasks) != 1 || planned.Tasks[0].File.SpecID != 1 || planned.Tasks[0].File.RecordCount != 2 {
		t.Fatalf("j = -1 planned %+v, want the one new file", planned.Tasks)
	}

	// Back into spec 0: every file is rewritten unpartitioned.
	res, err = RewriteDataFiles(ctx, fresh, RewriteDataFilesOptions{RewriteAll: true, OutputSpecID: intp(0)})
	if err != nil {
		t.Fatal(err)
	}
	again := reopen(t, fresh)
	rowstest.CompareRows(t, "in spec 0", again.Metadata.CurrentSchema(), before, tableRows(t, again))
	checkPartitions(t, again, 0)
}

func intp(n int) *int { return &n }
