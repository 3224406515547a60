package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// checksum is what a scan saw: every peer must agree on it, which shows
// they read the same rows and nothing was skipped.
type checksum struct {
	Rows       int64 `json:"rows"`
	SumPartKey int64 `json:"sum_l_partkey"`
	// DecodedBytes is the size of the Arrow buffers a scan produced (Arrow
	// peers only): the yardstick for Go allocations.
	DecodedBytes int64 `json:"-"`
}

func (c checksum) String() string {
	return fmt.Sprintf("%d rows, sum(l_partkey) %d", c.Rows, c.SumPartKey)
}

// consumeRecord touches every column of a batch the way an aggregate
// would (sums of numbers, total string length), so no peer can skip
// decoding, and adds l_partkey to the checksum.
func consumeRecord(rec arrow.RecordBatch, sum *checksum, sink *float64) {
	sum.Rows += rec.NumRows()
	for i, col := range rec.Columns() {
		for _, b := range col.Data().Buffers() {
			if b != nil {
				sum.DecodedBytes += int64(b.Len())
			}
		}
		name := rec.Schema().Field(i).Name
		switch a := col.(type) {
		case *array.Int64:
			var s int64
			for _, v := range a.Int64Values() {
				s += v
			}
			if name == "l_partkey" {
				sum.SumPartKey += s
			}
			*sink += float64(s)
		case *array.Float64:
			for _, v := range a.Float64Values() {
				*sink += v
			}
		case *array.Decimal128:
			var s uint64
			for _, v := range a.Values() {
				s += v.LowBits()
			}
			*sink += float64(s)
		case *array.Date32:
			var s int64
			for _, v := range a.Date32Values() {
				s += int64(v)
			}
			*sink += float64(s)
		case *array.String:
			if n := a.Len(); n > 0 {
				*sink += float64(a.ValueOffset(n-1) + a.ValueLen(n-1) - a.ValueOffset(0))
			}
		case *array.Binary:
			if n := a.Len(); n > 0 {
				*sink += float64(a.ValueOffset(n-1) + a.ValueLen(n-1) - a.ValueOffset(0))
			}
		case *array.Dictionary:
			*sink += float64(a.Len())
		default:
			*sink += float64(a.Len())
		}
	}
}
