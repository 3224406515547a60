package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/google/uuid"
)

// appendVariantJSON appends row i of a variant column as the JSON text of
// its value, the way Spark's to_json prints a variant (VariantUtil.toJson
// in Spark 4, in a UTC session): objects in the order the encoding stores
// their keys (sorted), decimals as plain JSON numbers, dates as quoted
// "yyyy-MM-dd", timestamps as quoted "yyyy-MM-dd HH:mm:ss[.fraction]"
// with "+00:00" when the timestamp has a zone (the fraction drops trailing
// zeros; nanosecond timestamps, which Spark lacks, keep up to 9 digits),
// times as quoted "HH:mm:ss[.fraction]", binary as quoted base64, uuids
// as quoted lowercase text. Floats are printed as Go's shortest form of
// the number; NaN and infinities, which JSON cannot hold, as the strings
// Spark prints.
func appendVariantJSON(b []byte, a arrow.Array, i int) ([]byte, error) {
	va, ok := a.(*extensions.VariantArray)
	if !ok {
		return nil, fmt.Errorf("a variant column arrived as Arrow %s", a.DataType())
	}
	v, err := va.Value(i)
	if err != nil {
		return nil, fmt.Errorf("variant row %d: %w", i, err)
	}
	return appendVariant(b, v, 0)
}

// maxVariantDepth bounds the nesting printed, so a hostile value cannot
// exhaust the stack.
const maxVariantDepth = 512

func appendVariant(b []byte, v variant.Value, depth int) ([]byte, error) {
	if depth > maxVariantDepth {
		return nil, fmt.Errorf("variant nested deeper than %d", maxVariantDepth)
	}
	quoted := func(s string) []byte {
		q, _ := json.Marshal(s)
		return append(b, q...)
	}
	switch x := v.Value().(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float32:
		return appendFloat(b, float64(x), 32), nil
	case float64:
		return appendFloat(b, x, 64), nil
	case string:
		return quoted(x), nil
	case []byte:
		return quoted(base64.StdEncoding.EncodeToString(x)), nil
	case uuid.UUID:
		return quoted(x.String()), nil
	case variant.DecimalValue[decimal.Decimal32]:
		if err := checkDecimalScale(x.Scale, 9); err != nil {
			return nil, err
		}
		return append(b, x.Value.ToString(int32(x.Scale))...), nil
	case variant.DecimalValue[decimal.Decimal64]:
		if err := checkDecimalScale(x.Scale, 18); err != nil {
			return nil, err
		}
		return append(b, x.Value.ToString(int32(x.Scale))...), nil
	case variant.DecimalValue[decimal.Decimal128]:
		if err := checkDecimalScale(x.Scale, 38); err != nil {
			return nil, err
		}
		return append(b, x.Value.ToString(int32(x.Scale))...), nil
	case arrow.Date32:
		return quoted(x.ToTime().Format("2006-01-02")), nil
	case arrow.Time64:
		t := time.UnixMicro(int64(x)).UTC()
		return quoted(t.Format("15:04:05") + fraction(t.Nanosecond(), 6)), nil
	case arrow.Timestamp:
		var t time.Time
		digits := 6
		switch v.Type() {
		case variant.TimestampNanos, variant.TimestampNanosNTZ:
			t, digits = time.Unix(0, int64(x)).UTC(), 9
		default:
			t = time.UnixMicro(int64(x)).UTC()
		}
		s := t.Format("2006-01-02 15:04:05") + fraction(t.Nanosecond(), digits)
		if v.Type() == variant.TimestampMicros || v.Type() == variant.TimestampNanos {
			s += "+00:00"
		}
		return quoted(s), nil
	case variant.ArrayValue:
		b = append(b, '[')
		n := 0
		for e := range x.Values() {
			if n > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendVariant(b, e, depth+1); err != nil {
				return nil, err
			}
			n++
		}
		return append(b, ']'), nil
	case variant.ObjectValue:
		b = append(b, '{')
		n := 0
		for k, fv := range x.Values() {
			if n > 0 {
				b = append(b, ',')
			}
			b = quoted(k)
			b = append(b, ':')
			var err error
			if b, err = appendVariant(b, fv, depth+1); err != nil {
				return nil, err
			}
			n++
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("variant value of type %d cannot be printed", v.Type())
}

// fraction is ".ddd" for the sub-second part in up to digits digits,
// trailing zeros dropped; empty for a whole second.
func fraction(nanos, digits int) string {
	if digits == 6 {
		nanos /= 1000
	}
	if nanos == 0 {
		return ""
	}
	s := fmt.Sprintf("%0*d", digits, nanos)
	return "." + strings.TrimRight(s, "0")
}

// checkDecimalScale refuses a variant decimal whose scale its width cannot
// hold (the Variant spec: 9, 18 and 38 digits for 4, 8 and 16 bytes):
// corrupt data, which arrow-go's formatting would panic on (decimal128)
// or print as noise.
func checkDecimalScale(scale uint8, max int) error {
	if int(scale) > max {
		return fmt.Errorf("variant decimal with scale %d, more than its %d digits: the value is corrupt", scale, max)
	}
	return nil
}
