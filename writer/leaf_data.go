package writer

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/floedb/floe/iceberg"
)

// convKind is how a leaf's Arrow values become Parquet values.
type convKind uint8

const (
	convBool convKind = iota
	convInt32
	convInt64 // scaled by leafData.scale (timestamps in coarser units)
	convFloat
	convDouble
	convBinary      // 32-bit offsets
	convLargeBinary // 64-bit offsets
	convFixed
	convDecimalInt32
	convDecimalInt64
	convDecimalFixed
)

// leafData is a leaf's Arrow values in the current batch, viewed as typed
// slices over the Arrow buffers (nothing copied). Every slice is indexed by
// the array's own index: offsets are already applied.
type leafData struct {
	conv convKind
	// bitmap of a boolean array, and its bit offset.
	bits    []byte
	bitsOff int
	i32     []int32
	i64     []int64
	f32     []float32
	f64     []float64
	dec     []decimal128.Num
	// variable-length values: value i is data[offsets[i]:offsets[i+1]].
	offsets32 []int32
	offsets64 []int64
	data      []byte
	// fixed-length values: value i is fixed[i*width:(i+1)*width].
	fixed []byte
	width int
	// scale multiplies int64 values (timestamps given in s or ms).
	scale int64
	// decBytes is the FIXED width of a wide decimal.
	decBytes int
}

// bufferBytes is an array's i-th buffer, or nil.
func bufferBytes(a arrow.Array, i int) []byte {
	bufs := a.Data().Buffers()
	if i >= len(bufs) || bufs[i] == nil {
		return nil
	}
	return bufs[i].Bytes()
}

// castSlice views b as a slice of T starting at element off, n elements.
func castSlice[T any](b []byte, off, n int) []T {
	if n == 0 {
		return nil
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b) < (off+n)*size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[off*size])), n)
}

// bindLeafData views the leaf array a (its extension storage if any) for
// conversion to the leaf's Iceberg type; binding has already checked that
// the types agree. A nil a is a column the batch lacks.
func bindLeafData(d *leafData, leaf *leafColumn, a arrow.Array) error {
	*d = leafData{conv: d.conv, scale: d.scale, decBytes: d.decBytes}
	if a == nil {
		return nil
	}
	off, n := a.Data().Offset(), a.Len()
	switch d.conv {
	case convBool:
		d.bits, d.bitsOff = bufferBytes(a, 1), off
	case convInt32:
		d.i32 = castSlice[int32](bufferBytes(a, 1), off, n)
	case convInt64:
		d.i64 = castSlice[int64](bufferBytes(a, 1), off, n)
	case convFloat:
		d.f32 = castSlice[float32](bufferBytes(a, 1), off, n)
	case convDouble:
		d.f64 = castSlice[float64](bufferBytes(a, 1), off, n)
	case convDecimalInt32, convDecimalInt64, convDecimalFixed:
		d.dec = castSlice[decimal128.Num](bufferBytes(a, 1), off, n)
	case convBinary:
		d.offsets32 = castSlice[int32](bufferBytes(a, 1), off, n+1)
		d.data = bufferBytes(a, 2)
	case convLargeBinary:
		d.offsets64 = castSlice[int64](bufferBytes(a, 1), off, n+1)
		d.data = bufferBytes(a, 2)
	case convFixed:
		w := a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth
		d.width = w
		if b := bufferBytes(a, 1); len(b) >= (off+n)*w {
			d.fixed = b[off*w : (off+n)*w]
		}
	}
	if n > 0 && !d.viewed() {
		return fmt.Errorf("column %q (id %d): malformed Arrow array: %d values but short buffers", leaf.field.Name, leaf.field.ID, n)
	}
	if d.offsets32 != nil || d.offsets64 != nil {
		if !offsetsValid(d.offsets32, d.offsets64, n, len(d.data)) {
			return fmt.Errorf("column %q (id %d): malformed Arrow array: value offsets are out of order or beyond the data", leaf.field.Name, leaf.field.ID)
		}
	}
	if d.conv == convBool && len(d.bits)*8 < off+n {
		return fmt.Errorf("column %q (id %d): malformed Arrow array: boolean values are too short", leaf.field.Name, leaf.field.ID)
	}
	return nil
}

// viewed reports whether the view holds the buffers its kind needs.
func (d *leafData) viewed() bool {
	switch d.conv {
	case convBool:
		return d.bits != nil
	case convInt32:
		return d.i32 != nil
	case convInt64:
		return d.i64 != nil
	case convFloat:
		return d.f32 != nil
	case convDouble:
		return d.f64 != nil
	case convBinary:
		return d.offsets32 != nil
	case convLargeBinary:
		return d.offsets64 != nil
	case convFixed:
		return d.fixed != nil || d.width == 0
	}
	return d.dec != nil
}

func (d *leafData) bytesAt(i int) []byte {
	switch d.conv {
	case convBinary:
		return d.data[d.offsets32[i]:d.offsets32[i+1]]
	case convLargeBinary:
		return d.data[d.offsets64[i]:d.offsets64[i+1]]
	}
	return d.fixed[i*d.width : (i+1)*d.width]
}

// convFor picks the conversion of an Arrow type (storage of extensions) to
// an Iceberg primitive type, or says why they do not fit.
func convFor(t iceberg.Type, at arrow.DataType) (conv convKind, scale int64, decBytes int, err error) {
	mismatch := func() (convKind, int64, int, error) {
		return 0, 0, 0, fmt.Errorf("Arrow type %s cannot be written as Iceberg %s", at, t)
	}
	switch t := t.(type) {
	case iceberg.BooleanType:
		if at.ID() == arrow.BOOL {
			return convBool, 0, 0, nil
		}
	case iceberg.IntType:
		if at.ID() == arrow.INT32 {
			return convInt32, 0, 0, nil
		}
	case iceberg.DateType:
		if at.ID() == arrow.DATE32 {
			return convInt32, 0, 0, nil
		}
	case iceberg.LongType:
		if at.ID() == arrow.INT64 {
			return convInt64, 1, 0, nil
		}
	case iceberg.TimeType:
		if tt, ok := at.(*arrow.Time64Type); ok && tt.Unit == arrow.Microsecond {
			return convInt64, 1, 0, nil
		}
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		ts, ok := at.(*arrow.TimestampType)
		if !ok {
			break
		}
		zoned := t == (iceberg.TimestamptzType{}) || t == (iceberg.TimestamptzNsType{})
		if zoned != (ts.TimeZone != "") {
			if zoned {
				return 0, 0, 0, fmt.Errorf("Arrow %s has no time zone, so it cannot be written as Iceberg %s (an instant)", at, t)
			}
			return 0, 0, 0, fmt.Errorf("Arrow %s is an instant, so it cannot be written as Iceberg %s (no zone)", at, t)
		}
		want := arrow.Microsecond
		if t == (iceberg.TimestampNsType{}) || t == (iceberg.TimestamptzNsType{}) {
			want = arrow.Nanosecond
		}
		if ts.Unit > want {
			return 0, 0, 0, fmt.Errorf("Arrow %s is finer than Iceberg %s; cast it first", at, t)
		}
		scale := int64(1)
		for u := ts.Unit; u < want; u++ {
			scale *= 1000
		}
		return convInt64, scale, 0, nil
	case iceberg.FloatType:
		if at.ID() == arrow.FLOAT32 {
			return convFloat, 0, 0, nil
		}
	case iceberg.DoubleType:
		if at.ID() == arrow.FLOAT64 {
			return convDouble, 0, 0, nil
		}
	case iceberg.StringType:
		switch at.ID() {
		case arrow.STRING:
			return convBinary, 0, 0, nil
		case arrow.LARGE_STRING:
			return convLargeBinary, 0, 0, nil
		}
	case iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		switch at.ID() {
		case arrow.BINARY:
			return convBinary, 0, 0, nil
		case arrow.LARGE_BINARY:
			return convLargeBinary, 0, 0, nil
		}
	case iceberg.UUIDType:
		if fb, ok := at.(*arrow.FixedSizeBinaryType); ok && fb.ByteWidth == 16 {
			return convFixed, 0, 0, nil
		}
	case iceberg.FixedType:
		if fb, ok := at.(*arrow.FixedSizeBinaryType); ok && fb.ByteWidth == t.Length {
			return convFixed, 0, 0, nil
		}
	case iceberg.DecimalType:
		dt, ok := at.(*arrow.Decimal128Type)
		if !ok || int(dt.Scale) != t.Scale || int(dt.Precision) > t.Precision {
			break
		}
		switch {
		case t.Precision <= 9:
			return convDecimalInt32, 0, 0, nil
		case t.Precision <= 18:
			return convDecimalInt64, 0, 0, nil
		}
		return convDecimalFixed, 0, decimalBytes(t.Precision), nil
	}
	return mismatch()
}

// storage unwraps extension arrays (arrow.uuid and the like) to the array
// that holds their values.
func storage(a arrow.Array) arrow.Array {
	for {
		ext, ok := a.(array.ExtensionArray)
		if !ok {
			return a
		}
		a = ext.Storage()
	}
}

// storageType is the type behind an extension type.
func storageType(t arrow.DataType) arrow.DataType {
	for {
		ext, ok := t.(arrow.ExtensionType)
		if !ok {
			return t
		}
		t = ext.StorageType()
	}
}
