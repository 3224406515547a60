package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Constant returns an array of n copies of v, of type dt. A nil v gives
// an all-null array. Accepted Go forms:
//
//	bool                           → bool
//	any Go integer (range-checked) → int8…int64, uint8…uint64, date32,
//	                                 time32/64, timestamp, duration
//	float32, float64               → float32, float64
//	decimal128.Num or a {Hi int64; Lo uint64[; Scale int]} struct → decimal128
//	string or []byte               → string, large_string, binary, large_binary
//	[]byte or [N]byte of the width → fixed_size_binary
//	[]any (one value per field)    → struct
//	[]any (the elements)           → list, large_list, fixed_size_list
//	MapValue or a {Keys, Values []any} struct → map
//
// Scalar columns are filled by doubling copies of one encoded value, and
// string offsets are computed, not appended row by row.
func Constant(dt arrow.DataType, v any, n int, alloc memory.Allocator) (arrow.Array, error) {
	if n < 0 {
		return nil, fmt.Errorf("kernels: negative length %d", n)
	}
	d, err := constantData(dt, v, n, alloc)
	if err != nil {
		return nil, err
	}
	return makeArray(d), nil
}

func constantData(dt arrow.DataType, v any, n int, alloc memory.Allocator) (arrow.ArrayData, error) {
	if v == nil {
		return nullsData(dt, n, alloc)
	}
	switch dt.ID() {
	case arrow.NULL:
		return nil, fmt.Errorf("kernels: the null type holds only nulls, got %T", v)
	case arrow.EXTENSION:
		storage, err := constantData(dt.(arrow.ExtensionType).StorageType(), v, n, alloc)
		if err != nil {
			return nil, err
		}
		defer storage.Release()
		return relabel(storage, dt), nil
	case arrow.BOOL:
		b, ok := v.(bool)
		if !ok {
			return nil, wrongValue(dt, v)
		}
		values := newBuffer(alloc, (n+7)/8)
		fill := byte(0)
		if b {
			fill = 0xFF
		}
		memory.Set(values.Bytes(), fill)
		return newData(dt, n, []*memory.Buffer{nil, values}, nil, 0, 0), nil
	case arrow.STRING, arrow.BINARY:
		return constantBinary[int32](dt, v, n, alloc)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return constantBinary[int64](dt, v, n, alloc)
	case arrow.STRUCT:
		return constantStruct(dt.(*arrow.StructType), v, n, alloc)
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.MAP:
		row, err := nestedRow(dt, v, alloc)
		if err != nil {
			return nil, err
		}
		if n == 1 {
			return row, nil
		}
		defer row.Release()
		return gather(row, rowSet{idx: make([]int32, n)}, alloc)
	}
	pattern, err := encodeFixed(dt, v)
	if err != nil {
		return nil, err
	}
	values := newBuffer(alloc, n*len(pattern))
	fillRepeat(values.Bytes(), pattern)
	return newData(dt, n, []*memory.Buffer{nil, values}, nil, 0, 0), nil
}

func wrongValue(dt arrow.DataType, v any) error {
	return fmt.Errorf("kernels: %T value %v is not a %s", v, v, dt)
}

// fillRepeat fills dst with copies of pattern, doubling the filled prefix
// at each step so the work is a handful of large memmoves.
func fillRepeat(dst, pattern []byte) {
	if len(pattern) == 0 || len(dst) == 0 {
		return
	}
	filled := copy(dst, pattern)
	for filled < len(dst) {
		filled += copy(dst[filled:], dst[:filled])
	}
}

// encodeFixed returns the little-endian bytes of one fixed-width value.
func encodeFixed(dt arrow.DataType, v any) ([]byte, error) {
	var b [16]byte
	putInt := func(width int) ([]byte, error) {
		i, ok := asInt64(v)
		bitsWide := uint(8 * width)
		if !ok || (width < 8 && (i < -1<<(bitsWide-1) || i >= 1<<(bitsWide-1))) {
			return nil, wrongValue(dt, v)
		}
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		return b[:width], nil
	}
	putUint := func(width int) ([]byte, error) {
		u, ok := asUint64(v)
		if !ok || (width < 8 && u >= 1<<uint(8*width)) {
			return nil, wrongValue(dt, v)
		}
		binary.LittleEndian.PutUint64(b[:], u)
		return b[:width], nil
	}
	switch dt.ID() {
	case arrow.INT8:
		return putInt(1)
	case arrow.INT16:
		return putInt(2)
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return putInt(4)
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return putInt(8)
	case arrow.UINT8:
		return putUint(1)
	case arrow.UINT16:
		return putUint(2)
	case arrow.UINT32:
		return putUint(4)
	case arrow.UINT64:
		return putUint(8)
	case arrow.FLOAT32:
		f, ok := asFloat64(v)
		if !ok {
			return nil, wrongValue(dt, v)
		}
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(f)))
		return b[:4], nil
	case arrow.FLOAT64:
		f, ok := asFloat64(v)
		if !ok {
			return nil, wrongValue(dt, v)
		}
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		return b[:8], nil
	case arrow.DECIMAL128:
		num, err := asDecimal128(v, dt.(*arrow.Decimal128Type).Scale)
		if err != nil {
			return nil, err
		}
		binary.LittleEndian.PutUint64(b[:], num.LowBits())
		binary.LittleEndian.PutUint64(b[8:], uint64(num.HighBits()))
		return b[:16], nil
	case arrow.FIXED_SIZE_BINARY:
		raw, ok := asBytes(v)
		if width := dt.(*arrow.FixedSizeBinaryType).ByteWidth; !ok || len(raw) != width {
			return nil, fmt.Errorf("kernels: %T value of %d bytes is not a %s", v, len(raw), dt)
		}
		return raw, nil
	}
	return nil, unsupported(dt)
}

func constantBinary[O offsetInt](dt arrow.DataType, v any, n int, alloc memory.Allocator) (arrow.ArrayData, error) {
	raw, ok := asBytes(v)
	if !ok {
		return nil, wrongValue(dt, v)
	}
	size := len(raw)
	if size > 0 && int64(n) > maxOffset[O]()/int64(size) {
		return nil, fmt.Errorf("kernels: %d copies of a %d-byte value exceed the offsets of %s", n, size, dt)
	}
	offsets := newBuffer(alloc, (n+1)*int(unsafe.Sizeof(O(0))))
	offs := view[O](offsets.Bytes())[:n+1]
	for i := range offs {
		offs[i] = O(i * size)
	}
	data := newBuffer(alloc, n*size)
	fillRepeat(data.Bytes(), raw)
	return newData(dt, n, []*memory.Buffer{nil, offsets, data}, nil, 0, 0), nil
}

func constantStruct(st *arrow.StructType, v any, n int, alloc memory.Allocator) (arrow.ArrayData, error) {
	vals, ok := v.([]any)
	if !ok || len(vals) != st.NumFields() {
		return nil, fmt.Errorf("kernels: a %s constant needs []any of %d field values, got %T", st, st.NumFields(), v)
	}
	children := make([]arrow.ArrayData, 0, len(vals))
	for i, fv := range vals {
		child, err := constantData(st.Field(i).Type, fv, n, alloc)
		if err != nil {
			releaseData(children)
			return nil, fmt.Errorf("field %s: %w", st.Field(i).Name, err)
		}
		children = append(children, child)
	}
	return newData(st, n, []*memory.Buffer{nil}, children, 0, 0), nil
}

// nestedRow builds a one-row list, fixed-size list or map holding v; the
// constant column is that row gathered n times.
func nestedRow(dt arrow.DataType, v any, alloc memory.Allocator) (arrow.ArrayData, error) {
	if dt.ID() == arrow.MAP {
		mt := dt.(*arrow.MapType)
		m, ok := asMap(v)
		if !ok || len(m.Keys) != len(m.Values) {
			return nil, fmt.Errorf("kernels: a map constant needs MapValue with as many keys as values, got %T", v)
		}
		for _, k := range m.Keys {
			if k == nil {
				return nil, fmt.Errorf("kernels: map keys cannot be null")
			}
		}
		keys, err := valuesData(mt.KeyType(), m.Keys, alloc)
		if err != nil {
			return nil, err
		}
		items, err := valuesData(mt.ItemType(), m.Values, alloc)
		if err != nil {
			keys.Release()
			return nil, err
		}
		entries := newData(mt.Elem(), len(m.Keys), []*memory.Buffer{nil}, []arrow.ArrayData{keys, items}, 0, 0)
		return listRow[int32](dt, entries, alloc), nil
	}
	elems, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("kernels: a %s constant needs []any elements, got %T", dt, v)
	}
	switch t := dt.(type) {
	case *arrow.FixedSizeListType:
		if len(elems) != int(t.Len()) {
			return nil, fmt.Errorf("kernels: a %s constant needs %d elements, got %d", dt, t.Len(), len(elems))
		}
		child, err := valuesData(t.Elem(), elems, alloc)
		if err != nil {
			return nil, err
		}
		return newData(dt, 1, []*memory.Buffer{nil}, []arrow.ArrayData{child}, 0, 0), nil
	case *arrow.LargeListType:
		child, err := valuesData(t.Elem(), elems, alloc)
		if err != nil {
			return nil, err
		}
		return listRow[int64](dt, child, alloc), nil
	case *arrow.ListType:
		child, err := valuesData(t.Elem(), elems, alloc)
		if err != nil {
			return nil, err
		}
		return listRow[int32](dt, child, alloc), nil
	}
	return nil, unsupported(dt)
}

// listRow wraps child as the single row of a list type; it takes over the
// caller's reference to child.
func listRow[O offsetInt](dt arrow.DataType, child arrow.ArrayData, alloc memory.Allocator) arrow.ArrayData {
	offsets := newBuffer(alloc, 2*int(unsafe.Sizeof(O(0))))
	offs := view[O](offsets.Bytes())
	offs[0], offs[1] = 0, O(child.Len())
	return newData(dt, 1, []*memory.Buffer{nil, offsets}, []arrow.ArrayData{child}, 0, 0)
}

// valuesData builds an array of the given values, one per row. It serves
// the few elements of a nested constant, so one-row pieces concatenated
// are fast enough.
func valuesData(dt arrow.DataType, vals []any, alloc memory.Allocator) (arrow.ArrayData, error) {
	if len(vals) == 0 {
		return nullsData(dt, 0, alloc)
	}
	parts := make([]arrow.Array, 0, len(vals))
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for i, v := range vals {
		d, err := constantData(dt, v, 1, alloc)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		parts = append(parts, makeArray(d))
	}
	if len(parts) == 1 {
		d := parts[0].Data()
		d.Retain()
		return d, nil
	}
	out, err := array.Concatenate(parts, alloc)
	if err != nil {
		return nil, err
	}
	d := out.Data()
	d.Retain()
	out.Release()
	return d, nil
}
