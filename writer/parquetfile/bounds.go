package parquetfile

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"

	"github.com/parquet-go/parquet-go/format"
)

const (
	// columnIndexMaxBytes cuts byte-array bounds in page indexes (the
	// cut max rounded up): whole l_comment values would make the index
	// as large as a page of them.
	columnIndexMaxBytes = 64
	// statsMaxBytes cuts byte-array bounds in chunk statistics.
	statsMaxBytes = 1024
)

// boundsState is the least and greatest value seen, plain-encoded.
type boundsState struct {
	min, max []byte
	set      bool
	// lost: some value had no bounds (NaN only), so none can be given.
	lost bool
}

func (b *boundsState) merge(col *Column, lo, hi []byte) {
	if !b.set {
		b.min, b.max, b.set = append(b.min[:0], lo...), append(b.max[:0], hi...), true
		return
	}
	if compare(col, lo, b.min) < 0 {
		b.min = append(b.min[:0], lo...)
	}
	if compare(col, hi, b.max) > 0 {
		b.max = append(b.max[:0], hi...)
	}
}

func (b *boundsState) mergeState(col *Column, o *boundsState) {
	b.lost = b.lost || o.lost
	if o.set {
		b.merge(col, o.min, o.max)
	}
}

// compare orders two plain-encoded values of col as Parquet's column
// order for its type does.
func compare(col *Column, a, b []byte) int {
	switch col.Order {
	case OrderSigned:
		switch col.Type {
		case format.Int32:
			return cmp.Compare(int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b)))
		case format.Int64:
			return cmp.Compare(int64(binary.LittleEndian.Uint64(a)), int64(binary.LittleEndian.Uint64(b)))
		default: // big-endian two's complement (decimals)
			return compareSignedBigEndian(a, b)
		}
	case OrderFloat:
		var x, y float64
		if col.Type == format.Float {
			x = float64(math.Float32frombits(binary.LittleEndian.Uint32(a)))
			y = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		} else {
			x = math.Float64frombits(binary.LittleEndian.Uint64(a))
			y = math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
		switch {
		case FloatLess(x, y):
			return -1
		case FloatLess(y, x):
			return 1
		}
		return 0
	case OrderBoolean:
		return cmp.Compare(a[0], b[0])
	}
	return bytes.Compare(a, b)
}

// FloatLess orders non-NaN floats with -0 before +0, as the bounds of
// Parquet and Iceberg (Java's Float.compare) do.
func FloatLess(a, b float64) bool {
	return a < b || (a == 0 && b == 0 && math.Signbit(a) && !math.Signbit(b))
}

// compareSignedBigEndian orders two's complement big-endian values of
// one width (FIXED_LEN_BYTE_ARRAY decimals: Write checks every value has
// the column's width).
func compareSignedBigEndian(a, b []byte) int {
	if len(a) == 0 || len(b) == 0 || a[0] == b[0] {
		return bytes.Compare(a, b)
	}
	return cmp.Compare(int8(a[0]), int8(b[0]))
}

// truncateBounds cuts byte-array bounds to limit bytes: the min to its
// prefix, the max to its prefix with the last byte that can be raised
// raised (a max of 0xff bytes stays whole). Other types keep theirs.
func truncateBounds(col *Column, lo, hi []byte, limit int) ([]byte, []byte) {
	if col.Type != format.ByteArray || col.Order != OrderUnsigned {
		return lo, hi
	}
	if len(lo) > limit {
		lo = lo[:limit]
	}
	if len(hi) > limit {
		cut := append([]byte(nil), hi[:limit]...)
		for i := len(cut) - 1; i >= 0; i-- {
			if cut[i] != 0xff {
				cut[i]++
				return lo, cut[:i+1]
			}
		}
	}
	return lo, hi
}

// columnIndexBuilder gathers the column index of a chunk page by page.
type columnIndexBuilder struct {
	nullPages  []bool
	mins, maxs [][]byte
	nulls      []int64
	lost       bool // a page with values has no bounds: no index
	notAsc     bool
	notDesc    bool
	last       int // the last page with values, -1 before one
}

func (ix *columnIndexBuilder) reset() columnIndexBuilder {
	return columnIndexBuilder{nullPages: ix.nullPages[:0], mins: ix.mins[:0], maxs: ix.maxs[:0], nulls: ix.nulls[:0]}
}

func (ix *columnIndexBuilder) add(col *Column, nullPage bool, b *boundsState, nulls int64) {
	if len(ix.nullPages) == 0 {
		ix.last = -1
	}
	ix.nullPages = append(ix.nullPages, nullPage)
	ix.nulls = append(ix.nulls, nulls)
	if nullPage || !b.set || b.lost {
		if !nullPage {
			ix.lost = true
		}
		ix.mins = append(ix.mins, []byte{})
		ix.maxs = append(ix.maxs, []byte{})
		return
	}
	lo, hi := truncateBounds(col, b.min, b.max, columnIndexMaxBytes)
	lo, hi = append([]byte(nil), lo...), append([]byte(nil), hi...)
	if ix.last >= 0 {
		pmin, pmax := ix.mins[ix.last], ix.maxs[ix.last]
		if compare(col, lo, pmin) < 0 || compare(col, hi, pmax) < 0 {
			ix.notAsc = true
		}
		if compare(col, lo, pmin) > 0 || compare(col, hi, pmax) > 0 {
			ix.notDesc = true
		}
	}
	ix.last = len(ix.mins)
	ix.mins = append(ix.mins, lo)
	ix.maxs = append(ix.maxs, hi)
}

func (ix *columnIndexBuilder) build() *format.ColumnIndex {
	if len(ix.nullPages) == 0 {
		return nil
	}
	order := format.Unordered
	switch {
	case !ix.notAsc:
		order = format.Ascending
	case !ix.notDesc:
		order = format.Descending
	}
	return &format.ColumnIndex{
		NullPages:     append([]bool(nil), ix.nullPages...),
		MinValues:     append([][]byte(nil), ix.mins...),
		MaxValues:     append([][]byte(nil), ix.maxs...),
		BoundaryOrder: order,
		NullCounts:    append([]int64(nil), ix.nulls...),
	}
}
