package expr

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/floedb/floe/iceberg"
)

// rangeResult says whether a converted literal fits its type; a literal that
// does not still orders against every value of the type, which lets binding
// decide comparisons without it.
type rangeResult uint8

const (
	inRange rangeResult = iota
	aboveMax
	belowMin
)

// convertLiteral converts an unbound literal (string, int64, float64, bool)
// to the canonical Go form of the primitive type t.
func convertLiteral(t iceberg.Type, v any) (any, rangeResult, error) {
	switch x := v.(type) {
	case int64:
		return convertInt(t, x)
	case float64:
		return convertFloat(t, x)
	case string:
		return convertString(t, x)
	case bool:
		if _, ok := t.(iceberg.BooleanType); ok {
			return x, inRange, nil
		}
	case nil:
		return nil, inRange, fmt.Errorf("a null literal never matches; use is null")
	}
	return nil, inRange, fmt.Errorf("cannot compare a %s column with %s", t, describeLiteral(v))
}

func describeLiteral(v any) string {
	var b strings.Builder
	writeLiteral(&b, v)
	return fmt.Sprintf("%T literal %s", v, b.String())
}

func convertInt(t iceberg.Type, n int64) (any, rangeResult, error) {
	switch t := t.(type) {
	case iceberg.IntType, iceberg.DateType:
		switch {
		case n > math.MaxInt32:
			return nil, aboveMax, nil
		case n < math.MinInt32:
			return nil, belowMin, nil
		}
		return int32(n), inRange, nil
	case iceberg.LongType, iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return n, inRange, nil
	case iceberg.FloatType:
		return float32(n), inRange, nil
	case iceberg.DoubleType:
		return float64(n), inRange, nil
	case iceberg.DecimalType:
		d, err := iceberg.DecimalFromInt64(n, 0).Rescale(t.Scale)
		if err != nil {
			return nil, inRange, err
		}
		return checkPrecision(t, d)
	}
	return nil, inRange, fmt.Errorf("cannot compare a %s column with %s", t, describeLiteral(n))
}

func convertFloat(t iceberg.Type, f float64) (any, rangeResult, error) {
	if math.IsNaN(f) {
		return nil, inRange, fmt.Errorf("NaN literal: use is nan")
	}
	switch t := t.(type) {
	case iceberg.IntType, iceberg.LongType:
		switch {
		case f >= math.MaxInt64:
			return nil, aboveMax, nil
		case f < math.MinInt64:
			return nil, belowMin, nil
		case f != math.Trunc(f):
			return nil, inRange, fmt.Errorf("cannot compare a %s column with the fraction %s", t, describeLiteral(f))
		}
		return convertInt(t, int64(f))
	case iceberg.FloatType:
		switch {
		case f > math.MaxFloat32:
			return nil, aboveMax, nil
		case f < -math.MaxFloat32:
			return nil, belowMin, nil
		}
		return float32(f), inRange, nil
	case iceberg.DoubleType:
		return f, inRange, nil
	case iceberg.DecimalType:
		d, err := iceberg.ParseDecimal(strconv.FormatFloat(f, 'g', -1, 64), t.Scale)
		if err != nil {
			return nil, inRange, err
		}
		return checkPrecision(t, d)
	}
	return nil, inRange, fmt.Errorf("cannot compare a %s column with %s", t, describeLiteral(f))
}

// checkPrecision places a decimal with more digits than its type allows
// beyond the type's range.
func checkPrecision(t iceberg.DecimalType, d iceberg.Decimal) (any, rangeResult, error) {
	u := d.Unscaled()
	if len(strings.TrimPrefix(u.String(), "-")) <= t.Precision {
		return d, inRange, nil
	}
	if u.Sign() < 0 {
		return nil, belowMin, nil
	}
	return nil, aboveMax, nil
}

func convertString(t iceberg.Type, s string) (any, rangeResult, error) {
	wrap := func(v any, err error) (any, rangeResult, error) {
		if err != nil {
			return nil, inRange, fmt.Errorf("%s column: %w", t, err)
		}
		return v, inRange, nil
	}
	switch t := t.(type) {
	case iceberg.StringType:
		return s, inRange, nil
	case iceberg.BooleanType:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, inRange, nil
		case "false":
			return false, inRange, nil
		}
		return nil, inRange, fmt.Errorf("boolean column: invalid boolean %q", s)
	case iceberg.IntType, iceberg.LongType:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if ferr != nil {
				return nil, inRange, fmt.Errorf("%s column: invalid number %q", t, s)
			}
			return convertFloat(t, f)
		}
		return convertInt(t, n)
	case iceberg.FloatType, iceberg.DoubleType:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, inRange, fmt.Errorf("%s column: invalid number %q", t, s)
		}
		return convertFloat(t, f)
	case iceberg.DecimalType:
		d, err := iceberg.ParseDecimal(s, t.Scale)
		if err != nil {
			return nil, inRange, fmt.Errorf("%s column: %w", t, err)
		}
		return checkPrecision(t, d)
	case iceberg.DateType:
		return wrap(iceberg.ParseDate(s))
	case iceberg.TimeType:
		return wrap(iceberg.ParseTime(s))
	case iceberg.TimestampType, iceberg.TimestamptzType:
		return wrap(iceberg.ParseTimestamp(s, false))
	case iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return wrap(iceberg.ParseTimestamp(s, true))
	case iceberg.UUIDType:
		return wrap(iceberg.ParseUUID(s))
	case iceberg.BinaryType, iceberg.FixedType:
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, inRange, fmt.Errorf("%s column: literal %q must be hex", t, s)
		}
		if ft, ok := t.(iceberg.FixedType); ok && len(b) != ft.Length {
			return nil, inRange, fmt.Errorf("%s column: literal %q has %d bytes", t, s, len(b))
		}
		return b, inRange, nil
	}
	return nil, inRange, fmt.Errorf("cannot compare a %s column with %s", t, describeLiteral(s))
}
