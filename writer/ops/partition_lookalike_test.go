package ops

import (
	"context"
	"reflect"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer"
)

// lookalikeSchema and lookalikeSpec make two partitions that printed
// alike when partition keys were their values joined by "|%T:%v":
// identity(p), identity(q) of ("a|string:b", "c") and ("a", "b|string:c")
// both gave "0|string:a|string:b|string:c".
var (
	lookalikeSchema = iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "p", Type: iceberg.StringType{}, Required: true},
		{ID: 3, Name: "q", Type: iceberg.StringType{}, Required: true},
		{ID: 4, Name: "v", Type: iceberg.LongType{}},
	})
	lookalikeSpec = &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "p", Transform: iceberg.IdentityTransform{}},
		{SourceID: 3, FieldID: 1001, Name: "q", Transform: iceberg.IdentityTransform{}},
	}}
	lookalikeRows = [][]any{{int64(1), "a|string:b", "c", int64(1)}, {int64(2), "a", "b|string:c", int64(2)}}
)

// lookalikeTable is a v2 table holding lookalikeRows, one file each.
func lookalikeTable(t *testing.T) *table.Table {
	t.Helper()
	ctx := context.Background()
	tbl, err := table.Create(ctx, nil, t.TempDir()+"/tbl", lookalikeSchema, lookalikeSpec, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	rr := rowstest.Reader(t, lookalikeSchema, lookalikeRows)
	defer rr.Release()
	if _, err := Append(ctx, tbl, rr, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return tbl
}

// An equality delete of one partition deletes nothing in another whose
// tuple merely prints alike: deleting id 2 in ("a|string:b", "c") leaves
// the row of id 2 in ("a", "b|string:c").
func TestEqualityDeleteStaysInItsPartition(t *testing.T) {
	ctx := context.Background()
	tbl := lookalikeTable(t)
	ew, err := writer.NewEqualityDeleteWriter(ctx, tbl.IO, writer.DataLocation(tbl.Metadata), lookalikeSchema, lookalikeSpec, []int{1}, writer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	rec := rowstest.BuildRecord(t, lookalikeSchema, [][]any{{int64(2), "a|string:b", "c", nil}})
	err = ew.Write(rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	files, err := ew.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !reflect.DeepEqual(files[0].Partition, []any{"a|string:b", "c"}) {
		t.Fatalf("delete files %+v", files)
	}
	if _, err := tbl.RowDelta(ctx, nil, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	checkRowSet(t, "after the delete", tbl, lookalikeRows)
}

// Replacing partition ("a|string:b", "c") leaves ("a", "b|string:c") and
// its rows.
func TestReplacePartitionsLeavesALookalike(t *testing.T) {
	ctx := context.Background()
	tbl := lookalikeTable(t)
	fresh := [][]any{{int64(3), "a|string:b", "c", int64(3)}}
	rr := rowstest.Reader(t, lookalikeSchema, fresh)
	defer rr.Release()
	if _, err := ReplacePartitions(ctx, tbl, rr, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	checkRowSet(t, "after the replace", tbl, append(fresh, lookalikeRows[1]))
}

// An equality-delete upsert replacing a row in each of the two partitions
// writes each key's delete file in its own old row's partition, so other
// readers (which apply a partitioned delete to its partition only) see
// the old rows gone; both keys went into one file of one partition.
func TestUpsertEqualityDeletesLookalikePartitions(t *testing.T) {
	ctx := context.Background()
	tbl := lookalikeTable(t)
	fresh := [][]any{{int64(1), "a|string:b", "c", int64(10)}, {int64(2), "a", "b|string:c", int64(20)}}
	rr := rowstest.Reader(t, lookalikeSchema, fresh)
	res, err := Upsert(ctx, tbl, rr, upsertOpts(UpsertEqualityDeletes, "id"))
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	if res.RowsUpdated != 2 || res.DeletedRows != 2 {
		t.Fatalf("result %+v: want 2 updated, 2 deleted", res)
	}
	idField, _ := lookalikeSchema.FindField(1)
	keySchema := iceberg.NewSchema(0, []iceberg.NestedField{idField})
	deletes := 0
	for _, f := range res.Files {
		if f.Content != manifest.ContentEqualityDeletes {
			continue
		}
		deletes++
		for _, k := range rowstest.ReadFile(t, tbl.Locations.Apply(f.FilePath), keySchema) {
			old := lookalikeRows[k[0].(int64)-1]
			if want := old[1:3]; !reflect.DeepEqual(f.Partition, want) {
				t.Fatalf("id %v deleted in partition %v, its old row lies in %v", k[0], f.Partition, want)
			}
		}
	}
	if deletes != 2 {
		t.Fatalf("%d equality delete files, want one per partition", deletes)
	}
	checkRowSet(t, "after the upsert", tbl, fresh)
}
