package maintain

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
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
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "p", Type: iceberg.StringType{}, Required: true},
		{ID: 3, Name: "q", Type: iceberg.StringType{}, Required: true},
	})
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "p", Transform: iceberg.IdentityTransform{}},
		{SourceID: 3, FieldID: 1001, Name: "q", Transform: iceberg.IdentityTransform{}},
	}}
	tbl, err := table.Create(ctx, nil, t.TempDir()+"/tbl", schema, spec, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
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
