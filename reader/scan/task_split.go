package scan

// Byte-range splits: a data file larger than the scan's split size is read
// by several tasks, each owning the row groups whose midpoint lies in its
// byte range. The midpoint rule (the one Iceberg's Java and Spark readers
// use) puts every row group in exactly one range, wherever the range
// boundaries fall, so planning needs no footer.

import (
	"fmt"
	"math"

	"github.com/floedb/floe/reader/parquet"
)

// checkRange refuses a byte range that no planner makes: negative, or
// ending past what an int64 can say.
func (t *Task) checkRange() error {
	if t.Start < 0 || t.Length < 0 || t.Start > math.MaxInt64-t.Length {
		return fmt.Errorf("bad byte range: start %d, length %d", t.Start, t.Length)
	}
	return nil
}

// readsRowGroup reports whether the row group belongs to the task's byte
// range. The first range of a file reaches back past offset 0 and the last
// one on past the file's end, so that no row group is lost to a footer
// whose offsets disagree with the manifest's file size.
func (t *Task) readsRowGroup(rg *parquet.RowGroup) bool {
	if t.Length == 0 {
		return true
	}
	mid := rowGroupMidpoint(rg)
	if t.Start > 0 && mid < t.Start {
		return false
	}
	end := t.Start + t.Length
	return end >= t.FileSize || mid < end
}

// rowGroupMidpoint is where the row group's first column chunk starts
// plus half the group's compressed size.
func rowGroupMidpoint(rg *parquet.RowGroup) int64 {
	if len(rg.Columns) == 0 {
		return rg.FileOffset
	}
	var size int64
	for i := range rg.Columns {
		size += rg.Columns[i].TotalCompressedSize
	}
	return rg.Columns[0].Start() + size/2
}

// rangeBytes is how much of its file the task reads.
func (t *Task) rangeBytes() int64 {
	if t.Length > 0 {
		return t.Length
	}
	return t.FileSize
}

// advanceRowGroup moves the reader to the next row group of its task's
// byte range, false past the last. The row groups it passes over still
// count in rgStart, so positions stay those of the whole file.
func (r *taskReader) advanceRowGroup() bool {
	if r.rowGroup >= len(r.file.RowGroups) {
		return false // already past the last: Next after the end stays false
	}
	for {
		if r.rowGroup >= 0 {
			r.rgStart += r.file.RowGroups[r.rowGroup].NumRows
		}
		r.rowGroup++
		if r.rowGroup >= len(r.file.RowGroups) {
			return false
		}
		if r.task.readsRowGroup(&r.file.RowGroups[r.rowGroup]) {
			return true
		}
	}
}
