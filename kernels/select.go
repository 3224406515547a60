package kernels

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Take returns the rows of arr at indices (positions relative to arr's
// start; any order, repeats allowed) as a new array.
func Take(arr arrow.Array, indices []int32, alloc memory.Allocator) (arrow.Array, error) {
	sorted, err := checkIndices(indices, arr.Len())
	if err != nil {
		return nil, err
	}
	d, err := gather(arr.Data(), rowSet{idx: indices, sorted: sorted}, alloc)
	if err != nil {
		return nil, err
	}
	return makeArray(d), nil
}

// checkIndices verifies every index is within [0, n) in one branch-light
// pass, and reports whether they are strictly ascending (which enables
// block copies).
func checkIndices(idx []int32, n int) (sorted bool, err error) {
	if len(idx) == 0 {
		return true, nil
	}
	lo, hi := idx[0], idx[0]
	descents := 0
	prev := int32(-1)
	for _, i := range idx {
		lo, hi = min(lo, i), max(hi, i)
		if i <= prev {
			descents++
		}
		prev = i
	}
	if lo < 0 || int(hi) >= n {
		bad := lo
		if lo >= 0 {
			bad = hi
		}
		return false, fmt.Errorf("kernels: take index %d out of range for %d rows", bad, n)
	}
	return descents == 0, nil
}

var selectionPool = sync.Pool{New: func() any { return new(Selection) }}

// Filter returns the rows of arr whose bit is set in keep (bit i, LSB
// order, for row i of arr). Keeping every row returns arr itself,
// retained.
func Filter(arr arrow.Array, keep []byte, alloc memory.Allocator) (arrow.Array, error) {
	sel := selectionPool.Get().(*Selection)
	defer selectionPool.Put(sel)
	if err := sel.SetBitmap(keep, 0, arr.Len()); err != nil {
		return nil, err
	}
	return Select(arr, *sel, alloc)
}

// Select returns the rows of arr kept by sel. Keeping every row returns
// arr itself, retained.
func Select(arr arrow.Array, sel Selection, alloc memory.Allocator) (arrow.Array, error) {
	if sel.rows != arr.Len() {
		return nil, fmt.Errorf("kernels: selection over %d rows applied to %d rows", sel.rows, arr.Len())
	}
	if sel.all {
		arr.Retain()
		return arr, nil
	}
	d, err := gather(arr.Data(), sel.rowSet(), alloc)
	if err != nil {
		return nil, err
	}
	return makeArray(d), nil
}

// FilterRecord is Filter over every column of rec; the kept positions are
// computed once and reused for every column.
func FilterRecord(rec arrow.RecordBatch, keep []byte, alloc memory.Allocator) (arrow.RecordBatch, error) {
	sel := selectionPool.Get().(*Selection)
	defer selectionPool.Put(sel)
	if err := sel.SetBitmap(keep, 0, int(rec.NumRows())); err != nil {
		return nil, err
	}
	return SelectRecord(rec, *sel, alloc)
}

// SelectRecord is Select over every column of rec.
func SelectRecord(rec arrow.RecordBatch, sel Selection, alloc memory.Allocator) (arrow.RecordBatch, error) {
	if int64(sel.rows) != rec.NumRows() {
		return nil, fmt.Errorf("kernels: selection over %d rows applied to a batch of %d rows", sel.rows, rec.NumRows())
	}
	if sel.all {
		rec.Retain()
		return rec, nil
	}
	cols := make([]arrow.Array, 0, rec.NumCols())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, col := range rec.Columns() {
		d, err := gather(col.Data(), sel.rowSet(), alloc)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
		}
		cols = append(cols, makeArray(d))
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(sel.count)), nil
}
