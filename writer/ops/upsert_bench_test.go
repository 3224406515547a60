package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// cpuTime is the process's user and system CPU time: on a shared machine
// wall time says little, CPU time what the work cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
func benchKeyedTable(b testing.TB, n, version int) *table.Table {
	ctx := context.Background()
	tbl, err := table.Create(ctx, nil, filepath.Join(b.TempDir(), "tbl"), benchKeyedSchema(), nil, nil, nil, version)
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

// Upserting 100k keys (half in the table, half new) into a 1M-row table
// of ten files, against appending the same rows. "spread" keys hit every
// file; "recent" keys are the table's last 50k ids (one file), as when
// recent rows change again. Compare each ns/op with append's:
//
//	go test ./writer/ops/ -run XXX -bench UpsertVsAppend -benchtime 3x
func BenchmarkUpsertVsAppend(b *testing.B) {
	const tableRows, keys = 1_000_000, 100_000
	r := rand.New(rand.NewPCG(1, 2))
	keySets := map[string][]int64{}
	for _, name := range []string{"spread", "recent"} {
		ids := make([]int64, 0, keys)
		for i, k := range r.Perm(tableRows)[:keys/2] {
			if name == "recent" {
				k = tableRows - keys/2 + i
			}
			ids = append(ids, int64(k))
		}
		for i := 0; i < keys/2; i++ {
			ids = append(ids, int64(tableRows+i))
		}
		keySets[name] = ids
	}
	ctx := context.Background()
	reader := func(rec arrow.RecordBatch) array.RecordReader {
		rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
		return rr
	}
	spread := benchKeyedBatch(keySets["spread"], 1)
	defer spread.Release()
	b.Run("append", func(b *testing.B) {
		var cpu time.Duration
		for range b.N {
			b.StopTimer()
			tbl := benchKeyedTable(b, tableRows, 2)
			rr := reader(spread)
			b.StartTimer()
			c0 := cpuTime()
			if _, err := Append(ctx, tbl, rr, table.CommitOptions{}); err != nil {
				b.Fatal(err)
			}
			cpu += cpuTime() - c0
			rr.Release()
		}
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	cases := []struct {
		name    string
		version int
		mode    UpsertMode
		keys    string
	}{
		{"v2-position-deletes-spread", 2, UpsertMergeOnRead, "spread"},
		{"v2-position-deletes-recent", 2, UpsertMergeOnRead, "recent"},
		{"v3-deletion-vectors-spread", 3, UpsertMergeOnRead, "spread"},
		{"v2-equality-deletes-spread", 2, UpsertEqualityDeletes, "spread"},
		{"v2-copy-on-write-spread", 2, UpsertCopyOnWrite, "spread"},
	}
	for _, c := range cases {
		rec := benchKeyedBatch(keySets[c.keys], 1)
		b.Run("upsert-"+c.name, func(b *testing.B) {
			var cpu time.Duration
			for range b.N {
				b.StopTimer()
				tbl := benchKeyedTable(b, tableRows, c.version)
				rr := reader(rec)
				b.StartTimer()
				c0 := cpuTime()
				res, err := Upsert(ctx, tbl, rr, UpsertOptions{Mode: c.mode, WhenMatchedUpdateAll: true, WhenNotMatchedInsertAll: true})
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - c0
				if res.RowsUpdated != keys/2 || res.RowsInserted != keys/2 {
					b.Fatalf("%+v", res)
				}
				rr.Release()
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
		rec.Release()
	}
}

// Reading a 1M-row table after upserting 100k keys (half existing, spread)
// against reading it before: the deletes' cost on a read.
//
//	go test ./writer/ops/ -run XXX -bench ScanAfterUpsert -benchtime 5x
func BenchmarkScanAfterUpsert(b *testing.B) {
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
	ctx := context.Background()
	cases := []struct {
		name    string
		version int
		mode    UpsertMode
	}{
		{"plain", 2, ""},
		{"v2-position-deletes", 2, UpsertMergeOnRead},
		{"v3-deletion-vectors", 3, UpsertMergeOnRead},
		{"v2-equality-deletes", 2, UpsertEqualityDeletes},
	}
	for _, c := range cases {
		tbl := benchKeyedTable(b, tableRows, c.version)
		want := int64(tableRows)
		if c.name != "plain" {
			rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
			if _, err := Upsert(ctx, tbl, rr, UpsertOptions{Mode: c.mode, WhenMatchedUpdateAll: true, WhenNotMatchedInsertAll: true}); err != nil {
				b.Fatal(err)
			}
			rr.Release()
			want += keys / 2
		}
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				sc, err := scan.New(ctx, tbl, scan.Options{})
				if err != nil {
					b.Fatal(err)
				}
				rr, err := sc.Reader(ctx, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for rr.Next() {
					n += rr.RecordBatch().NumRows()
				}
				if err := rr.Err(); err != nil {
					b.Fatal(err)
				}
				rr.Release()
				if n != want {
					b.Fatalf("%d rows read, want %d", n, want)
				}
			}
		})
	}
}
