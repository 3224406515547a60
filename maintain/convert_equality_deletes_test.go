package maintain

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/writer/ops"
)

// convertAndCheck converts tbl's equality deletes and checks the rows,
// the replace snapshot, the empty changelog and that no equality delete
// is left.
func convertAndCheck(t *testing.T, tbl *table.Table) DeleteRewriteResult {
	t.Helper()
	before := tableRows(t, tbl)
	_, _, eq := deleteCounts(liveFiles(t, tbl))
	if eq == 0 {
		t.Fatal("setup: no equality delete")
	}
	start := tbl.Metadata.CurrentSnapshot().SnapshotID
	res, err := ConvertEqualityDeletes(context.Background(), tbl, DeleteRewriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, tbl, before, start, res)
	if _, _, eqAfter := deleteCounts(liveFiles(t, tbl)); eqAfter != 0 || len(res.AddedDeleteFiles) == 0 {
		t.Fatalf("after: %d equality delete files; %+v", eqAfter, res)
	}
	return res
}

func TestConvertEqualityDeletesV2(t *testing.T) {
	tbl, _ := smallFilesTable(t, 2, 300, 20)
	deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", int64(1), int64(250)))
	deleteByEquality(t, tbl, true, 5, 7, 9, 11, 250)
	deleteByEquality(t, tbl, false, 5, 7, 9, 11, 1)
	// Rows appended after the deletes (ids 0..19 again) are not theirs
	// to delete.
	rows := testtable.RandomRows(9, 20)
	for i := range rows {
		rows[i][0] = int64(i)
	}
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows)
	_, err := ops.Append(context.Background(), tbl, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	res := convertAndCheck(t, tbl)
	for _, d := range liveFiles(t, tbl).DeleteFiles {
		if d.File.Content != manifest.ContentPositionDeletes || d.IsDeletionVector() {
			t.Fatalf("left %s (%s)", d.File.FilePath, d.File.Content)
		}
	}
	if len(res.RemovedDeleteFiles) != 2 {
		t.Fatalf("removed %v", res.RemovedDeleteFiles)
	}
}

func TestConvertEqualityDeletesV3(t *testing.T) {
	tbl, rows := smallFilesTable(t, 3, 300, 20)
	// A row of the first append in partition true goes by a vector, the
	// rest of that append's by equality: the vector must merge in.
	var dv int64 = -1
	var eqTrue []int64
	for _, row := range rows[:20] {
		if b, ok := row[10].(bool); ok && b {
			if dv < 0 {
				dv = row[0].(int64)
			} else {
				eqTrue = append(eqTrue, row[0].(int64))
			}
		}
	}
	if dv < 0 || len(eqTrue) == 0 {
		t.Fatal("setup: too few rows in partition true")
	}
	deleteByPosition(t, tbl, pred(t, expr.OpIn, "id", dv, int64(250), int64(33)))
	deleteByEquality(t, tbl, true, append(eqTrue, 250)...)
	deleteByEquality(t, tbl, false, 5, 7, 9, 11, 1)
	both := 0
	for _, task := range liveFiles(t, tbl).Tasks {
		if len(task.Deletes) == 2 {
			both++
		}
	}
	if both == 0 {
		t.Fatal("setup: no data file with a vector and an equality delete")
	}
	convertAndCheck(t, tbl)
	plan := liveFiles(t, tbl)
	for _, d := range plan.DeleteFiles {
		if !d.IsDeletionVector() {
			t.Fatalf("left %s (%s)", d.File.FilePath, d.File.Content)
		}
	}
	// One live vector per data file at most (the spec's rule).
	perFile := map[string]int{}
	for _, d := range plan.DeleteFiles {
		if d.File.ReferencedDataFile == "" {
			t.Fatalf("vector %s names no data file", d.File.FilePath)
		}
		if perFile[d.File.ReferencedDataFile]++; perFile[d.File.ReferencedDataFile] > 1 {
			t.Fatalf("%s has two live deletion vectors", d.File.ReferencedDataFile)
		}
	}
}

func TestConvertEqualityDeletesFixtures(t *testing.T) {
	for _, name := range []string{"impala_iceberg_v2_delete_equality_partitioned", "impala_iceberg_v2_delete_pos_and_multi_eq_ids", "impala_iceberg_v2_equality_delete_schema_evolution"} {
		t.Run(name, func(t *testing.T) {
			convertAndCheck(t, rowstest.CopyFixture(t, name))
		})
	}
}

// A data file committed after the conversion planned, at a sequence number
// below a removed equality delete's (a compaction that started before the
// delete), may hold rows the delete removes: ErrConflict.
func TestConvertEqualityDeletesConflictsWithOlderData(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 100, 50)
	beforeEq := tbl.Metadata.CurrentSnapshot().SnapshotID
	deleteByEquality(t, tbl, false, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25)
	stale := reopen(t, tbl)

	// Another rewrite, started before the delete, replaces a data file
	// of partition false by a copy.
	var victim manifest.DataFile
	for _, task := range liveFiles(t, tbl).Tasks {
		if len(task.Deletes) > 0 {
			victim = task.File
			break
		}
	}
	if victim.FilePath == "" {
		t.Fatal("setup: no data file the equality delete applies to")
	}
	cp := victim
	cp.FilePath = strings.TrimSuffix(victim.FilePath, ".parquet") + "-copy.parquet"
	copyFile(t, victim.FilePath, cp.FilePath)
	if _, err := tbl.RewriteFiles(ctx, []string{victim.FilePath}, nil, []manifest.DataFile{cp}, table.RewriteOptions{StartingSnapshotID: beforeEq}); err != nil {
		t.Fatal(err)
	}
	head := reopen(t, tbl).Metadata.CurrentSnapshot().SnapshotID
	if _, err := ConvertEqualityDeletes(ctx, stale, DeleteRewriteOptions{}); !errors.Is(err, table.ErrConflict) {
		t.Fatalf("want ErrConflict, got %v", err)
	}
	if got := reopen(t, tbl).Metadata.CurrentSnapshot().SnapshotID; got != head {
		t.Fatalf("head moved to %d", got)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	from, to = strings.TrimPrefix(from, "file://"), strings.TrimPrefix(to, "file://")
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// v3: a deletion vector committed, after the conversion planned, for a
// data file the conversion writes a vector for is ErrConflict (one vector
// per data file; the new one would lack its positions).
func TestConvertEqualityDeletesConflictsWithAConcurrentVector(t *testing.T) {
	ctx := context.Background()
	tbl, rows := smallFilesTable(t, 3, 60, 20)
	var ids []int64
	for _, row := range rows[:20] {
		if b, ok := row[10].(bool); ok && b {
			ids = append(ids, row[0].(int64))
		}
	}
	if len(ids) < 2 {
		t.Fatal("setup: too few rows in partition true")
	}
	deleteByEquality(t, tbl, true, ids[0])
	stale := reopen(t, tbl)
	deleteByPosition(t, tbl, pred(t, expr.OpEq, "id", ids[1]))
	head := reopen(t, tbl).Metadata.CurrentSnapshot().SnapshotID
	if _, err := ConvertEqualityDeletes(ctx, stale, DeleteRewriteOptions{}); !errors.Is(err, table.ErrConflict) {
		t.Fatalf("want ErrConflict, got %v", err)
	}
	if got := reopen(t, tbl).Metadata.CurrentSnapshot().SnapshotID; got != head {
		t.Fatalf("head moved to %d", got)
	}
}
