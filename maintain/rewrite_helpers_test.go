package maintain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/committest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// byB partitions the standard test schema by identity(b): three
// partitions (true, false, null).
var byB = &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
	{SourceID: testtable.IDBool, FieldID: 1000, Name: "b", Transform: iceberg.IdentityTransform{}},
}}

// smallFilesTable is a floe-written table of the standard schema,
// partitioned by b, with appends of chunk rows each (so every partition
// gets a small file per append), rows with ids 0..n-1.
func smallFilesTable(t *testing.T, version, n, chunk int) (*table.Table, [][]any) {
	t.Helper()
	tbl := rowstest.NewTable(t, version, byB, nil)
	rows := testtable.RandomRows(7, n)
	for i := range rows {
		rows[i][0] = int64(i)
	}
	for start := 0; start < n; start += chunk {
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows[start:min(start+chunk, n)])
		_, err := ops.Append(context.Background(), tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	return tbl, rows
}

func pred(t *testing.T, op expr.Op, column string, values ...any) expr.Expr {
	return rowstest.Pred(t, op, column, values...)
}

// deleteByPosition deletes the rows the filter selects by merge-on-read:
// position delete files on v2, deletion vectors on v3.
func deleteByPosition(t *testing.T, tbl *table.Table, filter expr.Expr) {
	t.Helper()
	if _, err := ops.DeleteRows(context.Background(), tbl, filter, ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
		t.Fatal(err)
	}
}

// deleteByEquality commits an equality delete file on id, in the
// partition of b = part, deleting ids.
func deleteByEquality(t *testing.T, tbl *table.Table, part bool, ids ...int64) manifest.DataFile {
	t.Helper()
	path := filepath.Join(tbl.Metadata.Location, "data", fmt.Sprintf("eq-%d-%v.parquet", len(tbl.Metadata.Snapshots), part))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	eq, err := committest.WriteEqualityDeletes(path, 0, []any{part}, testtable.IDID, "id", ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(context.Background(), nil, []manifest.DataFile{eq}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return eq
}

// tableRows reads the table's current rows afresh, every column, sorted:
// the multiset compared before and after a rewrite.
func tableRows(t *testing.T, tbl *table.Table) [][]any {
	t.Helper()
	return rowstest.TableRows(t, tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
}

// lineageByID reads each row's _row_id and _last_updated_sequence_number
// by its id.
func lineageByID(t *testing.T, tbl *table.Table) map[int64][2]int64 {
	t.Helper()
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, scan.Options{Columns: []string{"id", "_row_id", "_last_updated_sequence_number"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	out := map[int64][2]int64{}
	for rr.Next() {
		rec := rr.RecordBatch()
		ids := rec.Column(0).(*array.Int64)
		rowIDs := rec.Column(1).(*array.Int64)
		seqs := rec.Column(2).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			if rowIDs.IsNull(i) || seqs.IsNull(i) {
				t.Fatalf("row %d has no lineage", ids.Value(i))
			}
			out[ids.Value(i)] = [2]int64{rowIDs.Value(i), seqs.Value(i)}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// liveFiles plans the current snapshot afresh.
func liveFiles(t *testing.T, tbl *table.Table) *table.Plan {
	t.Helper()
	return rowstest.LiveFiles(t, reopen(t, tbl))
}

// reopen opens the table's newest version afresh, as another process
// would, through its location map.
func reopen(t *testing.T, tbl *table.Table) *table.Table {
	t.Helper()
	fresh, err := table.Open(context.Background(), tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return fresh
}

// danglingDeletes lists live delete files that apply to no live data file.
func danglingDeletes(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	plan := liveFiles(t, tbl)
	used := map[string]bool{}
	for _, task := range plan.Tasks {
		for _, d := range task.Deletes {
			used[d.File.FilePath] = true
		}
	}
	var out []string
	for _, d := range plan.DeleteFiles {
		if !used[d.File.FilePath] {
			out = append(out, d.File.FilePath)
		}
	}
	sort.Strings(out)
	return out
}

// changelogRows counts the rows a changelog scan from one snapshot to
// another reports.
func changelogRows(t *testing.T, tbl *table.Table, from, to int64) int {
	t.Helper()
	ctx := context.Background()
	cs, err := scan.NewChangelog(ctx, tbl, scan.Options{Changelog: true, FromSnapshotID: &from, ToSnapshotID: &to})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := cs.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// rowsWithLineage reads every row with its _row_id and
// _last_updated_sequence_number, each rendered as text, sorted.
func rowsWithLineage(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	ctx := context.Background()
	schema := tbl.Metadata.CurrentSchema()
	var cols []string
	for _, f := range schema.Fields {
		cols = append(cols, f.Name)
	}
	s, err := scan.New(ctx, tbl, scan.Options{Columns: append(cols, lineageColumns...)})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, 0, len(cols)+2)
			for j, f := range schema.Fields {
				row = append(row, rowstest.Canonical(rec.Column(j), i, f.Type))
			}
			for j := len(cols); j < len(cols)+2; j++ {
				lin := rec.Column(j).(*array.Int64)
				if lin.IsNull(i) {
					t.Fatalf("a row has no %s", rec.ColumnName(j))
				}
				row = append(row, lin.Value(i))
			}
			out = append(out, fmt.Sprint(row...))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
