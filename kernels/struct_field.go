package kernels

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ReplaceField returns s with its field i replaced by child (of s's length,
// positions relative to s's start), keeping that field's name, nullability
// and metadata but taking child's type. The other children and the
// validity bitmap are shared; only a bitmap starting mid-byte is copied.
// Use it to rebuild a struct after promoting one of its fields.
func ReplaceField(s *array.Struct, i int, child arrow.Array, alloc memory.Allocator) (*array.Struct, error) {
	st := s.DataType().(*arrow.StructType)
	if i < 0 || i >= st.NumFields() {
		return nil, fmt.Errorf("kernels: struct has no field %d", i)
	}
	if child.Len() != s.Len() {
		return nil, fmt.Errorf("kernels: replacement field has %d rows, struct has %d", child.Len(), s.Len())
	}
	fields := st.Fields()
	fields[i].Type = child.DataType()
	dt := arrow.StructOf(fields...)

	d := s.Data()
	offset, n := d.Offset(), d.Len()
	var validity *memory.Buffer
	nulls := nullCount(d)
	if nulls > 0 {
		bitmap := d.Buffers()[0]
		size := int(bitutil.BytesForBits(int64(n)))
		if offset%8 == 0 {
			validity = memory.SliceBuffer(bitmap, offset/8, size)
		} else {
			validity = newBuffer(alloc, size)
			bitutil.CopyBitmap(bitmap.Bytes(), offset, n, validity.Bytes(), 0)
		}
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for k, c := range d.Children() {
		if k == i {
			children[k] = child.Data()
			children[k].Retain()
			continue
		}
		children[k] = sliceChild(c, offset, n)
	}
	out := makeArray(newData(dt, n, []*memory.Buffer{validity}, children, nulls, 0))
	return out.(*array.Struct), nil
}
