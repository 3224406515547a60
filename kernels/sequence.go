package kernels

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Sequence returns the int64 array start, start+1, …, start+n-1 (row
// positions, computed row ids).
func Sequence(start int64, n int, alloc memory.Allocator) (*array.Int64, error) {
	if n < 0 {
		return nil, fmt.Errorf("kernels: negative length %d", n)
	}
	buf := newBuffer(alloc, n*8)
	vals := view[int64](buf.Bytes())
	for i := range vals[:n] {
		vals[i] = start + int64(i)
	}
	return makeArray(newData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)).(*array.Int64), nil
}

// CoalesceInt64 returns a where it is valid and fill where a is null; both
// must have n rows. Without nulls in a, a itself is returned (retained).
func CoalesceInt64(a, fill *array.Int64, alloc memory.Allocator) (*array.Int64, error) {
	if a.Len() != fill.Len() {
		return nil, fmt.Errorf("kernels: coalesce of %d and %d rows", a.Len(), fill.Len())
	}
	if a.NullN() == 0 {
		a.Retain()
		return a, nil
	}
	n := a.Len()
	buf := newBuffer(alloc, n*8)
	out := view[int64](buf.Bytes())[:n]
	av, fv := a.Int64Values(), fill.Int64Values()
	bitmap := a.NullBitmapBytes()
	nulls := 0
	var validity *memory.Buffer
	if fill.NullN() > 0 {
		validity = newZeroedBuffer(alloc, int(bitutil.BytesForBits(int64(n))))
	}
	for i := 0; i < n; i++ {
		valid := bitutil.BitIsSet(bitmap, a.Offset()+i)
		switch {
		case valid:
			out[i] = av[i]
		case fill.IsValid(i):
			out[i] = fv[i]
		default:
			out[i] = 0
			nulls++
			continue
		}
		if validity != nil {
			bitutil.SetBit(validity.Bytes(), i)
		}
	}
	if nulls == 0 && validity != nil {
		validity.Release()
		validity = nil
	}
	return makeArray(newData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{validity, buf}, nil, nulls, 0)).(*array.Int64), nil
}
