package kernels

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherStruct gathers every child with the same positions; children are
// indexed through the parent's offset.
func gatherStruct(d arrow.ArrayData, rows rowSet, alloc memory.Allocator) (arrow.ArrayData, error) {
	children := make([]arrow.ArrayData, 0, len(d.Children()))
	for _, child := range d.Children() {
		sliced := sliceChild(child, d.Offset(), d.Len())
		out, err := gather(sliced, rows, alloc)
		sliced.Release()
		if err != nil {
			releaseData(children)
			return nil, err
		}
		children = append(children, out)
	}
	validity, nulls := gatherValidity(d, rows, alloc)
	return newData(d.DataType(), len(rows.idx), []*memory.Buffer{validity}, children, nulls, 0), nil
}

// gatherList gathers list and map rows: new offsets, and the child rows of
// every kept entry gathered in order. Null entries become empty.
func gatherList[O offsetInt](d arrow.ArrayData, rows rowSet, alloc memory.Allocator) (arrow.ArrayData, error) {
	idx := rows.idx
	n := len(idx)
	child := d.Children()[0]
	srcOffsets := view[O](bufferBytes(d, 1))
	if d.Len() > 0 {
		srcOffsets = srcOffsets[d.Offset() : d.Offset()+d.Len()+1]
	}
	if child.Len() > math.MaxInt32 {
		return nil, fmt.Errorf("kernels: %s child of %d values exceeds 32-bit positions", d.DataType(), child.Len())
	}
	validBits := bufferBytes(d, 0)
	hasNulls := nullCount(d) > 0

	offsets := newBuffer(alloc, (n+1)*int(unsafe.Sizeof(O(0))))
	out := view[O](offsets.Bytes())[:n+1]
	var total int64
	out[0] = 0
	for j, i := range idx {
		start, end := int64(srcOffsets[i]), int64(srcOffsets[i+1])
		if hasNulls && !bitutil.BitIsSet(validBits, d.Offset()+int(i)) {
			end = start
		}
		if start < 0 || end < start || end > int64(child.Len()) {
			offsets.Release()
			return nil, fmt.Errorf("kernels: %s offsets [%d, %d) of row %d are outside its %d child values", d.DataType(), start, end, i, child.Len())
		}
		total += end - start
		out[j+1] = O(total)
	}
	if total > math.MaxInt32 {
		offsets.Release()
		return nil, fmt.Errorf("kernels: gathering %d %s child values exceeds 32-bit positions", total, d.DataType())
	}
	childIdx := make([]int32, total)
	for j, i := range idx {
		start := int32(srcOffsets[i])
		run := childIdx[out[j]:out[j+1]]
		for k := range run {
			run[k] = start + int32(k)
		}
	}
	// Ascending rows give ascending, non-overlapping child ranges.
	outChild, err := gather(child, rowSet{idx: childIdx, sorted: rows.sorted}, alloc)
	if err != nil {
		offsets.Release()
		return nil, err
	}
	validity, nulls := gatherValidity(d, rows, alloc)
	return newData(d.DataType(), n, []*memory.Buffer{validity, offsets}, []arrow.ArrayData{outChild}, nulls, 0), nil
}

func gatherFixedSizeList(d arrow.ArrayData, rows rowSet, alloc memory.Allocator) (arrow.ArrayData, error) {
	idx := rows.idx
	size := int(d.DataType().(*arrow.FixedSizeListType).Len())
	child := d.Children()[0]
	total := len(idx) * size
	if total > math.MaxInt32 || (d.Offset()+d.Len())*size > child.Len() {
		return nil, fmt.Errorf("kernels: %s of %d rows does not fit its %d child values", d.DataType(), d.Len(), child.Len())
	}
	childIdx := make([]int32, total)
	for j, i := range idx {
		start := int32((d.Offset() + int(i)) * size)
		run := childIdx[j*size : (j+1)*size]
		for k := range run {
			run[k] = start + int32(k)
		}
	}
	outChild, err := gather(child, rowSet{idx: childIdx, sorted: rows.sorted}, alloc)
	if err != nil {
		return nil, err
	}
	validity, nulls := gatherValidity(d, rows, alloc)
	return newData(d.DataType(), len(idx), []*memory.Buffer{validity}, []arrow.ArrayData{outChild}, nulls, 0), nil
}
