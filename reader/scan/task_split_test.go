package scan

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

// splitTable builds a generated table and opens it.
func splitTable(t *testing.T, opts testtable.Options) (*testtable.Table, *table.Table) {
	t.Helper()
	built, err := testtable.Build(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), built.Location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return built, tbl
}

// filePositions maps each generated row's id to its position in its data
// file, from what testtable wrote, not from what the reader reads.
func filePositions(built *testtable.Table) map[int64]int64 {
	pos := map[int64]int64{}
	for _, f := range built.Files {
		for p, row := range f.Rows {
			pos[built.Rows[row][0].(int64)] = int64(p)
		}
	}
	return pos
}

// idPos is one row of a scan of id, _pos (and _row_id when asked).
type idPos struct{ id, pos, rowID int64 }

// collect reads every batch of rr, returning the rows batch by batch;
// columns are id, _pos and optionally _row_id.
func collect(t *testing.T, rr array.RecordReader) [][]idPos {
	t.Helper()
	defer rr.Release()
	var out [][]idPos
	for rr.Next() {
		rec := rr.RecordBatch()
		pos := rec.Column(1).(*array.Int64)
		batch := make([]idPos, rec.NumRows())
		for i := range batch {
			batch[i] = idPos{id: integerAt(rec.Column(0), i), pos: pos.Value(i)}
			if rec.NumCols() > 2 {
				batch[i].rowID = rec.Column(2).(*array.Int64).Value(i)
			}
		}
		out = append(out, batch)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// integerAt reads an int or long id column.
func integerAt(a arrow.Array, i int) int64 {
	if ints, ok := a.(*array.Int32); ok {
		return int64(ints.Value(i))
	}
	return a.(*array.Int64).Value(i)
}

func flatten(batches [][]idPos) []idPos { return slices.Concat(batches...) }

// readTask reads one task on its own, as another process would.
func readTask(t *testing.T, task *Task, files fileio.FileIO, mem memory.Allocator) []idPos {
	t.Helper()
	return readTaskWith(t, task, files, mem, ReadOptions{})
}

// readTaskWith is readTask with read settings.
func readTaskWith(t *testing.T, task *Task, files fileio.FileIO, mem memory.Allocator, opts ReadOptions) []idPos {
	t.Helper()
	rr, err := task.Reader(context.Background(), files, mem, opts)
	if err != nil {
		t.Fatal(err)
	}
	return flatten(collect(t, rr))
}

// The file ranges of a split plan tile the file: contiguous, from 0 to
// its size, and no bigger than the split size unless one row group is.
func TestSplitFileRanges(t *testing.T) {
	const size = 1000
	cases := []struct {
		name     string
		fileSize int64
		offsets  []int64
		want     []byteSplit
	}{
		{"small file", 900, []int64{4, 300}, []byteSplit{{0, 900}}},
		{"offsets grouped up to the split size", 2500, []int64{4, 400, 800, 1200, 1600, 2400},
			[]byteSplit{{0, 800}, {800, 800}, {1600, 900}}},
		{"a row group bigger than the split size", 5000, []int64{4, 3000, 3500}, []byteSplit{{0, 3000}, {3000, 500}, {3500, 1500}}},
		{"one row group", 5000, []int64{4}, []byteSplit{{0, 5000}}},
		{"no offsets", 2500, nil, []byteSplit{{0, 1000}, {1000, 1000}, {2000, 500}}},
		{"unsorted offsets", 2500, []int64{4, 1200, 800}, []byteSplit{{0, 1000}, {1000, 1000}, {2000, 500}}},
		{"an offset past the end", 2500, []int64{4, 1200, 2500}, []byteSplit{{0, 1000}, {1000, 1000}, {2000, 500}}},
	}
	for _, c := range cases {
		if got := splitFile(c.fileSize, c.offsets, size); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// A tiny split size cannot plan a task per byte.
	got := splitFile(1<<30, nil, 1)
	if len(got) != maxFixedSplits {
		t.Errorf("%d ranges for a 1 GiB file at split size 1, want %d", len(got), maxFixedSplits)
	}
	if last := got[len(got)-1]; last.start+last.length != 1<<30 || got[0].start != 0 {
		t.Errorf("the capped ranges do not tile the file: first %v, last %v", got[0], last)
	}
}

// Each split of a file reads the row groups whose midpoint lies in it:
// across the splits of a file every row comes exactly once, with its
// position in the whole file, whether the ranges follow the manifest's
// split offsets or fixed boundaries.
func TestSplitsReadEveryRowOnce(t *testing.T) {
	built, tbl := splitTable(t, testtable.Options{
		Rows: testtable.RandomRows(11, 4500), RowsPerFile: 1500, RowsPerRowGroup: 100, RowsPerPage: 30, Manifests: 1,
	})
	positions := filePositions(built)
	ctx := context.Background()
	whole, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Tasks()) != 3 {
		t.Fatalf("%d tasks at the default split size, want the 3 files", len(whole.Tasks()))
	}
	fileSize := whole.Tasks()[0].FileSize
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, size := range []int64{fileSize / 40, fileSize / 10, fileSize / 3, fileSize/2 + 1} {
		s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, Threads: 1, SplitSize: size})
		if err != nil {
			t.Fatal(err)
		}
		byOffsets := s.Tasks()
		var fixed []*Task
		for _, task := range whole.Tasks() {
			if offsets := splitOffsetsOf(t, tbl, task.WrittenPath); len(offsets) != 15 {
				t.Fatalf("the manifest lists %d split offsets, want one per row group (15)", len(offsets))
			}
			fixed = append(fixed, splitTask(task, nil, size)...)
		}
		for _, plan := range []struct {
			name  string
			tasks []*Task
		}{{"split offsets", byOffsets}, {"fixed boundaries", fixed}} {
			if len(plan.tasks) <= 3 {
				t.Fatalf("split size %d, %s: %d tasks, want more than the 3 files", size, plan.name, len(plan.tasks))
			}
			seen := map[int64]int{}
			for _, task := range plan.tasks {
				rows := readTask(t, task, tbl.IO, mem)
				if plan.name == "split offsets" && len(rows) == 0 {
					t.Errorf("split size %d: the split [%d, +%d) of %s, cut at row group starts, read no row", size, task.Start, task.Length, filepath.Base(task.Path))
				}
				for _, r := range rows {
					seen[r.id]++
					if r.pos != positions[r.id] {
						t.Fatalf("split size %d, %s: id %d has _pos %d, want %d", size, plan.name, r.id, r.pos, positions[r.id])
					}
				}
			}
			if len(seen) != len(built.Rows) {
				t.Errorf("split size %d, %s: %d distinct rows, want %d", size, plan.name, len(seen), len(built.Rows))
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("split size %d, %s: id %d read %d times", size, plan.name, id, n)
				}
			}
		}
	}
}

// A limit pushed into a split counts the split's own rows: a split read
// with the scan's read options returns at most the scan's limit.
func TestSplitHonoursItsLimit(t *testing.T) {
	_, tbl := splitTable(t, testtable.Options{Rows: testtable.RandomRows(5, 2000), RowsPerFile: 2000, RowsPerRowGroup: 100})
	ctx := context.Background()
	limit := int64(60) // below a row group, so each split holds more
	s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, Threads: 1, SplitSize: 1, Limit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	tasks := s.Tasks()
	if len(tasks) < 3 {
		t.Fatalf("%d tasks, want splits", len(tasks))
	}
	for _, task := range tasks {
		rows := readTaskWith(t, task, tbl.IO, memory.DefaultAllocator, s.ReadOptions())
		if int64(len(rows)) != limit {
			t.Fatalf("a split with limit %d returned %d rows", limit, len(rows))
		}
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rows := flatten(collect(t, rr))
	if int64(len(rows)) != limit || rows[0].id != 0 || rows[len(rows)-1].id != limit-1 {
		t.Errorf("the scan returned %d rows (%v .. %v), want ids 0..%d", len(rows), rows[0], rows[len(rows)-1], limit-1)
	}
}

// Position deletes and row lineage stay those of the whole file when the
// file is read in splits: each split drops exactly the deleted positions
// of its row groups, including runs that cross split boundaries and a
// whole deleted row group.
func TestSplitsApplyPositionDeletes(t *testing.T) {
	built, tbl := splitTable(t, testtable.Options{
		Rows: testtable.RandomRows(13, 3000), RowsPerFile: 3000, RowsPerRowGroup: 200, RowsPerPage: 50, Manifests: 1,
	})
	ctx := context.Background()
	s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos", "_row_id"}, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	base := *s.Tasks()[0]
	firstRowID := int64(1_000_000)
	base.FirstRowID = &firstRowID
	deleted := map[int64]bool{}
	for p := int64(400); p < 600; p += 3 { // scattered in row group 2
		deleted[p] = true
	}
	for p := int64(1000); p < 1200; p++ { // all of row group 5
		deleted[p] = true
	}
	for p := int64(1750); p < 2450; p++ { // a run over row groups 8 to 12
		deleted[p] = true
	}
	var dels []map[string]any
	for p := range int64(3000) {
		if deleted[p] {
			dels = append(dels, map[string]any{"file_path": base.Path, "pos": p})
		}
	}
	delPath := filepath.Join(built.Location, "data", "pos-deletes.parquet")
	writeParquet(t, delPath, pq.Group{
		"file_path": pq.FieldID(pq.Required(pq.String()), fieldIDDeleteFilePath),
		"pos":       pq.FieldID(pq.Required(pq.Int(64)), fieldIDDeletePos),
	}, dels)
	base.Deletes = []TaskDelete{{Path: delPath, Content: 1, FileFormat: "parquet", RecordCount: int64(len(dels))}}

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	wholeRows := readTask(t, &base, tbl.IO, mem)
	if len(wholeRows) != 3000-len(deleted) {
		t.Fatalf("the whole file gave %d rows, want %d", len(wholeRows), 3000-len(deleted))
	}
	positions := filePositions(built)
	for _, offsets := range [][]int64{splitOffsetsOf(t, tbl, base.WrittenPath), nil} {
		for _, size := range []int64{base.FileSize / 9, base.FileSize / 4} {
			splits := splitTask(&base, offsets, size)
			if len(splits) < 3 {
				t.Fatalf("%d splits, want several", len(splits))
			}
			// The splits read as one group, serialised, read the file once.
			raw, err := (&TaskGroup{Tasks: splits}).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			g, err := UnmarshalTaskGroup(raw)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := g.Reader(ctx, tbl.IO, mem, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := flatten(collect(t, rr))
			if !slices.Equal(got, wholeRows) {
				t.Fatalf("offsets %v, split size %d: the splits gave %d rows, the whole file %d", offsets != nil, size, len(got), len(wholeRows))
			}
			for _, r := range got {
				if deleted[r.pos] || r.pos != positions[r.id] || r.rowID != firstRowID+r.pos {
					t.Fatalf("row %+v: deleted %v, want _pos %d and _row_id %d", r, deleted[r.pos], positions[r.id], firstRowID+r.pos)
				}
			}
		}
	}
}

// Midpoints decide which split reads a row group: checked on the footer
// of a real generated file against its own offsets.
func TestReadsRowGroupByMidpoint(t *testing.T) {
	task := &Task{FileSize: 1000, Start: 200, Length: 300}
	rg := func(start, size int64) *parquet.RowGroup {
		return &parquet.RowGroup{Columns: []parquet.ColumnChunk{{DataPageOffset: start, TotalCompressedSize: size / 2}, {DataPageOffset: start + size/2, TotalCompressedSize: size / 2}}}
	}
	for _, c := range []struct {
		start, size int64
		want        bool
	}{
		{100, 200, true},   // midpoint 200: the range's first byte
		{100, 198, false},  // midpoint 199
		{400, 200, false},  // midpoint 500: the next range's
		{400, 198, true},   // midpoint 499
		{4, 900, true},     // one row group over the whole range
		{-150, 100, false}, // garbage offsets before the file
		{2000, 100, false}, // past the end: the last range's
	} {
		if got := task.readsRowGroup(rg(c.start, c.size)); got != c.want {
			t.Errorf("row group at %d of %d bytes: reads %v, want %v", c.start, c.size, got, c.want)
		}
	}
	first := &Task{FileSize: 1000, Start: 0, Length: 500}
	last := &Task{FileSize: 1000, Start: 500, Length: 500}
	if !first.readsRowGroup(rg(-150, 100)) || last.readsRowGroup(rg(-150, 100)) {
		t.Error("a row group whose midpoint lies before the file belongs to the first range only")
	}
	if first.readsRowGroup(rg(2000, 100)) || !last.readsRowGroup(rg(2000, 100)) {
		t.Error("a row group whose midpoint lies past the file's end belongs to the last range only")
	}
	// Dictionary pages start a chunk when they come first.
	dict := &parquet.RowGroup{Columns: []parquet.ColumnChunk{{DictionaryPageOffset: 150, DataPageOffset: 600, TotalCompressedSize: 120}}}
	if got := rowGroupMidpoint(dict); got != 210 {
		t.Errorf("midpoint %d, want 150 + 120/2", got)
	}
}

func (r idPos) String() string {
	return fmt.Sprintf("{id %d _pos %d _row_id %d}", r.id, r.pos, r.rowID)
}

// splitOffsetsOf is the split offsets the table's manifest lists for the
// data file written at path (a scan keeps only what filters need).
func splitOffsetsOf(t *testing.T, tbl *table.Table, path string) []int64 {
	t.Helper()
	plan, err := tbl.PlanFilesFiltered(context.Background(), table.SnapshotSelector{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range plan.Tasks {
		if task.File.FilePath == path {
			return task.File.SplitOffsets
		}
	}
	t.Fatalf("no planned file %s", path)
	return nil
}
