package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/internal/progress"
)

// floe_table_progress's counts: a maintenance call deleting files counts
// them planned and done on the handle, readable after it returns; the
// next call starts from zero.
func TestTableProgressCountsTheLatestCall(t *testing.T) {
	th, dir := maintainTable(t, nil)
	if got := th.meter.Load().Sample(); got != (progress.Sample{}) {
		t.Fatalf("before any call: %+v", got)
	}
	for _, name := range []string{"stray-1.parquet", "stray-2.parquet"} {
		stray := filepath.Join(dir, "data", name)
		if err := os.WriteFile(stray, []byte("left by a killed writer"), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-96 * time.Hour)
		if err := os.Chtimes(stray, old, old); err != nil {
			t.Fatal(err)
		}
	}
	res, _ := maintainCall(t, th, "remove_orphan_files", `{"older_than_ms": `+strconvI(time.Now().Add(-48*time.Hour).UnixMilli())+`}`)
	if num(res["deleted_files_count"]) != 2 {
		t.Fatalf("orphans: %v", res)
	}
	if got := th.meter.Load().Sample(); got != (progress.Sample{Files: 2, FilesTotal: 2}) || th.meterCall.Load() != 1 {
		t.Errorf("after removing 2 orphans: %+v", got)
	}
	maintainCall(t, th, "rewrite_manifests", "")
	if got := th.meter.Load().Sample(); got != (progress.Sample{}) {
		t.Errorf("a call deleting nothing starts from zero: %+v", got)
	}
}

// countRows counts the rows of every batch the writer takes, in the
// call's Meter; without one it is the reader itself.
func TestCountRows(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var batches []arrow.RecordBatch
	for _, n := range []int{3, 0, 7} {
		bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := range n {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
		}
		batches = append(batches, bld.NewRecordBatch())
		bld.Release()
	}
	rdr, err := array.NewRecordReader(schema, batches)
	if err != nil {
		t.Fatal(err)
	}
	if countRows(context.Background(), rdr) != rdr {
		t.Error("countRows wrapped a reader with no Meter to count into")
	}
	th := &tableHandle{}
	ctx := th.metered(context.Background())
	counted := countRows(ctx, rdr)
	seen := 0
	for counted.Next() {
		seen++
		if got := th.meter.Load().Sample().Rows; got != []int64{3, 3, 10}[seen-1] {
			t.Errorf("after batch %d: %d rows", seen, got)
		}
	}
	if got := th.meter.Load().Sample(); seen != 3 || got != (progress.Sample{Rows: 10}) {
		t.Errorf("%d batches, %+v; want 3 batches, 10 rows", seen, got)
	}
}
