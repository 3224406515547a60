package writer

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/writer/parquetfile"
)

// valuesPerWrite bounds the level entries handed to a column chunk at
// once: pages end only between writes, so this keeps them close to the
// page size.
const valuesPerWrite = 2048

// leafWriter converts one leaf column of the current batch; it owns the
// scratch buffers, so leaves can be converted in parallel.
type leafWriter struct {
	leaf   *leafColumn
	index  int // in fileSchema.leaves
	arrays []arrow.Array
	steps  []levelStep
	data   leafData
	levels levelBuffer
	vals   parquetfile.Values
	buf    valueBuffers
	// cost is the nanoseconds a value of this column took lately, when
	// columns are written in parallel (writeLeaves orders them by it).
	cost float64
}

// bind points the leaf at a batch's column.
func (lw *leafWriter) bind(rec arrow.RecordBatch, lb *leafBinding) error {
	var err error
	if lw.arrays, err = leafArrays(lw.arrays, rec, lw.leaf, lb); err != nil {
		return err
	}
	if lw.steps, err = bindSteps(lw.steps, lw.leaf, lw.arrays); err != nil {
		return err
	}
	lw.data.conv, lw.data.scale, lw.data.decBytes = lb.conv, lb.scale, lb.decBytes
	return bindLeafData(&lw.data, lw.leaf, lw.arrays[len(lw.arrays)-1])
}

// write appends rows (rows[k], or first+k when rows is nil; n of them) of
// the batch to the leaf's column in f.
func (lw *leafWriter) write(f *dataFile, rows []int32, first, n int) error {
	if err := lw.levels.fill(lw.steps, lw.leaf, rows, first, n); err != nil {
		return err
	}
	chunk := f.pf.Chunk(lw.leaf.index)
	st := &f.stats[lw.index]
	total := len(lw.levels.idx)
	defer lw.buf.release() // drop pointers into the batch
	for from := 0; from < total; {
		// Cut at the page row limit as well as at valuesPerWrite, and only
		// between rows.
		rowsLeft := chunk.RowsLeft()
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
		if err := encodeLeaf(&lw.vals, &lw.buf, &lw.levels, from, to, &lw.data, lw.leaf, st); err != nil {
			return err
		}
		var reps, defs []byte
		if lw.leaf.maxRep > 0 {
			reps = lw.levels.reps[from:to]
		}
		if lw.leaf.maxDef > 0 {
			defs = lw.levels.defs[from:to]
		}
		if err := chunk.Write(reps, defs, to-from, rowsInChunk, &lw.vals); err != nil {
			return fmt.Errorf("column %q (id %d): %w", lw.leaf.field.Name, lw.leaf.field.ID, err)
		}
		if chunk.Full() {
			if err := chunk.FlushPage(); err != nil {
				return fmt.Errorf("column %q (id %d): %w", lw.leaf.field.Name, lw.leaf.field.ID, err)
			}
		}
		from = to
	}
	return nil
}
