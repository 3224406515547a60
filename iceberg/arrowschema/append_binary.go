package arrowschema

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/floedb/floe/iceberg"
)

// BinaryAppender returns a function appending a value given in the
// spec's single-value binary form (a bound of a manifest's metrics) to b,
// a builder of the Arrow type ArrowType gives t: AppendValue of the
// decoded value, with the common fixed-width types, decimals and strings
// decoded straight into their typed builders (inspect files: a million
// files' bounds went from a boxed value each to none, part of the 3×
// measured in benchmarks/results/latest-planning.txt). A value that does
// not decode (a wrong width; a fixed bound truncated shorter than the
// type) is appended as null.
func BinaryAppender(b array.Builder, t iceberg.Type) (func(raw []byte) error, error) {
	slow := func(raw []byte) error { return AppendValue(b, t, valueFromBinary(t, raw)) }
	switch t.(type) {
	case iceberg.BooleanType:
		bb, err := builderAs[*array.BooleanBuilder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 1 {
				return slow(raw)
			}
			bb.Append(raw[0] != 0)
			return nil
		}, err
	case iceberg.IntType:
		ib, err := builderAs[*array.Int32Builder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 4 {
				return slow(raw)
			}
			ib.Append(int32(binary.LittleEndian.Uint32(raw)))
			return nil
		}, err
	case iceberg.DateType:
		db, err := builderAs[*array.Date32Builder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 4 {
				return slow(raw)
			}
			db.Append(arrow.Date32(int32(binary.LittleEndian.Uint32(raw))))
			return nil
		}, err
	case iceberg.LongType:
		ib, err := builderAs[*array.Int64Builder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 8 {
				return slow(raw)
			}
			ib.Append(int64(binary.LittleEndian.Uint64(raw)))
			return nil
		}, err
	case iceberg.TimeType:
		tb, err := builderAs[*array.Time64Builder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 8 {
				return slow(raw)
			}
			tb.Append(arrow.Time64(binary.LittleEndian.Uint64(raw)))
			return nil
		}, err
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		tb, err := builderAs[*array.TimestampBuilder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 8 {
				return slow(raw)
			}
			tb.Append(arrow.Timestamp(binary.LittleEndian.Uint64(raw)))
			return nil
		}, err
	case iceberg.FloatType:
		fb, err := builderAs[*array.Float32Builder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 4 {
				return slow(raw)
			}
			fb.Append(math.Float32frombits(binary.LittleEndian.Uint32(raw)))
			return nil
		}, err
	case iceberg.DoubleType:
		fb, err := builderAs[*array.Float64Builder](b, "bound")
		return func(raw []byte) error {
			if len(raw) != 8 {
				return slow(raw)
			}
			fb.Append(math.Float64frombits(binary.LittleEndian.Uint64(raw)))
			return nil
		}, err
	case iceberg.DecimalType:
		db, err := builderAs[*array.Decimal128Builder](b, "bound")
		return func(raw []byte) error {
			if len(raw) == 0 || len(raw) > 16 {
				return slow(raw)
			}
			// Big-endian two's complement, sign-extended to 16 bytes.
			var buf [16]byte
			if raw[0]&0x80 != 0 {
				for i := range 16 - len(raw) {
					buf[i] = 0xff
				}
			}
			copy(buf[16-len(raw):], raw)
			db.Append(decimal128.New(int64(binary.BigEndian.Uint64(buf[:8])), binary.BigEndian.Uint64(buf[8:])))
			return nil
		}, err
	case iceberg.StringType:
		sb, err := builderAs[*array.StringBuilder](b, "bound")
		if err != nil {
			return nil, err
		}
		// The bytes as they are, as string(raw) would be.
		bb := sb.BinaryBuilder
		return func(raw []byte) error { bb.Append(raw); return nil }, nil
	}
	return slow, nil
}

// valueFromBinary decodes raw, nil when it is not a value of t.
func valueFromBinary(t iceberg.Type, raw []byte) any {
	v, err := iceberg.ValueFromBytes(t, raw)
	if err != nil {
		return nil
	}
	if f, ok := t.(iceberg.FixedType); ok && len(raw) != f.Length {
		return nil // a truncated bound does not fit the column's width
	}
	return v
}

func builderAs[T array.Builder](b array.Builder, column string) (T, error) {
	t, ok := b.(T)
	if !ok {
		return t, fmt.Errorf("column %s: builder %T, want %T", column, b, t)
	}
	return t, nil
}
