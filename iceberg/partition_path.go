package iceberg

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Partition paths and human-readable partition values, spelled the way the
// Java reference implementation spells them (PartitionSpec.partitionToPath
// and Transform.toHumanString), so files floe writes land in the same
// directories other engines use.

// PartitionPath gives the Hive-style directory of a partition tuple,
// "name=value/name2=value2", with values in their human form and names and
// values escaped as Java's URLEncoder does. partType is the spec's partition
// type (PartitionType) and values the tuple in spec order; a missing value
// is null.
func (s *PartitionSpec) PartitionPath(partType *StructType, values []any) string {
	var sb strings.Builder
	for i, f := range s.Fields {
		var v any
		if i < len(values) {
			v = values[i]
		}
		var rt Type = UnknownType{}
		if partType != nil && i < len(partType.Fields) {
			rt = partType.Fields[i].Type
		}
		if i > 0 {
			sb.WriteByte('/')
		}
		appendURLEncoded(&sb, f.Name)
		sb.WriteByte('=')
		appendURLEncoded(&sb, HumanString(f.Transform, rt, v))
	}
	return sb.String()
}

// HumanString is a partition value's human form: "null" for null; year
// "2020", month "2020-01", day "2020-01-01", hour "2020-01-01-09"; for other
// transforms the result type's form: dates YYYY-MM-DD, times and timestamps
// ISO-8601 (timestamptz with "+00:00"), binary and fixed base64, floats and
// decimals as Java prints them. A value not in resultType's canonical form is
// printed with fmt.
func HumanString(t Transform, resultType Type, v any) string {
	if v == nil {
		return "null"
	}
	switch t.(type) {
	case VoidTransform:
		return "null"
	case YearTransform, MonthTransform, DayTransform, HourTransform:
		ordinal, ok := v.(int32)
		if !ok {
			break
		}
		switch t.(type) {
		case YearTransform:
			return fmt.Sprintf("%04d", 1970+int64(ordinal))
		case MonthTransform:
			return fmt.Sprintf("%04d-%02d", 1970+floorDiv(int64(ordinal), 12), 1+positiveMod(int64(ordinal), 12))
		case DayTransform:
			return humanDate(int64(ordinal))
		default:
			y, m, d := civilFromDays(floorDiv(int64(ordinal), 24))
			return fmt.Sprintf("%04d-%02d-%02d-%02d", y, m, d, positiveMod(int64(ordinal), 24))
		}
	}
	switch rt := resultType.(type) {
	case DateType:
		if d, ok := v.(int32); ok {
			return humanDate(int64(d))
		}
	case TimeType:
		if n, ok := v.(int64); ok {
			return humanTime(n)
		}
	case TimestampType, TimestamptzType, TimestampNsType, TimestamptzNsType:
		if n, ok := v.(int64); ok {
			nanos := rt == (TimestampNsType{}) || rt == (TimestamptzNsType{})
			zone := rt == (TimestamptzType{}) || rt == (TimestamptzNsType{})
			return humanTimestamp(n, nanos, zone)
		}
	case FixedType, BinaryType:
		if b, ok := v.([]byte); ok {
			return base64.StdEncoding.EncodeToString(b)
		}
	case UUIDType:
		if u, ok := v.([16]byte); ok {
			return FormatUUID(u)
		}
	case DecimalType:
		if d, ok := v.(Decimal); ok {
			return javaDecimalString(d)
		}
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float32:
		return javaFloatString(float64(x), 32)
	case float64:
		return javaFloatString(x, 64)
	}
	return fmt.Sprint(v)
}

// humanDate is Java's "%04d-%02d-%02d" of the day's date.
func humanDate(days int64) string {
	y, m, d := civilFromDays(days)
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// humanTime is Java's LocalTime.toString: HH:mm, then :ss only when seconds
// or a fraction are non-zero, then the fraction in groups of three digits.
func humanTime(micros int64) string {
	micros = positiveMod(micros, microsPerDay)
	secs := micros / 1_000_000
	frac := micros % 1_000_000
	s := fmt.Sprintf("%02d:%02d", secs/3600, secs/60%60)
	if secs%60 == 0 && frac == 0 {
		return s
	}
	s += fmt.Sprintf(":%02d", secs%60)
	switch {
	case frac == 0:
	case frac%1000 == 0:
		s += fmt.Sprintf(".%03d", frac/1000)
	default:
		s += fmt.Sprintf(".%06d", frac)
	}
	return s
}

// humanTimestamp is Java's ISO_LOCAL_DATE_TIME (seconds always, the
// fraction without trailing zeros), with "+00:00" when zone is set.
func humanTimestamp(v int64, nanos, zone bool) string {
	unitsPerSecond := int64(1_000_000)
	width := 6
	if nanos {
		unitsPerSecond, width = 1_000_000_000, 9
	}
	secs := floorDiv(v, unitsPerSecond)
	frac := positiveMod(v, unitsPerSecond)
	y, m, d := civilFromDays(floorDiv(secs, 86400))
	sod := positiveMod(secs, 86400)
	var sb strings.Builder
	switch {
	case y > 9999:
		fmt.Fprintf(&sb, "+%d", y)
	case y < 0:
		fmt.Fprintf(&sb, "-%04d", -y)
	default:
		fmt.Fprintf(&sb, "%04d", y)
	}
	fmt.Fprintf(&sb, "-%02d-%02dT%02d:%02d:%02d", m, d, sod/3600, sod/60%60, sod%60)
	if frac != 0 {
		digits := fmt.Sprintf("%0*d", width, frac)
		sb.WriteByte('.')
		sb.WriteString(strings.TrimRight(digits, "0"))
	}
	if zone {
		sb.WriteString("+00:00")
	}
	return sb.String()
}

// javaDecimalString is Java's BigDecimal.toString: plain digits unless the
// scale is negative or the value is below 10^-6, then scientific notation.
func javaDecimalString(d Decimal) string {
	u := d.Unscaled()
	neg := u.Sign() < 0
	digits := u.Abs(u).String()
	adjusted := -d.Scale + len(digits) - 1
	sign := ""
	if neg {
		sign = "-"
	}
	if d.Scale >= 0 && adjusted >= -6 {
		return sign + placeDecimalPoint(digits, d.Scale)
	}
	mantissa := digits[:1]
	if len(digits) > 1 {
		mantissa += "." + digits[1:]
	}
	exp := strconv.Itoa(adjusted)
	if adjusted >= 0 {
		exp = "+" + exp
	}
	return sign + mantissa + "E" + exp
}

// placeDecimalPoint puts the point scale digits from the right of digits.
func placeDecimalPoint(digits string, scale int) string {
	if scale == 0 {
		return digits
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	return digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

// javaFloatString is Java's Float.toString / Double.toString: the shortest
// digits that read back, plain with at least one fraction digit for
// magnitudes in [10^-3, 10^7), else d.dddE±n.
func javaFloatString(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // like -1.5e+07
	mantissa, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mantissa, ".") {
		mantissa += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mantissa + "E" + strconv.Itoa(e)
}

// appendURLEncoded escapes s as Java's URLEncoder.encode(s, UTF_8):
// letters, digits and ".-*_" stay, space becomes '+', every other byte %XX.
func appendURLEncoded(sb *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '.', c == '-', c == '*', c == '_':
			sb.WriteByte(c)
		case c == ' ':
			sb.WriteByte('+')
		default:
			sb.WriteByte('%')
			sb.WriteByte(hex[c>>4])
			sb.WriteByte(hex[c&15])
		}
	}
}
