package manifest

import (
	"fmt"

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
	wrong := func() error { return fmt.Errorf("partition value %v (%T) is not a %s", v, v, t) }
	switch t := t.(type) {
	case iceberg.BooleanType:
		b, ok := v.(bool)
		if !ok {
			return wrong()
		}
		e.boolean(b)
	case iceberg.IntType, iceberg.DateType:
		n, ok := v.(int32)
		if !ok {
			return wrong()
		}
		e.long(int64(n))
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
		iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		n, ok := v.(int64)
		if !ok {
			return wrong()
		}
		e.long(n)
	case iceberg.FloatType:
		f, ok := v.(float32)
		if !ok {
			return wrong()
		}
		e.float(f)
	case iceberg.DoubleType:
		f, ok := v.(float64)
		if !ok {
			return wrong()
		}
		e.double(f)
	case iceberg.StringType:
		s, ok := v.(string)
		if !ok {
			return wrong()
		}
		e.str(s)
	case iceberg.UUIDType:
		u, ok := v.([16]byte)
		if !ok {
			return wrong()
		}
		e.fixed(u[:])
	case iceberg.FixedType:
		b, ok := v.([]byte)
		if !ok || len(b) != t.Length {
			return wrong()
		}
		e.fixed(b)
	case iceberg.BinaryType:
		b, ok := v.([]byte)
		if !ok {
			return wrong()
		}
		e.bytes(b)
	case iceberg.DecimalType:
		d, ok := v.(iceberg.Decimal)
		if !ok || d.Scale != t.Scale {
			return wrong()
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

func isNaN(v any) bool {
	switch x := v.(type) {
	case float32:
		return x != x
	case float64:
		return x != x
	}
	return false
}
