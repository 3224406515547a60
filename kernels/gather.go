package kernels

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rowSet is the rows a gather picks out of an array.
type rowSet struct {
	// idx are the positions, relative to the array's offset, all in range.
	idx []int32
	// sorted says idx is strictly ascending, which lets contiguous runs
	// move as blocks.
	sorted bool
	// mask, when not nil, is the same rows as a bitmap from bit maskOff
	// over the array's rows, which lets bitmaps be compressed a word at a
	// time instead of gathered bit by bit.
	mask    []byte
	maskOff int
}

// gather builds the rows of d in rows as new data at offset 0.
func gather(d arrow.ArrayData, rows rowSet, alloc memory.Allocator) (arrow.ArrayData, error) {
	dt := d.DataType()
	idx, sorted := rows.idx, rows.sorted
	n := len(idx)
	switch dt.ID() {
	case arrow.NULL:
		return newData(dt, n, []*memory.Buffer{nil}, nil, n, 0), nil
	case arrow.EXTENSION:
		storage := relabel(d, dt.(arrow.ExtensionType).StorageType())
		defer storage.Release()
		out, err := gather(storage, rows, alloc)
		if err != nil {
			return nil, err
		}
		defer out.Release()
		return relabel(out, dt), nil
	case arrow.BOOL:
		validity, nulls := gatherValidity(d, rows, alloc)
		values := newBuffer(alloc, (n+7)/8)
		gatherBitmap(values.Bytes(), bufferBytes(d, 1), d, rows)
		return newData(dt, n, []*memory.Buffer{validity, values}, nil, nulls, 0), nil
	case arrow.STRING, arrow.BINARY:
		return gatherBinary[int32](d, rows, alloc)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return gatherBinary[int64](d, rows, alloc)
	case arrow.STRUCT:
		return gatherStruct(d, rows, alloc)
	case arrow.LIST, arrow.MAP:
		return gatherList[int32](d, rows, alloc)
	case arrow.LARGE_LIST:
		return gatherList[int64](d, rows, alloc)
	case arrow.FIXED_SIZE_LIST:
		return gatherFixedSizeList(d, rows, alloc)
	}
	width, ok := byteWidth(dt)
	if !ok {
		return nil, unsupported(dt)
	}
	validity, nulls := gatherValidity(d, rows, alloc)
	values := newBuffer(alloc, n*width)
	if n > 0 {
		gatherFixedWidth(values.Bytes(), bufferBytes(d, 1), width, d.Offset(), idx, sorted)
	}
	return newData(dt, n, []*memory.Buffer{validity, values}, nil, nulls, 0), nil
}

// byteWidth returns the value size of a fixed-width, byte-sized type.
func byteWidth(dt arrow.DataType) (int, bool) {
	switch dt.ID() {
	case arrow.BOOL, arrow.DICTIONARY, arrow.EXTENSION, arrow.RUN_END_ENCODED:
		return 0, false
	}
	fw, ok := dt.(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 || fw.BitWidth() == 0 {
		return 0, false
	}
	return fw.BitWidth() / 8, true
}

// gatherValidity returns the validity bitmap of the gathered rows and
// their null count; no bitmap when no gathered row is null.
func gatherValidity(d arrow.ArrayData, rows rowSet, alloc memory.Allocator) (*memory.Buffer, int) {
	n := len(rows.idx)
	if nullCount(d) == 0 || n == 0 {
		return nil, 0
	}
	buf := newBuffer(alloc, (n+7)/8)
	gatherBitmap(buf.Bytes(), bufferBytes(d, 0), d, rows)
	nulls := n - bitutil.CountSetBits(buf.Bytes(), 0, n)
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

// gatherBitmap gathers the rows of a bitmap of d (validity or boolean
// values) into dst: by compressing with the selection's mask a word at a
// time, unless the selection is sparse enough that picking bits one by one
// is cheaper (about one kept row in eight, as measured).
func gatherBitmap(dst, src []byte, d arrow.ArrayData, rows rowSet) {
	if rows.mask != nil && len(rows.idx)*8 >= d.Len() {
		compressBits(dst, src, d.Offset(), rows.mask, rows.maskOff, d.Len())
		return
	}
	gatherBits(dst, src, d.Offset(), rows.idx, rows.sorted)
}

func gatherFixedWidth(dst, src []byte, width, offset int, idx []int32, sorted bool) {
	switch width {
	case 1:
		gatherValues(dst, src[offset:], idx, 0, sorted)
	case 2:
		gatherValues(view[uint16](dst), view[uint16](src)[offset:], idx, 0, sorted)
	case 4:
		gatherValues(view[uint32](dst), view[uint32](src)[offset:], idx, 0, sorted)
	case 8:
		gatherValues(view[uint64](dst), view[uint64](src)[offset:], idx, 0, sorted)
	case 16:
		gatherValues(view[[2]uint64](dst), view[[2]uint64](src)[offset:], idx, 0, sorted)
	default:
		for j, i := range idx {
			p := (offset + int(i)) * width
			copy(dst[j*width:(j+1)*width], src[p:p+width])
		}
	}
}

// runBlock is how many ascending indices are checked at once for being
// contiguous; a contiguous block is copied instead of gathered.
const runBlock = 16

// gatherValues writes src[idx[j]-base] to dst[j]. With sorted (ascending)
// indices, blocks of consecutive ones are copied as one move; dst may then
// alias src when every idx[j]-base >= j, as in compacting in place.
func gatherValues[T any](dst, src []T, idx []int32, base int, sorted bool) {
	dst = dst[:len(idx)]
	if !sorted {
		for j, i := range idx {
			dst[j] = src[int(i)-base]
		}
		return
	}
	n, j := len(idx), 0
	for j+runBlock <= n {
		first := int(idx[j])
		if int(idx[j+runBlock-1])-first != runBlock-1 {
			for k, i := range idx[j : j+runBlock] {
				dst[j+k] = src[int(i)-base]
			}
			j += runBlock
			continue
		}
		end := j + runBlock
		for end+runBlock <= n && int(idx[end+runBlock-1])-first == end+runBlock-1-j {
			end += runBlock
		}
		copy(dst[j:end], src[first-base:first-base+end-j])
		j = end
	}
	for ; j < n; j++ {
		dst[j] = src[int(idx[j])-base]
	}
}

// GatherFixed writes the values of width bytes at rows idx[j]-base of src
// to dst, in order: the rows of a window (numbered from base) that a
// selection keeps, out of a span of them. The indices must ascend; dst may
// be src itself (compaction in place), since no row moves right.
func GatherFixed(dst, src []byte, width int, idx []int32, base int) {
	switch width {
	case 1:
		gatherValues(dst, src, idx, base, true)
	case 2:
		gatherValues(view[uint16](dst), view[uint16](src), idx, base, true)
	case 4:
		gatherValues(view[uint32](dst), view[uint32](src), idx, base, true)
	case 8:
		gatherValues(view[uint64](dst), view[uint64](src), idx, base, true)
	case 16:
		gatherValues(view[[2]uint64](dst), view[[2]uint64](src), idx, base, true)
	default:
		for j, i := range idx {
			p := (int(i) - base) * width
			copy(dst[j*width:(j+1)*width], src[p:p+width])
		}
	}
}

// CompactBits keeps, in place, the bits off+idx[j]-base of b (ascending
// indices) as bits off, off+1, ...: a validity or boolean bitmap cut down
// to a selection.
func CompactBits(b []byte, off int, idx []int32, base int) {
	for j, i := range idx {
		src := off + int(i) - base
		dst := off + j
		if b[src>>3]>>(src&7)&1 != 0 {
			b[dst>>3] |= 1 << (dst & 7)
		} else {
			b[dst>>3] &^= 1 << (dst & 7)
		}
	}
}

type offsetInt interface{ ~int32 | ~int64 }

func maxOffset[O offsetInt]() int64 {
	if unsafe.Sizeof(O(0)) == 4 {
		return math.MaxInt32
	}
	return math.MaxInt64
}

func gatherBinary[O offsetInt](d arrow.ArrayData, rows rowSet, alloc memory.Allocator) (arrow.ArrayData, error) {
	idx := rows.idx
	n := len(idx)
	srcOffsets := view[O](bufferBytes(d, 1))
	if d.Len() > 0 {
		srcOffsets = srcOffsets[d.Offset() : d.Offset()+d.Len()+1]
	}
	srcData := bufferBytes(d, 2)

	offsets := newBuffer(alloc, (n+1)*int(unsafe.Sizeof(O(0))))
	out := view[O](offsets.Bytes())[:n+1]
	out[0] = 0
	var total int64
	for j, i := range idx {
		total += int64(srcOffsets[i+1] - srcOffsets[i])
		out[j+1] = O(total)
	}
	if total > maxOffset[O]() {
		offsets.Release()
		return nil, fmt.Errorf("kernels: %d bytes of %s values exceed its 32-bit offsets; use the large type", total, d.DataType())
	}
	data := newBuffer(alloc, int(total))
	// The whole allocation, padding included, so short values can be
	// copied as one 16-byte block; the next value overwrites the excess.
	dst := data.Buf()
	if rows.sorted && n > 0 {
		// Consecutive rows have adjacent bytes: copy each run at once.
		runRow, next, runDst := idx[0], idx[0]+1, 0
		for j := 1; j < n; j++ {
			i := idx[j]
			if i == next {
				next++
				continue
			}
			start := int(srcOffsets[runRow])
			copyBytes(dst, srcData, runDst, start, int(srcOffsets[next])-start)
			runRow, next, runDst = i, i+1, int(out[j])
		}
		start := int(srcOffsets[runRow])
		copyBytes(dst, srcData, runDst, start, int(srcOffsets[next])-start)
	} else {
		for j, i := range idx {
			start := int(srcOffsets[i])
			copyBytes(dst, srcData, int(out[j]), start, int(srcOffsets[i+1])-start)
		}
	}
	validity, nulls := gatherValidity(d, rows, alloc)
	return newData(d.DataType(), n, []*memory.Buffer{validity, offsets, data}, nil, nulls, 0), nil
}

// copyBytes copies n bytes from src[s:] to dst[d:]. Values of up to 16
// bytes move as one fixed-size block when both sides have room, which
// avoids a memmove call per short string; the bytes written past n are
// overwritten by the next value or fall in the buffer's padding.
func copyBytes(dst, src []byte, d, s, n int) {
	if n <= 16 && s+16 <= len(src) && d+16 <= len(dst) {
		*(*[16]byte)(dst[d:]) = *(*[16]byte)(src[s:])
		return
	}
	copy(dst[d:d+n], src[s:s+n])
}
