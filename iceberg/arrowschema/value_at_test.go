package arrowschema

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// ValueAt gives back every value AppendValue appended, nulls as nil, for
// each primitive type and a struct of them; an array of another type is
// refused.
func TestValueAtInvertsAppendValue(t *testing.T) {
	st := &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1, Name: "a", Type: iceberg.IntType{}}, {ID: 2, Name: "b", Type: iceberg.StringType{}}}}
	for _, c := range []struct {
		t iceberg.Type
		v any
	}{
		{iceberg.BooleanType{}, true}, {iceberg.IntType{}, int32(-7)}, {iceberg.LongType{}, int64(1) << 40},
		{iceberg.FloatType{}, float32(1.5)}, {iceberg.DoubleType{}, -2.25}, {iceberg.DateType{}, int32(19715)},
		{iceberg.TimeType{}, int64(3600_000_000)}, {iceberg.TimestampType{}, int64(-5)}, {iceberg.TimestamptzType{}, int64(7)},
		{iceberg.TimestampNsType{}, int64(9)}, {iceberg.TimestamptzNsType{}, int64(11)},
		{iceberg.DecimalType{Precision: 9, Scale: 2}, iceberg.DecimalFromInt64(-12345, 2)},
		{iceberg.StringType{}, "héllo"}, {iceberg.BinaryType{}, []byte{0, 1, 2}}, {iceberg.FixedType{Length: 3}, []byte{9, 8, 7}},
		{iceberg.UUIDType{}, [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
		{st, []any{int32(4), nil}},
	} {
		dt, err := ArrowType(c.t)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewBuilder(memory.DefaultAllocator, dt)
		if err := AppendValue(b, c.t, nil); err != nil {
			t.Fatal(err)
		}
		if err := AppendValue(b, c.t, c.v); err != nil {
			t.Fatalf("%s: %v", c.t, err)
		}
		arr := b.NewArray()
		if v, err := ValueAt(arr, 0, c.t); v != nil || err != nil {
			t.Errorf("%s null: %v, %v", c.t, v, err)
		}
		v, err := ValueAt(arr, 1, c.t)
		if err != nil || fmt.Sprintf("%T %v", v, v) != fmt.Sprintf("%T %v", c.v, c.v) {
			t.Errorf("%s: %T %v (%v), want %T %v", c.t, v, v, err, c.v, c.v)
		}
		if _, err := ValueAt(arr, 1, iceberg.GeographyType{}); c.t != (iceberg.BinaryType{}) && !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s read as geography: %v", c.t, err)
		}
		arr.Release()
		b.Release()
	}
}
