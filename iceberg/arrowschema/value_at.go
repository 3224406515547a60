package arrowschema

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// ValueAt is AppendValue's inverse: element i of an array of the Arrow
// type ArrowType gives t (large strings and binaries too), in package
// iceberg's canonical Go form; nil for null. Like AppendValue it is for
// values taken one at a time (small metadata files read back), never bulk
// data. Primitives and structs of them; lists, maps and variants are
// refused.
func ValueAt(a arrow.Array, i int, t iceberg.Type) (any, error) {
	if ext, ok := a.(array.ExtensionArray); ok {
		a = ext.Storage()
	}
	if a.IsNull(i) {
		return nil, nil
	}
	var v any
	switch t := t.(type) {
	case iceberg.BooleanType:
		if x, ok := a.(*array.Boolean); ok {
			v = x.Value(i)
		}
	case iceberg.IntType:
		if x, ok := a.(*array.Int32); ok {
			v = x.Value(i)
		}
	case iceberg.DateType:
		if x, ok := a.(*array.Date32); ok {
			v = int32(x.Value(i))
		}
	case iceberg.LongType:
		if x, ok := a.(*array.Int64); ok {
			v = x.Value(i)
		}
	case iceberg.TimeType:
		if x, ok := a.(*array.Time64); ok {
			n := int64(x.Value(i))
			if x.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
				n /= 1000
			}
			v = n
		}
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		if x, ok := a.(*array.Timestamp); ok {
			v = int64(x.Value(i))
		}
	case iceberg.FloatType:
		if x, ok := a.(*array.Float32); ok {
			v = x.Value(i)
		}
	case iceberg.DoubleType:
		if x, ok := a.(*array.Float64); ok {
			v = x.Value(i)
		}
	case iceberg.DecimalType:
		if x, ok := a.(*array.Decimal128); ok {
			n := x.Value(i)
			v = iceberg.Decimal{Hi: n.HighBits(), Lo: n.LowBits(), Scale: t.Scale}
		}
	case iceberg.StringType:
		switch x := a.(type) {
		case *array.String:
			v = x.Value(i)
		case *array.LargeString:
			v = x.Value(i)
		}
	case iceberg.UUIDType:
		if x, ok := a.(*array.FixedSizeBinary); ok && len(x.Value(i)) == 16 {
			v = [16]byte(x.Value(i))
		}
	case iceberg.FixedType:
		if x, ok := a.(*array.FixedSizeBinary); ok {
			v = bytes.Clone(x.Value(i))
		}
	case iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		switch x := a.(type) {
		case *array.Binary:
			v = bytes.Clone(x.Value(i))
		case *array.LargeBinary:
			v = bytes.Clone(x.Value(i))
		}
	case *iceberg.StructType:
		x, ok := a.(*array.Struct)
		if !ok || x.NumField() != len(t.Fields) {
			break
		}
		out := make([]any, len(t.Fields))
		for j, f := range t.Fields {
			var err error
			if out[j], err = ValueAt(x.Field(j), i, f.Type); err != nil {
				return nil, err
			}
		}
		v = out
	}
	if v == nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "an Arrow %s array does not hold %s values", a.DataType(), t)
	}
	return v, nil
}
