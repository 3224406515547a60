package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
)

// appendJSONValue appends row i of a as JSON in Iceberg's single-value form
// (spec Appendix D), guided by the Iceberg type: decimals, dates, times and
// timestamps as strings, uuids in their text form, binary and fixed as
// lowercase hex, geometry and geography as WKT, structs as objects keyed
// by field name, maps as {"keys": […], "values": […]}, NaN and infinities
// as strings.
func appendJSONValue(b []byte, t iceberg.Type, a arrow.Array, i int) ([]byte, error) {
	if a.IsNull(i) {
		return append(b, "null"...), nil
	}
	str := func(s string) []byte { return strconv.AppendQuote(b, s) }
	switch t := t.(type) {
	case iceberg.BooleanType:
		return strconv.AppendBool(b, a.(*array.Boolean).Value(i)), nil
	case iceberg.IntType:
		return strconv.AppendInt(b, int64(a.(*array.Int32).Value(i)), 10), nil
	case iceberg.LongType:
		return strconv.AppendInt(b, a.(*array.Int64).Value(i), 10), nil
	case iceberg.FloatType:
		return appendFloat(b, float64(a.(*array.Float32).Value(i)), 32), nil
	case iceberg.DoubleType:
		return appendFloat(b, a.(*array.Float64).Value(i), 64), nil
	case iceberg.DecimalType:
		return str(a.(*array.Decimal128).Value(i).ToString(int32(t.Scale))), nil
	case iceberg.DateType:
		return str(iceberg.FormatDate(int32(a.(*array.Date32).Value(i)))), nil
	case iceberg.TimeType:
		return str(iceberg.FormatTime(int64(a.(*array.Time64).Value(i)))), nil
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		v := int64(a.(*array.Timestamp).Value(i))
		nanos := t == iceberg.TimestampNsType{} || t == iceberg.TimestamptzNsType{}
		zone := t == iceberg.TimestamptzType{} || t == iceberg.TimestamptzNsType{}
		return str(iceberg.FormatTimestamp(v, nanos, zone)), nil
	case iceberg.StringType:
		s, _ := json.Marshal(a.(*array.String).Value(i))
		return append(b, s...), nil
	case iceberg.UUIDType:
		var u [16]byte
		copy(u[:], a.(*array.FixedSizeBinary).Value(i))
		return str(iceberg.FormatUUID(u)), nil
	case iceberg.FixedType:
		return str(hex.EncodeToString(a.(*array.FixedSizeBinary).Value(i))), nil
	case iceberg.BinaryType:
		return str(hex.EncodeToString(a.(*array.Binary).Value(i))), nil
	case iceberg.GeometryType, iceberg.GeographyType:
		text, err := iceberg.WKBToWKT(a.(*array.Binary).Value(i))
		if err != nil {
			return nil, fmt.Errorf("a %s value: %w", t, err)
		}
		return str(text), nil
	case iceberg.UnknownType:
		return append(b, "null"...), nil
	case iceberg.VariantType:
		return appendVariantJSON(b, a, i)
	case *iceberg.StructType:
		s := a.(*array.Struct)
		b = append(b, '{')
		for k, f := range t.Fields {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, f.Name)
			b = append(b, ':')
			var err error
			if b, err = appendJSONValue(b, f.Type, s.Field(k), i); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case *iceberg.ListType:
		l := a.(*array.List)
		start, end := l.ValueOffsets(i)
		b = append(b, '[')
		for k := start; k < end; k++ {
			if k > start {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSONValue(b, t.Element, l.ListValues(), int(k)); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case *iceberg.MapType:
		m := a.(*array.Map)
		start, end := m.ValueOffsets(i)
		var err error
		b = append(b, `{"keys":[`...)
		for k := start; k < end; k++ {
			if k > start {
				b = append(b, ',')
			}
			if b, err = appendJSONValue(b, t.Key, m.Keys(), int(k)); err != nil {
				return nil, err
			}
		}
		b = append(b, `],"values":[`...)
		for k := start; k < end; k++ {
			if k > start {
				b = append(b, ',')
			}
			if b, err = appendJSONValue(b, t.Value, m.Items(), int(k)); err != nil {
				return nil, err
			}
		}
		return append(b, "]}"...), nil
	}
	return nil, fmt.Errorf("cannot format a value of type %s", t)
}

func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// textValue is a value as CSV and table output show it: strings bare,
// nested values as their JSON, null as empty (CSV) or NULL (table).
func textValue(t iceberg.Type, a arrow.Array, i int, null string) (string, error) {
	if a.IsNull(i) {
		return null, nil
	}
	if _, ok := t.(iceberg.StringType); ok {
		return a.(*array.String).Value(i), nil
	}
	raw, err := appendJSONValue(nil, t, a, i)
	if err != nil {
		return "", err
	}
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, nil
		}
	}
	return string(raw), nil
}
