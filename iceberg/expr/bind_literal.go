package expr

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/floedb/floe/iceberg"
)

// rangeResult says how a converted literal relates to its type's values.
// A literal that is not one of them still orders against every value of
// the type, which lets binding decide or tighten comparisons without it.
type rangeResult uint8

const (
	inRange  rangeResult = iota
	aboveMax             // greater than every value of the type
	belowMin             // less than every value of the type
	// between two neighbouring values of the type, equal to neither: a
	// decimal literal with more fraction digits than its column's scale.
	between
)

// literal is an unbound literal converted to a column's type.
type literal struct {
	fit   rangeResult
	value any // inRange: the canonical Go form (see iceberg/values.go)
	// between: the type's values just below and just above the literal.
	below, above any
}

func fits(v any) (literal, error)               { return literal{fit: inRange, value: v}, nil }
func outOfRange(r rangeResult) (literal, error) { return literal{fit: r}, nil }

// outside places a non-zero value beyond its type by its sign.
func outside(neg bool) (literal, error) {
	if neg {
		return outOfRange(belowMin)
	}
	return outOfRange(aboveMax)
}

// convertLiteral converts an unbound literal (string, int64, Number,
// float64, bool) to the primitive type t. Numbers convert exactly, except
// to float and double, which take the nearest value.
func convertLiteral(t iceberg.Type, v any) (literal, error) {
	switch x := v.(type) {
	case int64:
		return convertInt(t, x)
	case Number:
		return convertNumber(t, x.text)
	case float64:
		return convertFloat(t, x)
	case string:
		return convertString(t, x)
	case bool:
		if _, ok := t.(iceberg.BooleanType); ok {
			return fits(x)
		}
	case typedLiteral:
		return x.convert(t)
	case nil:
		return literal{}, fmt.Errorf("a null literal never matches; use is null")
	}
	return literal{}, cannotCompare(t, v)
}

func cannotCompare(t iceberg.Type, v any) error {
	return fmt.Errorf("cannot compare a %s column with %s", t, describeLiteral(v))
}

func describeLiteral(v any) string {
	var b strings.Builder
	writeLiteral(&b, v)
	if _, ok := v.(Number); ok {
		return "the number " + b.String()
	}
	return fmt.Sprintf("%T literal %s", v, b.String())
}

// microsPerDay bounds time-of-day values: [0, microsPerDay).
const microsPerDay = 86_400_000_000

func convertInt(t iceberg.Type, n int64) (literal, error) {
	switch t := t.(type) {
	case iceberg.IntType, iceberg.DateType:
		switch {
		case n > math.MaxInt32:
			return outOfRange(aboveMax)
		case n < math.MinInt32:
			return outOfRange(belowMin)
		}
		return fits(int32(n))
	case iceberg.LongType, iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return fits(n)
	case iceberg.TimeType:
		switch {
		case n >= microsPerDay:
			return outOfRange(aboveMax)
		case n < 0:
			return outOfRange(belowMin)
		}
		return fits(n)
	case iceberg.FloatType:
		return fits(float32(n))
	case iceberg.DoubleType:
		return fits(float64(n))
	case iceberg.DecimalType:
		return convertDecimal(t, exactFromInt64(n))
	}
	return literal{}, cannotCompare(t, n)
}

// convertNumber converts a number's decimal text: exactly to integers,
// dates, times, timestamps and decimals; to the nearest float or double.
func convertNumber(t iceberg.Type, text string) (literal, error) {
	switch t := t.(type) {
	case iceberg.FloatType, iceberg.DoubleType:
		return convertFloatText(t, text)
	case iceberg.DecimalType:
		return convertDecimalText(t, text)
	case iceberg.IntType, iceberg.LongType, iceberg.DateType, iceberg.TimeType,
		iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		x, ok := parseExact(text)
		if !ok {
			return literal{}, fmt.Errorf("%s column: invalid number %q", t, text)
		}
		return convertIntegral(t, text, x)
	}
	if _, err := ParseNumber(strings.TrimSpace(text)); err != nil {
		return literal{}, fmt.Errorf("%s column: %w", t, err)
	}
	return literal{}, fmt.Errorf("cannot compare a %s column with the number %s", t, text)
}

// convertIntegral converts an exact number to an integer-valued type; a
// fraction is an error, since such a column is rarely compared with one on
// purpose.
func convertIntegral(t iceberg.Type, text string, x exactNumber) (literal, error) {
	if x.isZero() {
		return convertInt(t, 0)
	}
	if x.exp < 0 {
		return literal{}, fmt.Errorf("cannot compare a %s column with the fraction %s", t, text)
	}
	if x.magnitude() > 19 { // |x| >= 10^19 > MaxInt64
		return outside(x.neg)
	}
	n, _ := x.scaled(0)
	if !n.IsInt64() {
		return outside(x.neg)
	}
	return convertInt(t, n.Int64())
}

// convertFloatText takes the float or double nearest to a number's text
// ("Infinity" and "-Infinity" too, as Iceberg's JSON single-value form
// writes them).
func convertFloatText(t iceberg.Type, text string) (literal, error) {
	bits := 64
	if _, ok := t.(iceberg.FloatType); ok {
		bits = 32
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), bits)
	var numErr *strconv.NumError
	switch {
	case err == nil:
	case errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange):
		if math.IsInf(f, 0) {
			return beyondFinite(bits, f < 0)
		}
		// Underflow: f is the nearest value, zero or a subnormal.
	default:
		return literal{}, fmt.Errorf("%s column: invalid number %q", t, text)
	}
	if math.IsNaN(f) {
		return literal{}, fmt.Errorf("NaN literal: use is nan")
	}
	if bits == 32 {
		return fits(float32(f))
	}
	return fits(f)
}

// beyondFinite places a finite number beyond the largest finite float or
// double between that value and the infinity of its sign, which such a
// column can also hold: x < 1e400 holds for every double but infinity and
// NaN, x > 1e400 only for infinity.
func beyondFinite(bits int, neg bool) (literal, error) {
	lo, hi := any(math.MaxFloat64), any(math.Inf(1))
	if bits == 32 {
		lo, hi = any(float32(math.MaxFloat32)), any(float32(math.Inf(1)))
	}
	if neg {
		lo, hi = negateFloat(hi), negateFloat(lo)
	}
	return literal{fit: between, below: lo, above: hi}, nil
}

func negateFloat(v any) any {
	if f, ok := v.(float32); ok {
		return -f
	}
	return -v.(float64)
}

// convertFloat converts a float64 literal (the Go API's): to floats and
// doubles as it is, to decimals exactly as its shortest decimal text, to
// integers only when integral.
func convertFloat(t iceberg.Type, f float64) (literal, error) {
	if math.IsNaN(f) {
		return literal{}, fmt.Errorf("NaN literal: use is nan")
	}
	switch t := t.(type) {
	case iceberg.FloatType:
		if !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
			return beyondFinite(32, f < 0)
		}
		return fits(float32(f))
	case iceberg.DoubleType:
		return fits(f)
	case iceberg.IntType, iceberg.LongType:
		switch {
		case math.IsInf(f, 0):
			return outside(f < 0)
		case f != math.Trunc(f):
			return literal{}, fmt.Errorf("cannot compare a %s column with the fraction %s", t, describeLiteral(f))
		}
		return convertNumber(t, strconv.FormatFloat(f, 'f', -1, 64))
	case iceberg.DecimalType:
		if math.IsInf(f, 0) {
			return outside(f < 0)
		}
		return convertNumber(t, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return literal{}, cannotCompare(t, f)
}

// convertDecimal converts an exact number to a decimal type. One with more
// fraction digits than the scale lies between two of the type's values; one
// beyond the precision, whatever its scale, lies beyond all of them.
// Nothing is rounded, so every comparison keeps its meaning.
func convertDecimal(t iceberg.DecimalType, x exactNumber) (literal, error) {
	if x.isZero() {
		return fits(iceberg.DecimalFromInt64(0, t.Scale))
	}
	// |x| >= 10^(magnitude-1), and every value of the type is below
	// 10^(precision-scale) in magnitude.
	if x.magnitude() > int64(t.Precision-t.Scale) {
		return outside(x.neg)
	}
	u, dropped := x.scaled(int64(t.Scale))
	toDecimal := func(u *big.Int) (any, bool) {
		if len(new(big.Int).Abs(u).String()) > t.Precision {
			return nil, false
		}
		d, err := iceberg.DecimalFromBigInt(u, t.Scale)
		return d, err == nil
	}
	if !dropped {
		d, ok := toDecimal(u)
		if !ok {
			return outside(x.neg)
		}
		return fits(d)
	}
	// u is x truncated toward zero at the scale.
	lo, hi := new(big.Int).Set(u), new(big.Int).Set(u)
	if x.neg {
		lo.Sub(lo, big.NewInt(1))
	} else {
		hi.Add(hi, big.NewInt(1))
	}
	below, okLo := toDecimal(lo)
	above, okHi := toDecimal(hi)
	if !okLo || !okHi {
		return outside(x.neg)
	}
	return literal{fit: between, below: below, above: above}, nil
}

func convertString(t iceberg.Type, s string) (literal, error) {
	wrap := func(v any, err error) (literal, error) {
		if err != nil {
			return literal{}, fmt.Errorf("%s column: %w", t, err)
		}
		return fits(v)
	}
	switch t := t.(type) {
	case iceberg.StringType:
		return fits(s)
	case iceberg.BooleanType:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return fits(true)
		case "false":
			return fits(false)
		}
		return literal{}, fmt.Errorf("boolean column: invalid boolean %q", s)
	case iceberg.IntType, iceberg.LongType:
		if x, ok := parseExact(s); ok {
			return convertIntegral(t, strings.TrimSpace(s), x)
		}
		// What strconv also reads ("0x1p4", "Infinity").
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil && !math.IsInf(f, 0) {
			return literal{}, fmt.Errorf("%s column: invalid number %q", t, s)
		}
		return convertFloat(t, f)
	case iceberg.FloatType, iceberg.DoubleType:
		return convertFloatText(t, s)
	case iceberg.DecimalType:
		return convertDecimalText(t, s)
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
			return literal{}, fmt.Errorf("%s column: literal %q must be hex", t, s)
		}
		if ft, ok := t.(iceberg.FixedType); ok && len(b) != ft.Length {
			return literal{}, fmt.Errorf("%s column: literal %q has %d bytes", t, s, len(b))
		}
		return fits(b)
	}
	return literal{}, cannotCompare(t, s)
}

// convertDecimalText converts a number's decimal text, quoted or not, to a
// decimal column's type exactly.
func convertDecimalText(t iceberg.DecimalType, text string) (literal, error) {
	x, ok := parseExact(text)
	if !ok {
		return literal{}, fmt.Errorf("%s column: invalid decimal %q", t, text)
	}
	return convertDecimal(t, x)
}
