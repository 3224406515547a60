package ops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
)

// eqDeleteKeys reads the snapshot's equality delete files: by each
// file's spec and partition (table.PartitionKey), the keys it holds, and
// checks every file compares exactly the key columns.
func eqDeleteKeys(t *testing.T, tbl *table.Table, files []manifest.DataFile, keys ...iceberg.NestedField) map[string][][]any {
	t.Helper()
	ids := make([]int, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	schema := iceberg.NewSchema(0, keys)
	out := map[string][][]any{}
	for _, f := range files {
		if f.Content != manifest.ContentEqualityDeletes {
			continue
		}
		if !slices.Equal(f.EqualityIDs, ids) {
			t.Fatalf("%s compares field ids %v, want the keys %v", f.FilePath, f.EqualityIDs, ids)
		}
		key := table.PartitionKey(f.SpecID, f.Partition)
		if _, dup := out[key]; dup {
			t.Fatalf("two equality delete files for partition %s", key)
		}
		rows := rowstest.ReadFile(t, tbl.Locations.Apply(f.FilePath), schema)
		if int64(len(rows)) != f.RecordCount {
			t.Fatalf("%s holds %d rows, its entry says %d", f.FilePath, len(rows), f.RecordCount)
		}
		out[key] = rows
	}
	return out
}

// checkRowSet compares a table's rows with want as multisets (the first
// column, which checkRows orders by, repeats in the fixtures).
func checkRowSet(t *testing.T, what string, tbl *table.Table, want [][]any) {
	t.Helper()
	got := tableRows(t, tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
	byText := func(a, b []any) int { return strings.Compare(fmt.Sprint(a...), fmt.Sprint(b...)) }
	want = slices.Clone(want)
	slices.SortFunc(want, byText)
	slices.SortFunc(got, byText)
	rowstest.CompareRows(t, what, tbl.Metadata.CurrentSchema(), want, got)
}

// An equality-delete upsert into a partitioned v2 table whose spec
// evolved (spec 0 by b, spec 1 by b and bucket[4](id)): replaced rows of
// both specs, half of them moving to the other b partition, the rest
// staying. Each delete file lies in the spec and partition of the old
// rows it deletes — so a moved row's old version goes, and the new row,
// committed with the deletes at one sequence number, stays even in the
// partition its old row left — and the table reads the model.
func TestUpsertEqualityDeletesPartitioned(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, byBool, nil)
	schema := tbl.Metadata.CurrentSchema()
	rows := testtable.RandomRows(41, 400)
	appendInChunks(t, tbl, rows[:300], 100)
	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "")); err != nil {
		t.Fatal(err)
	}
	appendInChunks(t, tbl, rows[300:], 50)
	fresh := testtable.RandomRows(42, 90)
	replaced := map[int64]bool{}
	moved := 0
	for i := range fresh {
		if i >= 70 {
			fresh[i][0] = int64(1_000 + i) // new
			continue
		}
		id := int64(i * 57 % 400) // spread over both specs
		fresh[i][0] = id
		replaced[id] = true
		old := rows[id][testtable.IDBool-1]
		if i%2 == 0 {
			fresh[i][testtable.IDBool-1] = old // stays in its b partition
		} else {
			b, _ := old.(bool)
			fresh[i][testtable.IDBool-1] = !b // moves
			moved++
		}
	}
	if len(replaced) != 70 {
		t.Fatalf("%d distinct replaced ids", len(replaced))
	}
	rr := rowsReader(t, tbl, fresh)
	defer rr.Release()
	res, err := Upsert(ctx, tbl, rr, upsertOpts(UpsertEqualityDeletes, "id"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || res.RowsUpdated != 70 || res.RowsInserted != 20 || res.DeletedRows != 70 {
		t.Fatalf("result %+v: want 70 updated, 20 inserted, 70 deleted", res)
	}
	want := keepRows(schema, rows, func(r []any) bool { return replaced[r[0].(int64)] })
	want = append(want, fresh...)
	sortRows(schema, want)
	checkRows(t, "after the upsert", tbl, want)
	checkRows(t, "reopened", reopened(t, tbl), want)

	// Each key is deleted once, in its old row's partition.
	idField, _ := schema.FindField(testtable.IDID)
	deleted := eqDeleteKeys(t, tbl, res.Files, idField)
	seen := map[int64]bool{}
	specs := map[int]bool{}
	for key, keys := range deleted {
		for _, k := range keys {
			id := k[0].(int64)
			if !replaced[id] || seen[id] {
				t.Fatalf("partition %s deletes id %d: not replaced, or deleted twice", key, id)
			}
			seen[id] = true
			spec, partition := 0, []any{rows[id][testtable.IDBool-1]}
			if id >= 300 {
				bucket, err := iceberg.BucketTransform{N: 4}.Apply(iceberg.LongType{}, id)
				if err != nil {
					t.Fatal(err)
				}
				spec, partition = 1, append(partition, bucket)
			}
			specs[spec] = true
			if want := table.PartitionKey(spec, partition); key != want {
				t.Fatalf("id %d deleted in partition %s, its old row lies in %s", id, key, want)
			}
		}
	}
	if len(seen) != len(replaced) || !specs[0] || !specs[1] || moved == 0 {
		t.Fatalf("%d of %d ids deleted, specs %v, %d moved", len(seen), len(replaced), specs, moved)
	}
}

// Upserting by s into Flink's partitioned v2 table (identity(d), its own
// equality deletes on [s, d]): str1 and str2 live in both partitions, so
// their keys are deleted in both; str1's new row goes to a new
// partition, str2's stays in one of its old ones, str3 moves to the
// other, str5 is new. The table reads the model, and each delete file
// holds exactly the keys replaced in its partition.
func TestUpsertEqualityDeletesOnFlinkPartitioned(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_delete_equality_partitioned")
	schema := tbl.Metadata.CurrentSchema()
	const dec24, dec25, dec26 = int32(19715), int32(19716), int32(19717)
	before := [][]any{
		{int32(1), "str1", dec24}, {int32(2), "str2", dec24}, {int32(333333), "str3", dec24},
		{int32(4), "str4", dec24}, {int32(1), "str1", dec25}, {int32(222), "str2", dec25},
	}
	checkRowSet(t, "the fixture", tbl, before)
	input := [][]any{
		{int32(10), "str1", dec26}, // both old rows go; a new partition
		{int32(20), "str2", dec24}, // both old rows go; stays in 12-24
		{int32(30), "str3", dec25}, // moves from 12-24 to 12-25
		{int32(50), "str5", dec24}, // new
	}
	rr := rowsReader(t, tbl, input)
	defer rr.Release()
	res, err := Upsert(ctx, tbl, rr, upsertOpts(UpsertEqualityDeletes, "s"))
	if err != nil {
		t.Fatal(err)
	}
	if res.RowsUpdated != 3 || res.RowsInserted != 1 || res.DeletedRows != 5 {
		t.Fatalf("result %+v: want 3 updated, 1 inserted, 5 deleted", res)
	}
	want := append([][]any{{int32(4), "str4", dec24}}, input...)
	checkRowSet(t, "after the upsert", tbl, want)

	sField, _ := schema.FindField(2)
	deleted := eqDeleteKeys(t, tbl, res.Files, sField)
	got := map[string][]string{}
	for key, keys := range deleted {
		for _, k := range keys {
			got[key] = append(got[key], k[0].(string))
		}
		slices.Sort(got[key])
	}
	wantKeys := map[string][]string{
		table.PartitionKey(0, []any{dec24}): {"str1", "str2", "str3"},
		table.PartitionKey(0, []any{dec25}): {"str1", "str2"},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantKeys) {
		t.Fatalf("equality deletes by partition %v, want %v", got, wantKeys)
	}
}

// Spark's v3 table whose spec evolved from unpartitioned to identity(j):
// rows 1 and 2 lie in spec 0's files, so their keys go into one
// unpartitioned delete file (which reaches every partition); row 3's
// into j=5's. Row 1 moves into a partition of spec 1.
func TestUpsertEqualityDeletesAcrossSpecs(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_test_default_part")
	schema := tbl.Metadata.CurrentSchema()
	input := [][]any{{int32(1), int32(7)}, {int32(2), int32(-1)}, {int32(3), int32(6)}, {int32(9), nil}}
	rr := rowsReader(t, tbl, input)
	defer rr.Release()
	res, err := Upsert(ctx, tbl, rr, upsertOpts(UpsertEqualityDeletes, "i"))
	if err != nil {
		t.Fatal(err)
	}
	// Row 2 is unchanged: neither written nor deleted.
	if res.RowsUpdated != 2 || res.RowsInserted != 1 || res.DeletedRows != 2 {
		t.Fatalf("result %+v: want 2 updated, 1 inserted, 2 deleted", res)
	}
	want := [][]any{{int32(1), int32(7)}, {int32(2), int32(-1)}, {int32(3), int32(6)}, {int32(4), int32(10)}, {int32(5), nil}, {int32(9), nil}}
	sortRows(schema, want)
	checkRows(t, "after the upsert", tbl, want)
	iField, _ := schema.FindField(1)
	deleted := eqDeleteKeys(t, tbl, res.Files, iField)
	wantKeys := map[string][][]any{
		table.PartitionKey(0, nil):             {{int32(1)}},
		table.PartitionKey(1, []any{int32(5)}): {{int32(3)}},
	}
	if fmt.Sprint(deleted) != fmt.Sprint(wantKeys) {
		t.Fatalf("equality deletes by partition %v, want %v", deleted, wantKeys)
	}
}
