package manifest

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/floedb/floe/iceberg"
)

// partitionValue appends one partition value as the optional field Java
// writes: a ["null", T] union, or nothing for an unknown-typed (always
// null) field.
func (e *encoder) partitionValue(t iceberg.Type, v any) error {
	if _, unknown := t.(iceberg.UnknownType); unknown {
		if v != nil {
			return fmt.Errorf("an unknown-typed partition field must be null, not %v", v)
		}
		return nil
	}
	if v == nil {
		e.null()
		return nil
	}
	e.present()
	wrong := fmt.Errorf("partition value %v (%T) is not a %s", v, v, t)
	switch t := t.(type) {
	case iceberg.BooleanType:
		b, ok := v.(bool)
		if !ok {
			return wrong
		}
		e.boolean(b)
	case iceberg.IntType, iceberg.DateType:
		n, ok := v.(int32)
		if !ok {
			return wrong
		}
		e.long(int64(n))
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
		iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		n, ok := v.(int64)
		if !ok {
			return wrong
		}
		e.long(n)
	case iceberg.FloatType:
		f, ok := v.(float32)
		if !ok {
			return wrong
		}
		e.float(f)
	case iceberg.DoubleType:
		f, ok := v.(float64)
		if !ok {
			return wrong
		}
		e.double(f)
	case iceberg.StringType:
		s, ok := v.(string)
		if !ok {
			return wrong
		}
		e.str(s)
	case iceberg.UUIDType:
		u, ok := v.([16]byte)
		if !ok {
			return wrong
		}
		e.fixed(u[:])
	case iceberg.FixedType:
		b, ok := v.([]byte)
		if !ok || len(b) != t.Length {
			return wrong
		}
		e.fixed(b)
	case iceberg.BinaryType:
		b, ok := v.([]byte)
		if !ok {
			return wrong
		}
		e.bytes(b)
	case iceberg.DecimalType:
		d, ok := v.(iceberg.Decimal)
		if !ok || d.Scale != t.Scale {
			return wrong
		}
		var err error
		if e.buf, err = decimalToBigEndian(e.buf, d, decimalRequiredBytes(t.Precision)); err != nil {
			return err
		}
	default:
		return fmt.Errorf("partition fields cannot have type %s", t)
	}
	return nil
}

// singleValue is Iceberg's binary single-value encoding (spec Appendix D),
// used for partition summary bounds.
func singleValue(t iceberg.Type, v any) ([]byte, error) {
	wrong := fmt.Errorf("value %v (%T) is not a %s", v, v, t)
	switch t.(type) {
	case iceberg.BooleanType:
		if b, ok := v.(bool); ok {
			if b {
				return []byte{1}, nil
			}
			return []byte{0}, nil
		}
	case iceberg.IntType, iceberg.DateType:
		if n, ok := v.(int32); ok {
			return binary.LittleEndian.AppendUint32(nil, uint32(n)), nil
		}
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
		iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		if n, ok := v.(int64); ok {
			return binary.LittleEndian.AppendUint64(nil, uint64(n)), nil
		}
	case iceberg.FloatType:
		if f, ok := v.(float32); ok {
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(f)), nil
		}
	case iceberg.DoubleType:
		if f, ok := v.(float64); ok {
			return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), nil
		}
	case iceberg.StringType:
		if s, ok := v.(string); ok {
			return []byte(s), nil
		}
	case iceberg.UUIDType:
		if u, ok := v.([16]byte); ok {
			return u[:], nil
		}
	case iceberg.FixedType, iceberg.BinaryType:
		if b, ok := v.([]byte); ok {
			return bytes.Clone(b), nil
		}
	case iceberg.DecimalType:
		if d, ok := v.(iceberg.Decimal); ok {
			var full [16]byte
			binary.BigEndian.PutUint64(full[:8], uint64(d.Hi))
			binary.BigEndian.PutUint64(full[8:], d.Lo)
			return bytes.Clone(minimalTwosComplement(full[:])), nil
		}
	default:
		return nil, fmt.Errorf("type %s has no binary single-value encoding", t)
	}
	return nil, wrong
}

// compareValues orders two non-null, non-NaN canonical values of one
// type; -0.0 sorts before +0.0 as the spec asks of bounds. Values of the
// wrong Go type were rejected by the encoder before this runs.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int32:
		return cmp.Compare(x, b.(int32))
	case int64:
		return cmp.Compare(x, b.(int64))
	case float32:
		return compareFloats(float64(x), float64(b.(float32)))
	case float64:
		return compareFloats(x, b.(float64))
	case string:
		// Byte order of UTF-8 is code point order.
		return strings.Compare(x, b.(string))
	case [16]byte:
		y := b.([16]byte)
		return bytes.Compare(x[:], y[:])
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case iceberg.Decimal:
		y := b.(iceberg.Decimal)
		if x.Scale == y.Scale {
			if c := cmp.Compare(x.Hi, y.Hi); c != 0 {
				return c
			}
			return cmp.Compare(x.Lo, y.Lo)
		}
		return x.Cmp(y)
	}
	return 0
}

func compareFloats(x, y float64) int {
	if x == 0 && y == 0 {
		return cmp.Compare(b2i(!math.Signbit(x)), b2i(!math.Signbit(y)))
	}
	return cmp.Compare(x, y)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isNaN(v any) bool {
	switch x := v.(type) {
	case float32:
		return x != x
	case float64:
		return x != x
	}
	return false
}
