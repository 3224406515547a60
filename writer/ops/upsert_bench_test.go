package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
)

// benchKeyedSchema is a keyed table's schema: id is the identifier.
func benchKeyedSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "v", Type: iceberg.LongType{}},
		{ID: 3, Name: "s", Type: iceberg.StringType{}},
		{ID: 4, Name: "d", Type: iceberg.DoubleType{}},
	}, 1)
}

// benchKeyedBatch builds rows with the given ids; salt changes v, s and d.
func benchKeyedBatch(ids []int64, salt int64) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	id := b.Field(0).(*array.Int64Builder)
	v := b.Field(1).(*array.Int64Builder)
	s := b.Field(2).(*array.StringBuilder)
	d := b.Field(3).(*array.Float64Builder)
	for _, k := range ids {
		id.Append(k)
		v.Append(k*7 + salt)
		s.Append(fmt.Sprintf("row-%d-%d", k%1000, salt))
		d.Append(float64(k) / 3)
	}
	return b.NewRecordBatch()
}

// benchKeyedTable creates a keyed table of rows ids 0..n-1, appended in
// ten commits.
func benchKeyedTable(b *testing.B, n int) *table.Table {
	ctx := context.Background()
	tbl, err := table.Create(ctx, nil, filepath.Join(b.TempDir(), "tbl"), benchKeyedSchema(), nil, nil, map[string]string{"format-version": "2"}, 2)
	if err != nil {
		b.Fatal(err)
	}
	chunk := n / 10
	for start := 0; start < n; start += chunk {
		ids := make([]int64, chunk)
		for i := range ids {
			ids[i] = int64(start + i)
		}
		rec := benchKeyedBatch(ids, 0)
		rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
		if _, err := Append(ctx, tbl, rr, table.CommitOptions{}); err != nil {
			b.Fatal(err)
		}
		rr.Release()
		rec.Release()
	}
	return tbl
}

// Upserting 100k keys (half in the table, spread over it; half new) into a
// 1M-row table, against appending the same rows. Compare the two ns/op:
//
//	go test ./writer/ops/ -run XXX -bench UpsertVsAppend -benchtime 3x
func BenchmarkUpsertVsAppend(b *testing.B) {
	const tableRows, keys = 1_000_000, 100_000
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]int64, 0, keys)
	for _, k := range r.Perm(tableRows)[:keys/2] {
		ids = append(ids, int64(k))
	}
	for i := 0; i < keys/2; i++ {
		ids = append(ids, int64(tableRows+i))
	}
	rec := benchKeyedBatch(ids, 1)
	defer rec.Release()
	reader := func() array.RecordReader {
		rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
		return rr
	}
	ctx := context.Background()
	b.Run("append", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			tbl := benchKeyedTable(b, tableRows)
			rr := reader()
			b.StartTimer()
			if _, err := Append(ctx, tbl, rr, table.CommitOptions{}); err != nil {
				b.Fatal(err)
			}
			rr.Release()
		}
	})
	for _, mode := range []UpsertMode{UpsertMergeOnRead, UpsertEqualityDeletes, UpsertCopyOnWrite} {
		b.Run("upsert-"+string(mode), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				tbl := benchKeyedTable(b, tableRows)
				rr := reader()
				b.StartTimer()
				res, err := Upsert(ctx, tbl, rr, UpsertOptions{Mode: mode, WhenMatchedUpdateAll: true, WhenNotMatchedInsertAll: true})
				if err != nil {
					b.Fatal(err)
				}
				if res.RowsUpdated != keys/2 || res.RowsInserted != keys/2 {
					b.Fatalf("%+v", res)
				}
				rr.Release()
			}
		})
	}
}
