package iceberg

import (
	"encoding/binary"
	"fmt"
	"github.com/twmb/murmur3"
	"math"
	"math/big"
	"unicode/utf8"
	"unsafe"
)

// Result types and value mapping of the partition transforms (spec
// "Partition Transforms", Appendix B). Temporal transforms floor before the
// epoch: 1969-12-31T23:59:59 is year, month, day and hour -1.

const (
	microsPerHour = int64(3_600_000_000)
	microsPerDay  = 24 * microsPerHour
	nanosPerHour  = microsPerHour * 1000
	nanosPerDay   = microsPerDay * 1000
)

func (IdentityTransform) ResultType(source Type) (Type, error) {
	if source == nil || IsNested(source) || IsGeo(source) || IsVariant(source) {
		// The spec allows identity on primitives only; variant is not one,
		// and geometry and geography have no order to partition by.
		return nil, fmt.Errorf("identity transform needs a primitive source other than variant, geometry and geography, not %v", source)
	}
	return source, nil
}

func (IdentityTransform) Apply(source Type, v any) (any, error) {
	if _, err := (IdentityTransform{}).ResultType(source); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	if err := CheckValue(source, v); err != nil {
		return nil, err
	}
	return v, nil
}

// ResultType of void is its source type; a missing source (nil) gives int,
// as the spec allows.
func (VoidTransform) ResultType(source Type) (Type, error) {
	if source == nil {
		return IntType{}, nil
	}
	return source, nil
}

func (VoidTransform) Apply(Type, any) (any, error) { return nil, nil }

func (YearTransform) ResultType(source Type) (Type, error) {
	if err := checkTemporalSource("year", source, true); err != nil {
		return nil, err
	}
	return IntType{}, nil
}

func (MonthTransform) ResultType(source Type) (Type, error) {
	if err := checkTemporalSource("month", source, true); err != nil {
		return nil, err
	}
	return IntType{}, nil
}

func (DayTransform) ResultType(source Type) (Type, error) {
	if err := checkTemporalSource("day", source, true); err != nil {
		return nil, err
	}
	return DateType{}, nil
}

func (HourTransform) ResultType(source Type) (Type, error) {
	if err := checkTemporalSource("hour", source, false); err != nil {
		return nil, err
	}
	return IntType{}, nil
}

func (YearTransform) Apply(source Type, v any) (any, error) {
	days, err := temporalDays("year", source, v, true)
	if err != nil || v == nil {
		return nil, err
	}
	y, _, _ := civilFromDays(days)
	return int32(y - 1970), nil
}

func (MonthTransform) Apply(source Type, v any) (any, error) {
	days, err := temporalDays("month", source, v, true)
	if err != nil || v == nil {
		return nil, err
	}
	y, m, _ := civilFromDays(days)
	return int32((y-1970)*12 + int64(m) - 1), nil
}

func (DayTransform) Apply(source Type, v any) (any, error) {
	days, err := temporalDays("day", source, v, true)
	if err != nil || v == nil {
		return nil, err
	}
	return int32(days), nil
}

func (HourTransform) Apply(source Type, v any) (any, error) {
	if err := checkTemporalSource("hour", source, false); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	n, ok := v.(int64)
	if !ok {
		return nil, wrongValue(source, v)
	}
	var hours int64
	switch source.(type) {
	case TimestampType, TimestamptzType:
		hours = floorDiv(n, microsPerHour)
	default:
		hours = floorDiv(n, nanosPerHour)
	}
	if hours < math.MinInt32 || hours > math.MaxInt32 {
		return nil, fmt.Errorf("hour transform: %s value %d is out of the int range", source, n)
	}
	return int32(hours), nil
}

func checkTemporalSource(name string, source Type, dateAllowed bool) error {
	switch source.(type) {
	case TimestampType, TimestamptzType, TimestampNsType, TimestamptzNsType:
		return nil
	case DateType:
		if dateAllowed {
			return nil
		}
	}
	return fmt.Errorf("%s transform cannot apply to %v", name, source)
}

// temporalDays checks source and v and gives v's day since the epoch
// (floored); a nil v gives 0 and no error.
func temporalDays(name string, source Type, v any, dateAllowed bool) (int64, error) {
	if err := checkTemporalSource(name, source, dateAllowed); err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil
	}
	switch source.(type) {
	case DateType:
		d, ok := v.(int32)
		if !ok {
			return 0, wrongValue(source, v)
		}
		return int64(d), nil
	case TimestampType, TimestamptzType:
		n, ok := v.(int64)
		if !ok {
			return 0, wrongValue(source, v)
		}
		return floorDiv(n, microsPerDay), nil
	default:
		n, ok := v.(int64)
		if !ok {
			return 0, wrongValue(source, v)
		}
		return floorDiv(n, nanosPerDay), nil
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian
// year, month (1-12) and day (1-31), for any int64 day count a date or
// timestamp can hold.
func civilFromDays(days int64) (year int64, month, day int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11], March first
	day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		month = int(mp + 3)
	} else {
		month = int(mp - 9)
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

func (t BucketTransform) ResultType(source Type) (Type, error) {
	if t.N <= 0 {
		return nil, fmt.Errorf("bucket transform needs a positive bucket count, got %d", t.N)
	}
	switch source.(type) {
	case IntType, LongType, DecimalType, DateType, TimeType, TimestampType, TimestamptzType,
		TimestampNsType, TimestamptzNsType, StringType, UUIDType, FixedType, BinaryType:
		return IntType{}, nil
	}
	return nil, fmt.Errorf("%s transform cannot apply to %v", t, source)
}

func (t BucketTransform) Apply(source Type, v any) (any, error) {
	if _, err := t.ResultType(source); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	h, err := t.HashValue(source, v)
	if err != nil {
		return nil, err
	}
	return int32(int64(h&math.MaxInt32) % int64(t.N)), nil
}

// HashValue is the spec's 32-bit hash (Murmur3 x86_32, seed 0, Appendix B)
// of one canonical value. It is also defined for boolean, float and double,
// which the spec hashes although bucket may not use them.
func (BucketTransform) HashValue(source Type, v any) (int32, error) {
	if v == nil {
		return 0, fmt.Errorf("cannot hash a null %v", source)
	}
	switch st := source.(type) {
	case IntType, DateType:
		if n, ok := v.(int32); ok {
			return hashLong(int64(n)), nil
		}
	case LongType, TimeType, TimestampType, TimestamptzType:
		if n, ok := v.(int64); ok {
			return hashLong(n), nil
		}
	case TimestampNsType, TimestamptzNsType:
		// Nanoseconds hash as microseconds so a value hashes alike at both
		// precisions.
		if n, ok := v.(int64); ok {
			return hashLong(floorDiv(n, 1000)), nil
		}
	case DecimalType:
		if d, ok := v.(Decimal); ok {
			d, err := d.Rescale(st.Scale)
			if err != nil {
				return 0, err
			}
			var buf [16]byte
			return hashBytes(minimalDecimalBytes(&buf, d)), nil
		}
	case StringType:
		if s, ok := v.(string); ok {
			return hashBytes(unsafe.Slice(unsafe.StringData(s), len(s))), nil
		}
	case UUIDType:
		if u, ok := v.([16]byte); ok {
			return hashBytes(u[:]), nil
		}
	case FixedType, BinaryType:
		if b, ok := v.([]byte); ok {
			return hashBytes(b), nil
		}
	case BooleanType:
		if b, ok := v.(bool); ok {
			if b {
				return hashLong(1), nil
			}
			return hashLong(0), nil
		}
	case FloatType:
		if f, ok := v.(float32); ok {
			return hashDouble(float64(f)), nil
		}
	case DoubleType:
		if f, ok := v.(float64); ok {
			return hashDouble(f), nil
		}
	default:
		return 0, fmt.Errorf("values of type %v have no 32-bit hash", source)
	}
	return 0, wrongValue(source, v)
}

func hashLong(n int64) int32 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	return int32(murmur3.Sum32(b[:]))
}

func hashDouble(f float64) int32 {
	switch {
	case f != f:
		return hashLong(0x7ff8000000000000)
	case f == 0: // -0.0 hashes as 0.0
		return hashLong(0)
	}
	return hashLong(int64(math.Float64bits(f)))
}

func hashBytes(b []byte) int32 { return int32(murmur3.Sum32(b)) }

// minimalDecimalBytes writes d's unscaled value into buf as big-endian two's
// complement and returns the shortest suffix that keeps its sign, as Java's
// BigInteger.toByteArray does (zero is one 0x00 byte).
func minimalDecimalBytes(buf *[16]byte, d Decimal) []byte {
	binary.BigEndian.PutUint64(buf[0:8], uint64(d.Hi))
	binary.BigEndian.PutUint64(buf[8:16], d.Lo)
	i := 0
	for i < 15 {
		if (buf[i] == 0x00 && buf[i+1]&0x80 == 0) || (buf[i] == 0xff && buf[i+1]&0x80 != 0) {
			i++
			continue
		}
		break
	}
	return buf[i:]
}

func (t TruncateTransform) ResultType(source Type) (Type, error) {
	if t.Width <= 0 {
		return nil, fmt.Errorf("truncate transform needs a positive width, got %d", t.Width)
	}
	switch source.(type) {
	case IntType, LongType, DecimalType, StringType, BinaryType:
		return source, nil
	}
	return nil, fmt.Errorf("%s transform cannot apply to %v", t, source)
}

// Apply truncates v. A truncated binary value shares v's memory.
func (t TruncateTransform) Apply(source Type, v any) (any, error) {
	if _, err := t.ResultType(source); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	w := int64(t.Width)
	switch st := source.(type) {
	case IntType:
		n, ok := v.(int32)
		if !ok {
			break
		}
		r := int64(n) - positiveMod(int64(n), w)
		if r < math.MinInt32 {
			return nil, fmt.Errorf("%s of int %d is out of the int range", t, n)
		}
		return int32(r), nil
	case LongType:
		n, ok := v.(int64)
		if !ok {
			break
		}
		m := positiveMod(n, w)
		if n < math.MinInt64+m {
			return nil, fmt.Errorf("%s of long %d is out of the long range", t, n)
		}
		return n - m, nil
	case DecimalType:
		d, ok := v.(Decimal)
		if !ok {
			break
		}
		d, err := d.Rescale(st.Scale)
		if err != nil {
			return nil, err
		}
		if n, small := d.Int64(); small {
			if m := positiveMod(n, w); n >= math.MinInt64+m {
				return DecimalFromInt64(n-m, d.Scale), nil
			}
		}
		u := d.Unscaled()
		u.Sub(u, new(big.Int).Mod(u, big.NewInt(w))) // Mod is Euclidean: never negative
		return DecimalFromBigInt(u, d.Scale)
	case StringType:
		s, ok := v.(string)
		if !ok {
			break
		}
		return truncateCodePoints(s, t.Width), nil
	case BinaryType:
		b, ok := v.([]byte)
		if !ok {
			break
		}
		if len(b) > t.Width {
			return b[:t.Width], nil
		}
		return b, nil
	}
	return nil, wrongValue(source, v)
}

func positiveMod(n, w int64) int64 {
	m := n % w
	if m < 0 {
		m += w
	}
	return m
}

// truncateCodePoints keeps at most n code points of s. Invalid UTF-8 bytes
// count as one code point each, as the decoder reports them.
func truncateCodePoints(s string, n int) string {
	if len(s) <= n {
		return s // n bytes hold at least n code points
	}
	count := 0
	for i := 0; i < len(s); {
		if count == n {
			return s[:i]
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s
}

func (t UnknownTransform) ResultType(Type) (Type, error) {
	return nil, fmt.Errorf("unknown transform %q", t.Name)
}

func (t UnknownTransform) Apply(Type, any) (any, error) {
	return nil, fmt.Errorf("unknown transform %q cannot be applied", t.Name)
}

func wrongValue(t Type, v any) error {
	return fmt.Errorf("value %v (%T) is not a canonical %v value", v, v, t)
}
