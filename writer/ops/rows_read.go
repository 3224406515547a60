package ops

import (
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/puffin"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
)

// posField is the _pos metadata column, selected by its reserved id.
var posField = iceberg.NestedField{ID: scan.FieldIDPos, Name: "_pos", Type: iceberg.LongType{}, Required: true}

// scanPositions reads the tasks of a file (projecting only _pos) and
// returns the positions of the rows they return.
func (c *rowChange) scanPositions(tasks []*scan.Task) (*roaring64.Bitmap, error) {
	bm := roaring64.New()
	var buf []uint64
	for _, task := range tasks {
		var err error
		if buf, err = c.addPositions(bm, task, buf); err != nil {
			return nil, err
		}
	}
	return bm, nil
}

func (c *rowChange) addPositions(bm *roaring64.Bitmap, task *scan.Task, buf []uint64) ([]uint64, error) {
	rr, err := task.Reader(c.ctx, c.tbl.IO, memory.DefaultAllocator, scan.ReadOptions{})
	if err != nil {
		return buf, err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if rec.NumCols() != 1 {
			return buf, fmt.Errorf("a scan of _pos returned %d columns", rec.NumCols())
		}
		col, ok := rec.Column(0).(*array.Int64)
		if !ok {
			return buf, fmt.Errorf("_pos is a %s column", rec.Column(0).DataType())
		}
		buf = buf[:0]
		for _, p := range col.Int64Values() {
			buf = append(buf, uint64(p))
		}
		bm.AddMany(buf)
	}
	return buf, rr.Err()
}

// unfiltered are the tasks reading fields, without the filter: every row
// the table holds in their part of the file, deletes applied.
func unfiltered(tasks []*scan.Task, fields []iceberg.NestedField) []*scan.Task {
	out := make([]*scan.Task, len(tasks))
	for i, task := range tasks {
		t := *task
		t.Filter, t.FilterFields = nil, nil
		t.Fields = fields
		out[i] = &t
	}
	return out
}

// livePositions are the positions of a file's rows that deletes leave.
func (c *rowChange) livePositions(tasks []*scan.Task) (*roaring64.Bitmap, error) {
	return c.scanPositions(unfiltered(tasks, []iceberg.NestedField{posField}))
}

// rewrite writes the rows of a data file that stay (those not in
// matched, deletes applied) as new data files of its partition, and
// returns their entries; none when no row stays.
func (c *rowChange) rewrite(dt *table.DataFileTask, tasks []*scan.Task, matched *roaring64.Bitmap) ([]manifest.DataFile, error) {
	spec := c.md.SpecByID(dt.File.SpecID)
	if spec == nil {
		return nil, fmt.Errorf("partition spec %d is not in the table", dt.File.SpecID)
	}
	w, err := writer.New(c.ctx, c.tbl.IO, c.dataLoc, c.md.CurrentSchema(), spec, c.wopts)
	if err != nil {
		return nil, err
	}
	fields := append(slices.Clone(c.plan.Schema.Fields), posField)
	var schema *arrow.Schema
	for _, task := range unfiltered(tasks, fields) {
		if err = c.copyRows(w, task, matched, &schema); err != nil {
			break
		}
	}
	var files []manifest.DataFile
	if err == nil {
		files, err = w.Close()
	}
	if err != nil {
		_ = w.Abort()
		return nil, err
	}
	for i := range files {
		c.w.add(files[i].FilePath)
	}
	want := table.PartitionKey(dt.File.SpecID, dt.File.Partition)
	for i := range files {
		if got := table.PartitionKey(files[i].SpecID, files[i].Partition); got != want {
			return nil, fmt.Errorf("its rows rewritten land in partition %s, the file is in %s", got, want)
		}
	}
	return files, nil
}

// copyRows writes the rows a task reads, less those whose _pos (the last
// column) is in matched, to w. schema is the batches' schema less _pos,
// kept across calls so the writer binds it once.
func (c *rowChange) copyRows(w *writer.Writer, task *scan.Task, matched *roaring64.Bitmap, schema **arrow.Schema) error {
	rr, err := task.Reader(c.ctx, c.tbl.IO, memory.DefaultAllocator, scan.ReadOptions{})
	if err != nil {
		return err
	}
	defer rr.Release()
	cursor := puffin.NewPositionCursor(matched)
	var keep []byte
	var hits []int64
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		last := int(rec.NumCols()) - 1
		if n == 0 {
			continue
		}
		pos, ok := rec.Column(last).(*array.Int64)
		if !ok {
			return fmt.Errorf("_pos is a %s column", rec.Column(last).DataType())
		}
		if *schema == nil {
			*schema = arrow.NewSchema(rec.Schema().Fields()[:last], nil)
		}
		positions := pos.Int64Values()
		hits = cursor.Append(hits[:0], positions[0], positions[n-1]+1)
		data := array.NewRecordBatch(*schema, rec.Columns()[:last], int64(n))
		if len(hits) == 0 {
			err := w.Write(data)
			data.Release()
			if err != nil {
				return err
			}
			continue
		}
		keep = keepBitmap(keep, positions, hits)
		kept, err := kernels.FilterRecord(data, keep, memory.DefaultAllocator)
		data.Release()
		if err != nil {
			return err
		}
		if kept.NumRows() > 0 {
			err = w.Write(kept)
		}
		kept.Release()
		if err != nil {
			return err
		}
	}
	return rr.Err()
}

// keepBitmap sets a bit for every row whose position (ascending) is not
// among hits (ascending).
func keepBitmap(dst []byte, positions, hits []int64) []byte {
	n := len(positions)
	size := (n + 7) / 8
	dst = slices.Grow(dst[:0], size)[:size]
	for i := range dst {
		dst[i] = 0xFF
	}
	j := 0
	for i, p := range positions {
		for j < len(hits) && hits[j] < p {
			j++
		}
		if j == len(hits) {
			break
		}
		if hits[j] == p {
			dst[i>>3] &^= 1 << (i & 7)
		}
	}
	return dst
}
