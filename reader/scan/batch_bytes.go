package scan

import "github.com/apache/arrow-go/v18/arrow"

// recordBytes is the memory a batch's buffers hold.
func recordBytes(rec arrow.RecordBatch) int64 {
	if rec == nil {
		return 0
	}
	var n int64
	for _, col := range rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, child := range d.Children() {
		n += dataBytes(child)
	}
	return n
}
