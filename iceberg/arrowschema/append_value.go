package arrowschema

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// AppendValue appends one value in the canonical Go form of package
// iceberg (int32 for int and date, int64 for long, time and timestamps,
// iceberg.Decimal, [16]byte for uuid, []byte for fixed and binary, []any
// for structs and lists, iceberg.MapValue for maps; nil for null) to a
// builder of the Arrow type ArrowType gives t. It is the one Iceberg-value
// → Arrow conversion for values that arrive one at a time: metadata
// tables, the rows of tests. Bulk data never goes through it.
func AppendValue(b array.Builder, t iceberg.Type, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error {
		return errkind.Errorf(errkind.InvalidArgument, "value %v (%T) is not a %s", v, v, t)
	}
	switch t := t.(type) {
	case iceberg.BooleanType:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		b.(*array.BooleanBuilder).Append(x)
	case iceberg.IntType, iceberg.DateType:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		if _, date := t.(iceberg.DateType); date {
			b.(*array.Date32Builder).Append(arrow.Date32(x))
		} else {
			b.(*array.Int32Builder).Append(x)
		}
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(x)
		case *array.Time64Builder:
			b.Append(arrow.Time64(x))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(x))
		default:
			return fmt.Errorf("append %s: builder %T", t, b)
		}
	case iceberg.FloatType:
		x, ok := v.(float32)
		if !ok {
			return bad()
		}
		b.(*array.Float32Builder).Append(x)
	case iceberg.DoubleType:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		b.(*array.Float64Builder).Append(x)
	case iceberg.DecimalType:
		d, ok := v.(iceberg.Decimal)
		if !ok {
			return bad()
		}
		b.(*array.Decimal128Builder).Append(decimal128.New(d.Hi, d.Lo))
	case iceberg.StringType:
		x, ok := v.(string)
		if !ok {
			return bad()
		}
		b.(*array.StringBuilder).Append(x)
	case iceberg.UUIDType:
		u, ok := v.([16]byte)
		if !ok {
			return bad()
		}
		b.(*array.FixedSizeBinaryBuilder).Append(u[:])
	case iceberg.FixedType:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		b.(*array.FixedSizeBinaryBuilder).Append(x)
	case iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		b.(*array.BinaryBuilder).Append(x)
	case *iceberg.StructType:
		fields, ok := v.([]any)
		if !ok || len(fields) != len(t.Fields) {
			return bad()
		}
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for i, f := range t.Fields {
			if err := AppendValue(sb.FieldBuilder(i), f.Type, fields[i]); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	case *iceberg.ListType:
		elems, ok := v.([]any)
		if !ok {
			return bad()
		}
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		for _, e := range elems {
			if err := AppendValue(lb.ValueBuilder(), t.Element, e); err != nil {
				return err
			}
		}
	case *iceberg.MapType:
		mv, ok := v.(iceberg.MapValue)
		if !ok || len(mv.Keys) != len(mv.Values) {
			return bad()
		}
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		for i := range mv.Keys {
			if err := AppendValue(mb.KeyBuilder(), t.Key, mv.Keys[i]); err != nil {
				return err
			}
			if err := AppendValue(mb.ItemBuilder(), t.Value, mv.Values[i]); err != nil {
				return err
			}
		}
	default:
		return errkind.Errorf(errkind.Unsupported, "values of type %s are not built one at a time", t)
	}
	return nil
}
