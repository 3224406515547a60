package kernels

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Nulls returns an all-null array of n rows of any supported type. Struct
// children are all-null too, list and map rows are empty, and every
// buffer a reader may touch is present and zeroed.
func Nulls(dt arrow.DataType, n int, alloc memory.Allocator) (arrow.Array, error) {
	if n < 0 {
		return nil, fmt.Errorf("kernels: negative length %d", n)
	}
	d, err := nullsData(dt, n, alloc)
	if err != nil {
		return nil, err
	}
	return makeArray(d), nil
}

func nullsData(dt arrow.DataType, n int, alloc memory.Allocator) (arrow.ArrayData, error) {
	switch dt.ID() {
	case arrow.NULL:
		return newData(dt, n, []*memory.Buffer{nil}, nil, n, 0), nil
	case arrow.EXTENSION:
		storage, err := nullsData(dt.(arrow.ExtensionType).StorageType(), n, alloc)
		if err != nil {
			return nil, err
		}
		defer storage.Release()
		return relabel(storage, dt), nil
	}
	validity := newZeroedBuffer(alloc, (n+7)/8)
	buffers := []*memory.Buffer{validity}
	var children []arrow.ArrayData
	fail := func(err error) (arrow.ArrayData, error) {
		releaseBuffers(buffers)
		releaseData(children)
		return nil, err
	}
	switch t := dt.(type) {
	case *arrow.BooleanType:
		buffers = append(buffers, newZeroedBuffer(alloc, (n+7)/8))
	case *arrow.StringType, *arrow.BinaryType:
		buffers = append(buffers, newZeroedBuffer(alloc, (n+1)*4), newBuffer(alloc, 0))
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		buffers = append(buffers, newZeroedBuffer(alloc, (n+1)*8), newBuffer(alloc, 0))
	case *arrow.StructType:
		for _, f := range t.Fields() {
			child, err := nullsData(f.Type, n, alloc)
			if err != nil {
				return fail(err)
			}
			children = append(children, child)
		}
	case *arrow.MapType:
		return nullsList[int32](dt, t.Elem(), buffers, n, alloc)
	case *arrow.ListType:
		return nullsList[int32](dt, t.Elem(), buffers, n, alloc)
	case *arrow.LargeListType:
		return nullsList[int64](dt, t.Elem(), buffers, n, alloc)
	case *arrow.FixedSizeListType:
		child, err := nullsData(t.Elem(), n*int(t.Len()), alloc)
		if err != nil {
			return fail(err)
		}
		children = append(children, child)
	default:
		width, ok := byteWidth(dt)
		if !ok {
			return fail(unsupported(dt))
		}
		buffers = append(buffers, newZeroedBuffer(alloc, n*width))
	}
	return newData(dt, n, buffers, children, n, 0), nil
}

// nullsList builds null list rows: zero offsets over an empty child.
func nullsList[O offsetInt](dt, elem arrow.DataType, buffers []*memory.Buffer, n int, alloc memory.Allocator) (arrow.ArrayData, error) {
	child, err := nullsData(elem, 0, alloc)
	if err != nil {
		releaseBuffers(buffers)
		return nil, err
	}
	offsets := newZeroedBuffer(alloc, (n+1)*int(unsafe.Sizeof(O(0))))
	return newData(dt, n, append(buffers, offsets), []arrow.ArrayData{child}, n, 0), nil
}
