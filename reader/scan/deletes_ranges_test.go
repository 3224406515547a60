package scan

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

func writeParquet(t *testing.T, path string, group pq.Group, rows []map[string]any, opts ...pq.WriterOption) {
	t.Helper()
	var buf bytes.Buffer
	w := pq.NewGenericWriter[map[string]any](&buf, append([]pq.WriterOption{pq.NewSchema("t", group)}, opts...)...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Long runs of deleted rows are skipped through row ranges, whole deleted
// row groups are not decoded, and what survives is exactly the rows no
// delete names, with their original positions.
func TestPositionDeletesSkipDeletedRuns(t *testing.T) {
	// Both ways of reading a position delete file: every (file_path, pos)
	// row, and only pos when the manifest names the one data file.
	for _, referenced := range []bool{false, true} {
		testPositionDeletesSkipDeletedRuns(t, referenced)
	}
}

func testPositionDeletesSkipDeletedRuns(t *testing.T, referenced bool) {
	dir := t.TempDir()
	const rows = 50000
	data := make([]map[string]any, rows)
	for i := range data {
		data[i] = map[string]any{"id": int64(i), "v": fmt.Sprintf("v%d", i)}
	}
	dataPath := filepath.Join(dir, "data.parquet")
	writeParquet(t, dataPath, pq.Group{
		"id": pq.FieldID(pq.Required(pq.Int(64)), 1),
		"v":  pq.FieldID(pq.String(), 2),
	}, data, pq.PageBufferSize(4096), pq.MaxRowsPerRowGroup(20000))

	deleted := map[int64]bool{}
	for i := int64(5000); i < 15000; i++ { // a long run inside row group 0
		deleted[i] = true
	}
	for i := int64(30000); i < 40000; i += 7 { // scattered in row group 1
		deleted[i] = true
	}
	for i := int64(40000); i < rows; i++ { // all of row group 2
		deleted[i] = true
	}
	var dels []map[string]any
	for i := int64(0); i < rows; i++ {
		if deleted[i] {
			dels = append(dels, map[string]any{"file_path": dataPath, "pos": i})
		}
	}
	delPath := filepath.Join(dir, "deletes.parquet")
	writeParquet(t, delPath, pq.Group{
		"file_path": pq.FieldID(pq.Required(pq.String()), fieldIDDeleteFilePath),
		"pos":       pq.FieldID(pq.Required(pq.Int(64)), fieldIDDeletePos),
	}, dels)

	task := &Task{
		Version: taskFormatVersion, Path: dataPath, FileFormat: "parquet",
		Fields: []iceberg.NestedField{
			{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
			{ID: 2, Name: "v", Type: iceberg.StringType{}},
			{ID: FieldIDPos, Name: "_pos", Type: iceberg.LongType{}, Required: true},
		},
		Deletes: []TaskDelete{{Path: delPath, Content: 1, FileFormat: "parquet", RecordCount: int64(len(dels))}},
	}
	if referenced {
		task.Deletes[0].ReferencedDataFile = dataPath
	}
	// The task survives serialisation, as a distributed reader would get it.
	raw, err := task.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if task, err = UnmarshalTask(raw); err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	rr, err := task.open(ctx, readEnv{files: fileio.Local{}, alloc: mem, schema: mustSchema(t, task)})
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.aliveRanges(20000); len(got) != 2 || got[0] != (parquet.RowRange{Start: 0, End: 5000}) || got[1] != (parquet.RowRange{Start: 15000, End: 20000}) {
		t.Errorf("row group 0 ranges %v, want [0,5000) and [15000,20000)", got)
	}
	next := int64(0)
	for rr.Next() {
		rec := rr.RecordBatch()
		ids := rec.Column(0).(*array.Int64)
		vs := rec.Column(1).(*array.String)
		pos := rec.Column(2).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			for deleted[next] {
				next++
			}
			if ids.Value(i) != next || pos.Value(i) != next || vs.Value(i) != fmt.Sprintf("v%d", next) {
				t.Fatalf("row: id %d, _pos %d, v %s; want %d", ids.Value(i), pos.Value(i), vs.Value(i), next)
			}
			next++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	for deleted[next] {
		next++
	}
	if next != rows {
		t.Errorf("the scan stopped at row %d of %d", next, rows)
	}
}

func mustSchema(t *testing.T, task *Task) *arrow.Schema {
	t.Helper()
	s, err := arrowschema.ArrowSchema(task.Fields)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
