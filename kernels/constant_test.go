package kernels

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// readerDecimal and readerMap have the shapes of the reader's own value
// forms (Iceberg's Decimal and MapValue), which kernels cannot import.
type readerDecimal struct {
	Hi    int64
	Lo    uint64
	Scale int
}

type readerMap struct {
	Keys   []any
	Values []any
}

// appendValue appends one Go value through arrow-go's builders: the
// independent way of building what Constant should produce.
func appendValue(t *testing.T, b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int8Builder:
		bb.Append(int8(v.(int32)))
	case *array.Int16Builder:
		bb.Append(int16(v.(int32)))
	case *array.Int32Builder:
		bb.Append(v.(int32))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Uint8Builder:
		bb.Append(uint8(v.(int32)))
	case *array.Uint16Builder:
		bb.Append(uint16(v.(int32)))
	case *array.Uint32Builder:
		bb.Append(uint32(v.(int64)))
	case *array.Uint64Builder:
		bb.Append(v.(uint64))
	case *array.Float32Builder:
		bb.Append(v.(float32))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.Decimal128Builder:
		switch d := v.(type) {
		case decimal128.Num:
			bb.Append(d)
		case readerDecimal:
			bb.Append(decimal128.New(d.Hi, d.Lo))
		}
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int32)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(v.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int64)))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.LargeStringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *extensions.UUIDBuilder:
		bb.AppendBytes(v.([16]byte))
	case *array.FixedSizeBinaryBuilder:
		if u, ok := v.([16]byte); ok {
			bb.Append(u[:])
		} else {
			bb.Append(v.([]byte))
		}
	case *array.StructBuilder:
		bb.Append(true)
		for i, f := range v.([]any) {
			appendValue(t, bb.FieldBuilder(i), f)
		}
	case *array.ListBuilder:
		bb.Append(true)
		for _, e := range v.([]any) {
			appendValue(t, bb.ValueBuilder(), e)
		}
	case *array.LargeListBuilder:
		bb.Append(true)
		for _, e := range v.([]any) {
			appendValue(t, bb.ValueBuilder(), e)
		}
	case *array.FixedSizeListBuilder:
		bb.Append(true)
		for _, e := range v.([]any) {
			appendValue(t, bb.ValueBuilder(), e)
		}
	case *array.MapBuilder:
		bb.Append(true)
		var keys, values []any
		switch m := v.(type) {
		case MapValue:
			keys, values = m.Keys, m.Values
		case readerMap:
			keys, values = m.Keys, m.Values
		}
		for i := range keys {
			appendValue(t, bb.KeyBuilder(), keys[i])
			appendValue(t, bb.ItemBuilder(), values[i])
		}
	default:
		t.Fatalf("test cannot append %T", b)
	}
}

func constantCases() []struct {
	dt arrow.DataType
	v  any
} {
	uuid := [16]byte{0x12, 0x34, 0x56, 0x78, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	return []struct {
		dt arrow.DataType
		v  any
	}{
		{arrow.FixedWidthTypes.Boolean, true},
		{arrow.FixedWidthTypes.Boolean, false},
		{arrow.PrimitiveTypes.Int8, int32(-100)},
		{arrow.PrimitiveTypes.Int16, int32(-30000)},
		{arrow.PrimitiveTypes.Int32, int32(math.MinInt32)},
		{arrow.PrimitiveTypes.Int64, int64(math.MaxInt64)},
		{arrow.PrimitiveTypes.Uint8, int32(255)},
		{arrow.PrimitiveTypes.Uint16, int32(65535)},
		{arrow.PrimitiveTypes.Uint32, int64(math.MaxUint32)},
		{arrow.PrimitiveTypes.Uint64, uint64(math.MaxUint64)},
		{arrow.PrimitiveTypes.Float32, float32(-1.5)},
		{arrow.PrimitiveTypes.Float64, math.Inf(-1)},
		{&arrow.Decimal128Type{Precision: 38, Scale: 2}, decimal128.New(-1, 12345)},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, readerDecimal{Hi: 0, Lo: 98765, Scale: 2}},
		{arrow.FixedWidthTypes.Date32, int32(19000)},
		{arrow.FixedWidthTypes.Time64us, int64(45_296_000_001)},
		{arrow.FixedWidthTypes.Timestamp_us, int64(1_700_000_000_123_456)},
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, int64(-1)},
		{arrow.FixedWidthTypes.Timestamp_ns, int64(1_700_000_000_123_456_789)},
		{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, int64(0)},
		{arrow.BinaryTypes.String, "héllo, wörld"},
		{arrow.BinaryTypes.String, ""},
		{arrow.BinaryTypes.LargeString, "large"},
		{arrow.BinaryTypes.Binary, []byte{0, 1, 2, 255}},
		{arrow.BinaryTypes.LargeBinary, []byte{9}},
		{&arrow.FixedSizeBinaryType{ByteWidth: 16}, uuid},
		{&arrow.FixedSizeBinaryType{ByteWidth: 3}, []byte{7, 8, 9}},
		{extensions.NewUUIDType(), uuid},
		{structType, []any{int32(7), "x", []any{true}}},
		{structType, []any{nil, "y", nil}},
		{arrow.ListOf(arrow.PrimitiveTypes.Int64), []any{int64(1), nil, int64(3)}},
		{arrow.ListOf(arrow.PrimitiveTypes.Int64), []any{}},
		{listOfStruct, []any{[]any{"s"}, nil, []any{nil}}},
		{arrow.LargeListOf(arrow.BinaryTypes.String), []any{"a", "bb"}},
		{arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int32), []any{int32(1), nil, int32(3)}},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), MapValue{Keys: []any{"a", "b"}, Values: []any{int64(1), nil}}},
		{arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.ListOf(arrow.BinaryTypes.String)), readerMap{Keys: []any{int32(5)}, Values: []any{[]any{"p", "q"}}}},
		{arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32)), []any{[]any{int32(1)}, []any{}, nil}},
	}
}

func TestConstant(t *testing.T) {
	mem := newTrackingAllocator(t)
	for _, c := range constantCases() {
		for _, n := range []int{0, 1, 7, 1000} {
			t.Run(fmt.Sprintf("%s/%v/%d", c.dt, c.v, n), func(t *testing.T) {
				b := array.NewBuilder(mem, c.dt)
				for range n {
					appendValue(t, b, c.v)
				}
				want := b.NewArray()
				b.Release()
				defer want.Release()
				got, err := Constant(c.dt, c.v, n, mem)
				if err != nil {
					t.Fatal(err)
				}
				defer got.Release()
				checkOutput(t, mem, got)
				assertEqual(t, want, got)
			})
		}
	}
}

func TestConstantAcceptsOtherIntegerForms(t *testing.T) {
	mem := newTrackingAllocator(t)
	got, err := Constant(arrow.PrimitiveTypes.Int64, int32(-7), 3, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	for i := range 3 {
		if v := got.(*array.Int64).Value(i); v != -7 {
			t.Fatalf("row %d = %d", i, v)
		}
	}
}

func TestConstantRejectsBadValues(t *testing.T) {
	mem := newTrackingAllocator(t)
	cases := []struct {
		dt arrow.DataType
		v  any
		n  int
	}{
		{arrow.PrimitiveTypes.Int32, "7", 1},
		{arrow.PrimitiveTypes.Int8, int32(128), 1},
		{arrow.PrimitiveTypes.Uint8, int32(-1), 1},
		{arrow.PrimitiveTypes.Int64, uint64(math.MaxUint64), 1},
		{arrow.PrimitiveTypes.Float64, int64(1), 1},
		{arrow.FixedWidthTypes.Boolean, 1, 1},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, readerDecimal{Lo: 1, Scale: 3}, 1},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, 1.5, 1},
		{&arrow.FixedSizeBinaryType{ByteWidth: 4}, []byte{1, 2, 3}, 1},
		{arrow.BinaryTypes.String, 5, 1},
		{structType, []any{int32(1)}, 1},
		{structType, []any{"wrong", "x", nil}, 1},
		{arrow.ListOf(arrow.PrimitiveTypes.Int64), []any{"x"}, 1},
		{arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int32), []any{int32(1)}, 1},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), MapValue{Keys: []any{nil}, Values: []any{int64(1)}}, 1},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), MapValue{Keys: []any{"a"}, Values: nil}, 1},
		{arrow.Null, int32(1), 1},
		{arrow.BinaryTypes.String, string(make([]byte, 4096)), 1 << 20},
		{arrow.PrimitiveTypes.Int32, int32(1), -1},
	}
	for _, c := range cases {
		if got, err := Constant(c.dt, c.v, c.n, mem); err == nil {
			got.Release()
			t.Errorf("Constant(%s, %T %v): want an error", c.dt, c.v, c.v)
		}
	}
}

func TestNulls(t *testing.T) {
	mem := newTrackingAllocator(t)
	for _, dt := range testTypes() {
		for _, n := range []int{0, 1, 9, 100} {
			t.Run(fmt.Sprintf("%s/%d", dt, n), func(t *testing.T) {
				want := array.MakeArrayOfNull(memory.DefaultAllocator, dt, n)
				defer want.Release()
				got, err := Nulls(dt, n, mem)
				if err != nil {
					t.Fatal(err)
				}
				defer got.Release()
				checkOutput(t, mem, got)
				assertEqual(t, want, got)
				if got.NullN() != n && dt.ID() != arrow.NULL {
					t.Fatalf("%d nulls of %d", got.NullN(), n)
				}
				if s, ok := got.(*array.Struct); ok {
					for i := range s.NumField() {
						if s.Field(i).NullN() != n {
							t.Fatalf("struct field %d has %d nulls of %d", i, s.Field(i).NullN(), n)
						}
					}
				}
				// A nil value asks for the same thing.
				viaConstant, err := Constant(dt, nil, n, mem)
				if err != nil {
					t.Fatal(err)
				}
				defer viaConstant.Release()
				assertEqual(t, want, viaConstant)
			})
		}
	}
}

func TestFillRepeat(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 5, 64, 1000} {
		dst := make([]byte, size*3)
		pattern := []byte{1, 2, 3}
		fillRepeat(dst, pattern)
		for i := range dst {
			if dst[i] != pattern[i%3] {
				t.Fatalf("size %d: byte %d = %d", size, i, dst[i])
			}
		}
	}
}
