package kernels

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Selection is the set of rows kept out of a batch, as ascending int32
// positions. Keeping every row is recorded without materialising the
// positions, so the common no-delete case costs nothing. A selection made
// from a bitmap also keeps (does not copy) that bitmap, which bitmap
// gathers use word by word: the bitmap must not change while the
// selection is in use.
type Selection struct {
	rows      int
	count     int
	all       bool
	indices   []int32
	bitmap    []byte
	bitOffset int
}

// SelectAll keeps every one of rows rows.
func SelectAll(rows int) Selection {
	return Selection{rows: rows, count: rows, all: true}
}

// SelectionFromBitmap keeps row i of rows when bit offset+i of bitmap is
// set (LSB bit order, as Arrow bitmaps).
func SelectionFromBitmap(bitmap []byte, offset, rows int) (Selection, error) {
	var s Selection
	err := s.SetBitmap(bitmap, offset, rows)
	return s, err
}

// SetBitmap is SelectionFromBitmap reusing s's index storage, for callers
// that filter batch after batch.
func (s *Selection) SetBitmap(bitmap []byte, offset, rows int) error {
	if offset < 0 || rows < 0 || (offset+rows+7)/8 > len(bitmap) {
		return fmt.Errorf("kernels: selection bitmap of %d bytes is too short for %d rows at bit offset %d", len(bitmap), rows, offset)
	}
	count := bitutil.CountSetBits(bitmap, offset, rows)
	s.rows, s.count, s.all = rows, count, count == rows
	s.indices, s.bitmap, s.bitOffset = s.indices[:0], nil, 0
	if !s.all {
		s.indices = bitmapIndices(bitmap, offset, rows, count, s.indices)
		s.bitmap, s.bitOffset = bitmap, offset
	}
	return nil
}

func (s Selection) rowSet() rowSet {
	return rowSet{idx: s.indices, sorted: true, mask: s.bitmap, maskOff: s.bitOffset}
}

// SelectionFromIndices keeps the given rows, which must be strictly
// ascending and within [0, rows). The slice is used, not copied.
func SelectionFromIndices(indices []int32, rows int) (Selection, error) {
	for k, i := range indices {
		if i < 0 || int(i) >= rows {
			return Selection{}, fmt.Errorf("kernels: selection index %d out of range for %d rows", i, rows)
		}
		if k > 0 && i <= indices[k-1] {
			return Selection{}, fmt.Errorf("kernels: selection indices must be strictly ascending (%d follows %d)", i, indices[k-1])
		}
	}
	if len(indices) == rows {
		return SelectAll(rows), nil
	}
	return Selection{rows: rows, count: len(indices), indices: indices}, nil
}

// Rows is the number of rows of the batch the selection applies to.
func (s Selection) Rows() int { return s.rows }

// Len is the number of rows kept.
func (s Selection) Len() int { return s.count }

// All reports whether every row is kept.
func (s Selection) All() bool { return s.all }

// None reports whether no row is kept.
func (s Selection) None() bool { return s.count == 0 }

// Indices returns the kept positions, ascending. When every row is kept
// they are generated on demand (prefer checking All first).
func (s Selection) Indices() []int32 {
	if s.all {
		idx := make([]int32, s.rows)
		for i := range idx {
			idx[i] = int32(i)
		}
		return idx
	}
	return s.indices
}

// CountBits returns the number of set bits among the n bits of bitmap that
// start at bit offset.
func CountBits(bitmap []byte, offset, n int) int {
	return bitutil.CountSetBits(bitmap, offset, n)
}

// BitmapToIndices appends to dst[:0] the positions (relative to offset) of
// the set bits among n bits of bitmap, ascending, and returns it.
func BitmapToIndices(bitmap []byte, offset, n int, dst []int32) []int32 {
	count := bitutil.CountSetBits(bitmap, offset, n)
	return bitmapIndices(bitmap, offset, n, count, dst[:0])
}

// KeepBitmap turns a boolean mask (a residual filter's result) into a
// keep bitmap starting at bit 0: a row is kept when its mask value is true
// and not null. dst's storage is reused when large enough.
func KeepBitmap(mask *array.Boolean, dst []byte) []byte {
	n := mask.Len()
	size := (n + 7) / 8
	if cap(dst) < size {
		dst = make([]byte, size)
	}
	dst = dst[:size]
	d := mask.Data()
	values := bufferBytes(d, 1)
	bitutil.CopyBitmap(values, d.Offset(), n, dst, 0)
	if mask.NullN() > 0 {
		bitutil.BitmapAnd(dst, bufferBytes(d, 0), 0, int64(d.Offset()), dst, 0, int64(n))
	}
	return dst
}
