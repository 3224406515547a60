package kernels

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
)

// newBuffer returns a buffer of size bytes from alloc. Its contents are
// whatever the allocator hands out: callers write every byte they expose.
func newBuffer(alloc memory.Allocator, size int) *memory.Buffer {
	if u, ok := alloc.(uninitializedAllocator); ok && size > 0 {
		return memory.NewBufferWithAllocator(u.AllocateUninitialized(size), alloc)
	}
	b := memory.NewResizableBuffer(alloc)
	b.Resize(size)
	return b
}

// uninitializedAllocator is an allocator that can hand out memory without
// clearing it first (a pool of recycled buffers): newBuffer's callers
// overwrite every byte anyway.
type uninitializedAllocator interface {
	AllocateUninitialized(size int) []byte
}

// newZeroedBuffer is newBuffer with the bytes cleared; pooled allocators do
// not promise zeroed memory.
func newZeroedBuffer(alloc memory.Allocator, size int) *memory.Buffer {
	b := newBuffer(alloc, size)
	clear(b.Bytes())
	return b
}

// view reinterprets a byte slice as a slice of T without copying.
func view[T any](b []byte) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// bufferBytes returns the bytes of buffer i of d, or nil when it is absent.
func bufferBytes(d arrow.ArrayData, i int) []byte {
	bufs := d.Buffers()
	if i >= len(bufs) || bufs[i] == nil {
		return nil
	}
	return bufs[i].Bytes()
}

// nullCount returns the number of nulls of d, counting the validity bitmap
// when the count is not yet known (as after slicing).
func nullCount(d arrow.ArrayData) int {
	if d.DataType().ID() == arrow.NULL {
		return d.Len()
	}
	if n := d.NullN(); n >= 0 {
		return n
	}
	bitmap := bufferBytes(d, 0)
	if bitmap == nil {
		return 0
	}
	return d.Len() - bitutil.CountSetBits(bitmap, d.Offset(), d.Len())
}

// makeArray wraps d in an array and drops the caller's reference to d.
func makeArray(d arrow.ArrayData) arrow.Array {
	arr := array.MakeFromData(d)
	d.Release()
	return arr
}

// newData builds array data and then drops the caller's references to the
// buffers and children it was given, so ownership passes to the result.
func newData(dt arrow.DataType, length int, buffers []*memory.Buffer, children []arrow.ArrayData, nulls, offset int) arrow.ArrayData {
	d := array.NewData(dt, length, buffers, children, nulls, offset)
	releaseBuffers(buffers)
	releaseData(children)
	return d
}

func releaseBuffers(buffers []*memory.Buffer) {
	for _, b := range buffers {
		if b != nil {
			b.Release()
		}
	}
}

func releaseData(data []arrow.ArrayData) {
	for _, d := range data {
		if d != nil {
			d.Release()
		}
	}
}

// relabel returns d's buffers and children under another data type with
// the same physical layout (extension ↔ storage, timestamp zones,
// decimal precision).
func relabel(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	return array.NewData(dt, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
}

// sliceChild returns child narrowed to the rows of a parent at
// [offset, offset+length), as struct children are indexed by the parent's
// offset.
func sliceChild(child arrow.ArrayData, offset, length int) arrow.ArrayData {
	if offset == 0 && child.Len() == length {
		child.Retain()
		return child
	}
	return array.NewSliceData(child, int64(offset), int64(offset+length))
}

func unsupported(dt arrow.DataType) error {
	return errkind.Errorf(errkind.Unsupported, "kernels: arrays of type %s are not supported", dt)
}
