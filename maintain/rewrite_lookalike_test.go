package maintain

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer/ops"
)

// Two partitions of identity(p), identity(q) whose values joined by
// "|%T:%v" printed alike — ("a|string:b", "c") and ("a", "b|string:c") —
// are planned as two groups and compacted each in place; as one group,
// their rows were written to two partitions and the rewrite failed.
func TestRewriteDataFilesLookalikePartitions(t *testing.T) {
	ctx := context.Background()
	tbl, schema := lookalikeTable(t)
	rows := [][]any{{int64(1), "a|string:b", "c"}, {int64(2), "a", "b|string:c"}}
	for range 2 {
		rr := rowstest.Reader(t, schema, rows)
		_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{RewriteAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.RewrittenDataFiles != 4 || res.AddedDataFiles != 2 || res.FailedDataFiles != 0 {
		t.Fatalf("result %+v: want 4 files rewritten into 2", res)
	}
	got := rowstest.TableRows(t, tbl.MetadataLocation, table.Options{})
	if len(got) != 4 {
		t.Fatalf("rows %v", got)
	}
}

// lookalikeTable is an empty v2 table partitioned by identity(p),
// identity(q) of strings.
func lookalikeTable(t *testing.T) (*table.Table, *iceberg.Schema) {
	t.Helper()
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "p", Type: iceberg.StringType{}, Required: true},
		{ID: 3, Name: "q", Type: iceberg.StringType{}, Required: true},
	})
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "p", Transform: iceberg.IdentityTransform{}},
		{SourceID: 3, FieldID: 1001, Name: "q", Transform: iceberg.IdentityTransform{}},
	}}
	tbl, err := table.Create(context.Background(), nil, t.TempDir()+"/tbl", schema, spec, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	return tbl, schema
}

// Partitions ("a b", "c") and ("a", "b c") — alike as fmt.Sprint prints
// their tuples — each hold one position delete file: nothing to merge,
// and the deleted rows stay deleted. Keyed by that print, the two made
// one group of two files, merged into one file of the first partition
// naming the other's data file too, where (a position delete applying
// only in its partition) it deleted nothing: a deleted row came back.
func TestRewritePositionDeletesLookalikePartitions(t *testing.T) {
	ctx := context.Background()
	tbl, schema := lookalikeTable(t)
	rows := [][]any{{int64(1), "a b", "c"}, {int64(2), "a", "b c"}, {int64(3), "a b", "c"}, {int64(4), "a", "b c"}}
	rr := rowstest.Reader(t, schema, rows)
	_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.DeleteRows(ctx, tbl, pred(t, expr.OpLt, "id", int64(3)), ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
		t.Fatal(err)
	}
	want := rows[2:]
	rowstest.CompareRows(t, "deleted", schema, want, rowstest.TableRows(t, tbl.MetadataLocation, table.Options{}))
	res, err := RewritePositionDeletes(ctx, tbl, DeleteRewriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.AddedDeleteFiles) != 0 {
		t.Fatalf("one position delete file per partition merged into %v", res.AddedDeleteFiles)
	}
	rowstest.CompareRows(t, "after the rewrite", schema, want, rowstest.TableRows(t, tbl.MetadataLocation, table.Options{}))
	h, err := CheckHealth(ctx, tbl, HealthOptions{SkipOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if h.PositionDeleteFilesToRewrite != 0 {
		t.Fatalf("health: %d position delete files to rewrite, want 0 (one per partition)", h.PositionDeleteFilesToRewrite)
	}
}
