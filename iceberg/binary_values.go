package iceberg

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Binary single-value serialization (spec Appendix D): the form of manifest
// lower/upper bounds and of partition field summaries.

// ValueToBytes encodes a canonical value of primitive type t. Geometry and
// geography values are their WKB; their bounds in manifests are not values
// but points (AppendGeoBound, ParseGeoBound).
func ValueToBytes(t Type, v any) ([]byte, error) {
	return AppendValueBytes(nil, t, v)
}

// AppendValueBytes appends the binary form of v to dst, so writers can
// encode many bounds into one buffer. A fixed value may be shorter than the
// type's length, as a truncated bound is.
func AppendValueBytes(dst []byte, t Type, v any) ([]byte, error) {
	if v == nil {
		return nil, fmt.Errorf("a null %v has no binary form", t)
	}
	switch t := t.(type) {
	case BooleanType:
		if b, ok := v.(bool); ok {
			if b {
				return append(dst, 1), nil
			}
			return append(dst, 0), nil
		}
	case IntType, DateType:
		if n, ok := v.(int32); ok {
			return binary.LittleEndian.AppendUint32(dst, uint32(n)), nil
		}
	case LongType, TimeType, TimestampType, TimestamptzType, TimestampNsType, TimestamptzNsType:
		if n, ok := v.(int64); ok {
			return binary.LittleEndian.AppendUint64(dst, uint64(n)), nil
		}
	case FloatType:
		if f, ok := v.(float32); ok {
			return binary.LittleEndian.AppendUint32(dst, math.Float32bits(f)), nil
		}
	case DoubleType:
		if f, ok := v.(float64); ok {
			return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
		}
	case DecimalType:
		if d, ok := v.(Decimal); ok {
			d, err := d.Rescale(t.Scale)
			if err != nil {
				return nil, err
			}
			var buf [16]byte
			return append(dst, minimalDecimalBytes(&buf, d)...), nil
		}
	case StringType:
		if s, ok := v.(string); ok {
			return append(dst, s...), nil
		}
	case UUIDType:
		if u, ok := v.([16]byte); ok {
			return append(dst, u[:]...), nil
		}
	case FixedType:
		if b, ok := v.([]byte); ok {
			if len(b) > t.Length {
				return nil, fmt.Errorf("%s value has %d bytes", t, len(b))
			}
			return append(dst, b...), nil
		}
	case BinaryType, GeometryType, GeographyType:
		if b, ok := v.([]byte); ok {
			return append(dst, b...), nil
		}
	default:
		return nil, fmt.Errorf("values of type %v have no binary single-value form", t)
	}
	return nil, wrongValue(t, v)
}

// ValueFromBytes decodes the binary form of a value of primitive type t into
// its canonical Go form. Bounds are not rewritten when a column's type is
// promoted, so the width tells the type they were written with: a long with
// 4 bytes was an int, a double with 4 bytes a float, and a timestamp or
// timestamp_ns with 4 bytes a date (its midnight). A fixed bound may be
// shorter than the type's length (truncated). The result never shares b's
// memory.
func ValueFromBytes(t Type, b []byte) (any, error) {
	switch t := t.(type) {
	case BooleanType:
		if len(b) == 1 {
			return b[0] != 0, nil
		}
	case IntType, DateType:
		if len(b) == 4 {
			return int32(binary.LittleEndian.Uint32(b)), nil
		}
	case LongType:
		switch len(b) {
		case 8:
			return int64(binary.LittleEndian.Uint64(b)), nil
		case 4:
			return int64(int32(binary.LittleEndian.Uint32(b))), nil
		}
	case TimeType:
		if len(b) == 8 {
			return int64(binary.LittleEndian.Uint64(b)), nil
		}
	case TimestampType, TimestamptzType, TimestampNsType, TimestamptzNsType:
		switch len(b) {
		case 8:
			return int64(binary.LittleEndian.Uint64(b)), nil
		case 4:
			days := int64(int32(binary.LittleEndian.Uint32(b)))
			perDay := microsPerDay
			if t == (TimestampNsType{}) || t == (TimestamptzNsType{}) {
				perDay = nanosPerDay
				if days > math.MaxInt64/perDay || days < math.MinInt64/perDay {
					return nil, fmt.Errorf("date %d promoted to %s is out of range", days, t)
				}
			}
			return days * perDay, nil
		}
	case FloatType:
		if len(b) == 4 {
			return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
		}
	case DoubleType:
		switch len(b) {
		case 8:
			return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
		case 4:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
		}
	case DecimalType:
		return decimalFromBytes(b, t.Scale)
	case StringType:
		return string(b), nil
	case UUIDType:
		if len(b) == 16 {
			return [16]byte(b), nil
		}
	case FixedType:
		if len(b) > t.Length {
			return nil, fmt.Errorf("%s value has %d bytes", t, len(b))
		}
		return append([]byte{}, b...), nil
	case BinaryType, GeometryType, GeographyType:
		return append([]byte{}, b...), nil
	default:
		return nil, fmt.Errorf("values of type %v have no binary single-value form", t)
	}
	return nil, fmt.Errorf("a %v value cannot be %d bytes long", t, len(b))
}

// decimalFromBytes reads a big-endian two's complement unscaled value; longer
// forms than 16 bytes are accepted when the extra bytes only extend the sign.
func decimalFromBytes(b []byte, scale int) (Decimal, error) {
	if len(b) == 0 {
		return Decimal{}, fmt.Errorf("a decimal value cannot be 0 bytes long")
	}
	var sign byte
	if b[0]&0x80 != 0 {
		sign = 0xff
	}
	if len(b) > 16 {
		extra := b[:len(b)-16]
		for _, x := range extra {
			if x != sign {
				return Decimal{}, fmt.Errorf("decimal value of %d bytes does not fit in 128 bits", len(b))
			}
		}
		if b[len(extra)]&0x80 != sign&0x80 {
			return Decimal{}, fmt.Errorf("decimal value of %d bytes does not fit in 128 bits", len(b))
		}
		b = b[len(extra):]
	}
	var buf [16]byte
	for i := 0; i < 16-len(b); i++ {
		buf[i] = sign
	}
	copy(buf[16-len(b):], b)
	return Decimal{Hi: int64(binary.BigEndian.Uint64(buf[0:8])), Lo: binary.BigEndian.Uint64(buf[8:16]), Scale: scale}, nil
}
