package writer

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/parquet-go/parquet-go"
)

// valuesPerWrite bounds the values handed to a column writer at once, so
// pages are cut close to the page size (parquet-go cuts only between calls).
const valuesPerWrite = 2048

// leafWriter converts one leaf column of the current batch; it owns the
// scratch buffers, so leaves can be converted in parallel.
type leafWriter struct {
	leaf    *leafColumn
	index   int // in fileSchema.leaves
	arrays  []arrow.Array
	steps   []levelStep
	data    leafData
	levels  levelBuffer
	vals    []parquet.Value
	scratch []byte
	// cost is the nanoseconds a value of this column took lately, when
	// columns are written in parallel (writeLeaves orders them by it).
	cost float64
}

// bind points the leaf at a batch's column.
func (lw *leafWriter) bind(rec arrow.RecordBatch, lb *leafBinding) error {
	lw.arrays = leafArrays(lw.arrays, rec, lw.leaf, lb)
	var err error
	if lw.steps, err = bindSteps(lw.steps, lw.leaf, lw.arrays); err != nil {
		return err
	}
	lw.data.conv, lw.data.scale, lw.data.decBytes = lb.conv, lb.scale, lb.decBytes
	return bindLeafData(&lw.data, lw.leaf, lw.arrays[len(lw.arrays)-1])
}

// write appends rows (rows[k], or first+k when rows is nil; n of them) of
// the batch to the leaf's column in f.
func (lw *leafWriter) write(f *dataFile, rows []int32, first, n int, pageRowLimit int) error {
	if err := lw.levels.fill(lw.steps, lw.leaf, rows, first, n); err != nil {
		return err
	}
	cw := f.pw.ColumnWriters()[lw.leaf.index]
	st := &f.stats[lw.index]
	total := len(lw.levels.idx)
	defer clear(lw.vals[:cap(lw.vals)]) // drop pointers into the batch
	for from := 0; from < total; {
		// Cut at the page row limit as well as at valuesPerWrite, and only
		// between rows.
		rowsLeft := max(1, pageRowLimit-f.pageRows[lw.index])
		to, rowsInChunk := from, 0
		if lw.leaf.maxRep == 0 {
			to = min(from+min(valuesPerWrite, rowsLeft), total)
			rowsInChunk = to - from
		} else {
			for to < total {
				if lw.levels.reps[to] == 0 {
					if rowsInChunk == rowsLeft || to-from >= valuesPerWrite {
						break
					}
					rowsInChunk++
				}
				to++
			}
		}
		vals, err := encodeLeaf(lw.vals[:0], &lw.scratch, &lw.levels, from, to, &lw.data, lw.leaf, lw.leaf.index, st)
		lw.vals = vals
		if err != nil {
			return err
		}
		if _, err := cw.WriteRowValues(vals); err != nil {
			return fmt.Errorf("column %q (id %d): %w", lw.leaf.field.Name, lw.leaf.field.ID, err)
		}
		f.pageRows[lw.index] += rowsInChunk
		if f.pageRows[lw.index] >= pageRowLimit {
			f.pageRows[lw.index] = 0
			if err := cw.Flush(); err != nil {
				return fmt.Errorf("column %q (id %d): %w", lw.leaf.field.Name, lw.leaf.field.ID, err)
			}
		}
		from = to
	}
	return nil
}
