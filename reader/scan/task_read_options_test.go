package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/parquet"
)

// openFixture opens a shared fixture table (read only).
func openFixture(t *testing.T, name string) *table.Table {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// batchSizes reads rr to the end and returns its rows (id, _pos) and the
// size of each batch.
func batchSizes(t *testing.T, rr array.RecordReader) ([]idPos, []int) {
	t.Helper()
	batches := collect(t, rr)
	sizes := make([]int, len(batches))
	for i, b := range batches {
		sizes[i] = len(b)
	}
	return flatten(batches), sizes
}

// A task's bytes say what to read, not how: a scan with a batch size
// serialises tasks without one, and the reader's ReadOptions decide the
// batches (DuckDB's lineitem, 51793 rows in one row group).
func TestSerialisedTaskReadsWithTheReadOptionsBatchSize(t *testing.T) {
	tbl := openFixture(t, "duckdb_lineitem_iceberg")
	ctx := context.Background()
	s, err := New(ctx, tbl, Options{Columns: []string{"l_orderkey", "_pos"}, BatchSize: 333, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	want, scanSizes := batchSizes(t, rr)
	if len(want) != 51793 || scanSizes[0] != 333 {
		t.Fatalf("the scan read %d rows in batches of %d", len(want), scanSizes[0])
	}
	raw, err := s.Tasks()[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"batch_size"`, `"limit"`, `"verify_crc"`} {
		if bytes.Contains(raw, []byte(key)) {
			t.Errorf("the serialised task carries %s: %s", key, raw)
		}
	}
	task, err := UnmarshalTask(raw)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, batch := range []int{0, 1000, 20000} {
		rr, err := task.Reader(ctx, fileio.Local{}, mem, ReadOptions{BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		got, sizes := batchSizes(t, rr)
		if !slices.Equal(got, want) {
			t.Fatalf("batch size %d: %d rows, not the scan's %d in its order", batch, len(got), len(want))
		}
		wantBatch := batch
		if batch == 0 {
			wantBatch = parquet.DefaultBatchSize // not the scan's 333
		}
		for i, n := range sizes {
			if n > wantBatch || n < wantBatch && i < len(sizes)-1 {
				t.Fatalf("batch size %d: batch %d of %d holds %d rows", batch, i, len(sizes), n)
			}
		}
	}
}

// oldForm is a serialised task as a floe before ReadOptions wrote it:
// the scan's batch_size, limit and verify_crc inside the task.
func oldForm(t *testing.T, task *Task, batchSize int, limit *int64, verifyCRC bool) []byte {
	t.Helper()
	raw, err := task.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	fields["batch_size"], _ = json.Marshal(batchSize)
	if limit != nil {
		fields["limit"], _ = json.Marshal(*limit)
	}
	if verifyCRC {
		fields["verify_crc"] = json.RawMessage("true")
	}
	out, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A task serialised by the previous floe, with batch_size, limit and
// verify_crc inside, still reads: its values apply where the reader's
// ReadOptions give none, and a group of such tasks keeps to the least
// limit its tasks carry, as it did.
func TestOldFormTaskStillReads(t *testing.T) {
	tbl := openFixture(t, "duckdb_lineitem_iceberg")
	ctx := context.Background()
	s, err := New(ctx, tbl, Options{Columns: []string{"l_orderkey", "_pos"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := batchSizes(t, rr)
	limit := int64(2500)
	raw := oldForm(t, s.Tasks()[0], 700, &limit, true)
	task, err := UnmarshalTask(raw)
	if err != nil {
		t.Fatal(err)
	}
	if read := (ReadOptions{}).forTask(task); !read.VerifyCRC || read.BatchSize != 700 || read.Limit == nil || *read.Limit != limit {
		t.Errorf("the old task's settings read as %+v", read)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err = task.Reader(ctx, fileio.Local{}, mem, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, sizes := batchSizes(t, rr)
	if !slices.Equal(got, all[:limit]) || sizes[0] != 700 {
		t.Errorf("the old task without read options gave %d rows in batches of %d, want its %d in batches of 700", len(got), sizes[0], limit)
	}
	// The reader's own settings win.
	ten := int64(10)
	rr, err = task.Reader(ctx, fileio.Local{}, mem, ReadOptions{BatchSize: 4, Limit: &ten})
	if err != nil {
		t.Fatal(err)
	}
	if got, sizes := batchSizes(t, rr); !slices.Equal(got, all[:10]) || !slices.Equal(sizes, []int{4, 4, 2}) {
		t.Errorf("read options over an old task gave batches %v", sizes)
	}
	// Passed on through this floe, the task keeps what it carried.
	again, err := task.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(again, []byte(`"batch_size":700`)) || !bytes.Contains(again, []byte(`"limit":2500`)) {
		t.Errorf("re-serialised, the old task lost its settings: %s", again)
	}
	// An old group: each task carries the scan's limit, which bounds the
	// group; the tightest one wins.
	low := int64(900)
	group := []byte(`{"group_version": 1, "tasks": [` + string(raw) + `,` + string(oldForm(t, s.Tasks()[0], 700, &low, false)) + `]}`)
	g, err := UnmarshalTaskGroup(group)
	if err != nil {
		t.Fatal(err)
	}
	rr, err = g.Reader(ctx, fileio.Local{}, mem, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := batchSizes(t, rr); !slices.Equal(got, all[:low]) {
		t.Errorf("an old group with limits %d and %d gave %d rows", limit, low, len(got))
	}
}

// A scan with a limit hands out groups that do not carry it; read with
// the scan's ReadOptions, each serialised group returns at most the limit,
// counted across its tasks, directly and host-driven, as the scan's
// groups did when the limit was in their bytes.
func TestGroupKeepsTheScanLimitThroughReadOptions(t *testing.T) {
	_, tbl := splitTable(t, testtable.Options{Rows: testtable.RandomRows(23, 1200), RowsPerFile: 100, RowsPerRowGroup: 50, Manifests: 1})
	ctx := context.Background()
	limit := int64(150)
	s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, SplitSize: 3 * DefaultOpenFileCost, Limit: &limit, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ReadOptions(); got.Limit == nil || *got.Limit != limit || got.BatchSize != parquet.DefaultBatchSize {
		t.Fatalf("the scan's read options are %+v", got)
	}
	groups := s.TaskGroups()
	if len(groups) != 4 || len(groups[0].Tasks) != 3 {
		t.Fatalf("%d groups, the first of %d tasks; want 4 of 3 files of 100 rows", len(groups), len(groups[0].Tasks))
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for i, g := range groups {
		raw, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalTaskGroup(raw)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := back.Reader(ctx, fileio.Local{}, mem, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		whole, _ := batchSizes(t, rr)
		if len(whole) != 300 {
			t.Fatalf("group %d without read options: %d rows, want its 300", i, len(whole))
		}
		rr, err = back.Reader(ctx, fileio.Local{}, mem, s.ReadOptions())
		if err != nil {
			t.Fatal(err)
		}
		limited, _ := batchSizes(t, rr)
		if !slices.Equal(limited, whole[:limit]) {
			t.Errorf("group %d with the scan's read options: %d rows, want its first %d", i, len(limited), limit)
		}
		h, err := back.HostIO(s.ReadOptions())
		if err != nil {
			t.Fatal(err)
		}
		if hosted, _, _ := driveHostIO(t, h, mem); len(hosted) != int(limit) {
			t.Errorf("group %d host-driven with the scan's read options: %d rows, want %d", i, len(hosted), limit)
		}
	}
	negative := int64(-1)
	for _, bad := range []ReadOptions{{Limit: &negative}, {BatchSize: -1}, {MemoryLimit: 1}} {
		if _, err := groups[0].Reader(ctx, fileio.Local{}, mem, bad); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("read options %+v: %v, want an invalid argument", bad, err)
		}
	}
}

// A task built by hand, with no Scan and no table planning, reads a
// fixture's data file with its position delete file applied (paths in the
// delete file remapped through the task's Locations) and returns what a
// scan of the table returns for that file: how changelog and
// position_deletes read files outside a scan. Impala's table of three
// partitions, each one data file and one position delete file.
func TestHandBuiltTaskReadsWithoutAScan(t *testing.T) {
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl := openFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos", "_file"}, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]idPos{}
	func() {
		defer rr.Release()
		for rr.Next() {
			rec := rr.RecordBatch()
			files := rec.Column(2).(*array.String)
			for i := range int(rec.NumRows()) {
				name := filepath.Base(files.Value(i))
				byFile[name] = append(byFile[name], idPos{id: integerAt(rec.Column(0), i), pos: rec.Column(1).(*array.Int64).Value(i)})
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
	}()
	fields := []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.IntType{}},
		{ID: FieldIDPos, Name: "_pos", Type: iceberg.LongType{}, Required: true},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dataFiles, _ := filepath.Glob(filepath.Join(fx.Dir, "data", "*", "*.parq"))
	if len(dataFiles) != 3 {
		t.Fatalf("%d data files in the fixture, want 3", len(dataFiles))
	}
	total := 0
	for _, path := range dataFiles {
		deletes, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*delete*.parquet"))
		if len(deletes) != 1 {
			t.Fatalf("%s: %d delete files beside it, want 1", path, len(deletes))
		}
		task := &Task{
			Version: taskFormatVersion, Path: path, FileFormat: "PARQUET", FileSize: fileSize(t, path),
			Fields: fields, Locations: fx.LocationMap,
			Deletes: []TaskDelete{{Path: deletes[0], Content: 1, FileFormat: "PARQUET", FileSize: fileSize(t, deletes[0])}},
		}
		got := readTaskWith(t, task, fileio.Local{}, mem, ReadOptions{BatchSize: 2})
		want := byFile[filepath.Base(path)]
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: the hand-built task read %v, the scan %v", filepath.Base(path), got, want)
		}
		total += len(got)
		// Without its delete file the task reads the file's every row.
		task.Deletes = nil
		if all := readTaskWith(t, task, fileio.Local{}, mem, ReadOptions{}); len(all) <= len(want) {
			t.Errorf("%s: %d rows without deletes, %d with", filepath.Base(path), len(all), len(want))
		}
	}
	if total != 10 {
		t.Errorf("the hand-built tasks read %d rows; Impala's test asserts 10", total)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
