package iceberg

import "fmt"

// CheckValue reports whether v is in the canonical Go form of primitive
// type t (see values.go); nil (null) is accepted for every type. A decimal
// must carry t's scale, a fixed value t's length.
func CheckValue(t Type, v any) error {
	if v == nil {
		return nil
	}
	ok := false
	switch t := t.(type) {
	case BooleanType:
		_, ok = v.(bool)
	case IntType, DateType:
		_, ok = v.(int32)
	case LongType, TimeType, TimestampType, TimestamptzType, TimestampNsType, TimestamptzNsType:
		_, ok = v.(int64)
	case FloatType:
		_, ok = v.(float32)
	case DoubleType:
		_, ok = v.(float64)
	case DecimalType:
		var d Decimal
		if d, ok = v.(Decimal); ok && d.Scale != t.Scale {
			return fmt.Errorf("decimal %s has scale %d, not the scale of %s", d, d.Scale, t)
		}
	case StringType:
		_, ok = v.(string)
	case UUIDType:
		_, ok = v.([16]byte)
	case FixedType:
		var b []byte
		if b, ok = v.([]byte); ok && len(b) != t.Length {
			return fmt.Errorf("%s value has %d bytes", t, len(b))
		}
	case BinaryType, GeometryType, GeographyType:
		_, ok = v.([]byte)
	case UnknownType:
		return fmt.Errorf("an unknown-typed value must be null, got %v (%T)", v, v)
	case VariantType:
		return fmt.Errorf("a variant column can only default to null, got %v (%T)", v, v)
	default:
		return fmt.Errorf("%v is not a primitive type", t)
	}
	if !ok {
		return wrongValue(t, v)
	}
	return nil
}
