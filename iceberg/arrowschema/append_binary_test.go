package arrowschema

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
)

// Every type's binary form appended through BinaryAppender equals the
// decoded value appended through AppendValue; a value of the wrong width
// is a null either way.
func TestBinaryAppenderEqualsAppendValue(t *testing.T) {
	cases := []struct {
		typ iceberg.Type
		raw [][]byte
	}{
		{iceberg.BooleanType{}, [][]byte{{1}, {0}, {1, 2}}},
		{iceberg.IntType{}, [][]byte{{1, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}, {1}}},
		{iceberg.DateType{}, [][]byte{{0x10, 0x4d, 0, 0}, {1, 2}}},
		{iceberg.LongType{}, [][]byte{{1, 2, 3, 4, 5, 6, 7, 0x80}, {1, 2, 3, 4}}},
		{iceberg.TimeType{}, [][]byte{{1, 2, 3, 4, 5, 6, 0, 0}}},
		{iceberg.TimestampType{}, [][]byte{{1, 2, 3, 4, 5, 6, 7, 0}}},
		{iceberg.TimestamptzNsType{}, [][]byte{{1, 2, 3, 4, 5, 6, 7, 0}}},
		{iceberg.FloatType{}, [][]byte{{0, 0, 0xc0, 0x7f}, {0, 0, 0x80, 0x3f}, {1}}},
		{iceberg.DoubleType{}, [][]byte{{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}}},
		{iceberg.DecimalType{Precision: 9, Scale: 2}, [][]byte{{0xff, 0x38}, {0x01, 0x00}, {}}},
		{iceberg.DecimalType{Precision: 38, Scale: 4}, [][]byte{{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}},
		{iceberg.StringType{}, [][]byte{[]byte("héllo"), {}}},
		{iceberg.FixedType{Length: 3}, [][]byte{{1, 2, 3}, {1, 2}}},
		{iceberg.BinaryType{}, [][]byte{{0, 1}}},
	}
	for _, c := range cases {
		at, err := ArrowType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		fast, slow := array.NewBuilder(memory.DefaultAllocator, at), array.NewBuilder(memory.DefaultAllocator, at)
		app, err := BinaryAppender(fast, c.typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range c.raw {
			if err := app(raw); err != nil {
				t.Fatalf("%s %x: %v", c.typ, raw, err)
			}
			if err := AppendValue(slow, c.typ, valueFromBinary(c.typ, raw)); err != nil {
				t.Fatal(err)
			}
		}
		a, b := fast.NewArray(), slow.NewArray()
		if !array.ApproxEqual(a, b, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			t.Errorf("%s: BinaryAppender gave %v, AppendValue %v", c.typ, a, b)
		}
		a.Release()
		b.Release()
	}
}
