package bounds

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"

	"github.com/floedb/floe/iceberg"
)

// Domain is how values of an Iceberg type order, unboxed.
type Domain uint8

const (
	DomainNone    Domain = iota // not comparable: bounds never decide
	DomainInt                   // boolean (0/1), int, long, date, time, timestamps
	DomainFloat                 // float, double: numeric order, -0 == +0, NaN apart
	DomainDecimal               // unscaled 128-bit at the column type's scale
	DomainBytes                 // string, binary, fixed, uuid: unsigned bytes
)

// DomainOf gives the domain values of t compare in.
func DomainOf(t iceberg.Type) Domain {
	switch t.(type) {
	case iceberg.BooleanType, iceberg.IntType, iceberg.LongType, iceberg.DateType, iceberg.TimeType,
		iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return DomainInt
	case iceberg.FloatType, iceberg.DoubleType:
		return DomainFloat
	case iceberg.DecimalType:
		return DomainDecimal
	case iceberg.StringType, iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType:
		return DomainBytes
	}
	return DomainNone
}

// Value is one value of a domain, unboxed so that comparing a dictionary
// or a page index allocates nothing. Which fields are set depends on the
// domain: Int; Float; Hi and Lo (a two's complement unscaled decimal);
// Bytes.
type Value struct {
	Int   int64
	Float float64
	Hi    int64
	Lo    uint64
	Bytes []byte
}

// Compare orders two values of domain d. NaN never reaches it: summaries
// keep NaNs apart (see Summary).
func (d Domain) Compare(a, b *Value) int {
	switch d {
	case DomainInt:
		return cmp.Compare(a.Int, b.Int)
	case DomainFloat:
		switch {
		case a.Float < b.Float:
			return -1
		case a.Float > b.Float:
			return 1
		}
		return 0
	case DomainDecimal:
		if a.Hi != b.Hi {
			return cmp.Compare(a.Hi, b.Hi)
		}
		return cmp.Compare(a.Lo, b.Lo)
	case DomainBytes:
		return bytes.Compare(a.Bytes, b.Bytes)
	}
	return 0
}

func (d Domain) isNaN(v *Value) bool { return d == DomainFloat && math.IsNaN(v.Float) }

// ValueOf converts a value in t's canonical Go form (see iceberg/values.go)
// into t's domain; ok is false for a value that does not convert, and for
// NaN, which is no bound.
func ValueOf(t iceberg.Type, v any) (Value, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return Value{Int: 1}, true
		}
		return Value{}, true
	case int32:
		return Value{Int: int64(x)}, true
	case int64:
		return Value{Int: x}, true
	case float32:
		return Value{Float: float64(x)}, !math.IsNaN(float64(x))
	case float64:
		return Value{Float: x}, !math.IsNaN(x)
	case iceberg.Decimal:
		dt, ok := t.(iceberg.DecimalType)
		if !ok {
			return Value{}, false
		}
		d, err := x.Rescale(dt.Scale)
		if err != nil {
			return Value{}, false
		}
		return Value{Hi: d.Hi, Lo: d.Lo}, true
	case string:
		return Value{Bytes: []byte(x)}, true
	case []byte:
		return Value{Bytes: x}, true
	case [16]byte:
		return Value{Bytes: append([]byte(nil), x[:]...)}, true
	}
	return Value{}, false
}

// DecodeBinary reads a bound in Iceberg's single-value binary form (column
// metrics, partition field summaries) as a value of t. Bounds keep the
// type a column had when its file was written, so the narrower encodings
// a promotion allows are read as their promotion: an int as a long, a
// float as a double, a date as a timestamp's midnight (a decimal keeps its
// scale when its precision widens). Any other width is no bound (ok
// false). Nothing is allocated.
func DecodeBinary(t iceberg.Type, raw []byte) (Value, bool) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		if len(raw) == 1 {
			if raw[0] != 0 {
				return Value{Int: 1}, true
			}
			return Value{}, true
		}
	case iceberg.IntType, iceberg.DateType:
		if len(raw) == 4 {
			return Value{Int: int64(int32(binary.LittleEndian.Uint32(raw)))}, true
		}
	case iceberg.LongType:
		switch len(raw) {
		case 8:
			return Value{Int: int64(binary.LittleEndian.Uint64(raw))}, true
		case 4:
			return Value{Int: int64(int32(binary.LittleEndian.Uint32(raw)))}, true
		}
	case iceberg.TimeType:
		if len(raw) == 8 {
			return Value{Int: int64(binary.LittleEndian.Uint64(raw))}, true
		}
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		switch len(raw) {
		case 8:
			return Value{Int: int64(binary.LittleEndian.Uint64(raw))}, true
		case 4:
			days := int64(int32(binary.LittleEndian.Uint32(raw)))
			perDay := int64(86_400_000_000)
			if t == (iceberg.TimestampNsType{}) || t == (iceberg.TimestamptzNsType{}) {
				perDay *= 1000
			}
			if days > math.MaxInt64/perDay || days < math.MinInt64/perDay {
				return Value{}, false
			}
			return Value{Int: days * perDay}, true
		}
	case iceberg.FloatType:
		if len(raw) == 4 {
			return Value{Float: float64(math.Float32frombits(binary.LittleEndian.Uint32(raw)))}, true
		}
	case iceberg.DoubleType:
		switch len(raw) {
		case 8:
			return Value{Float: math.Float64frombits(binary.LittleEndian.Uint64(raw))}, true
		case 4:
			return Value{Float: float64(math.Float32frombits(binary.LittleEndian.Uint32(raw)))}, true
		}
	case iceberg.DecimalType:
		return decodeBigEndianDecimal(raw)
	case iceberg.StringType, iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType:
		return Value{Bytes: raw}, true
	}
	return Value{}, false
}

// decodeBigEndianDecimal reads a big-endian two's complement unscaled
// value of any length whose value fits in 128 bits.
func decodeBigEndianDecimal(raw []byte) (Value, bool) {
	if len(raw) == 0 {
		return Value{}, false
	}
	sign := byte(0)
	if raw[0]&0x80 != 0 {
		sign = 0xff
	}
	if len(raw) > 16 {
		// Longer encodings are fine while the extra bytes only extend the sign.
		for _, b := range raw[:len(raw)-16] {
			if b != sign {
				return Value{}, false
			}
		}
		raw = raw[len(raw)-16:]
		if (raw[0]&0x80 != 0) != (sign != 0) {
			return Value{}, false
		}
	}
	var buf [16]byte
	for i := range 16 - len(raw) {
		buf[i] = sign
	}
	copy(buf[16-len(raw):], raw)
	return Value{Hi: int64(binary.BigEndian.Uint64(buf[:8])), Lo: binary.BigEndian.Uint64(buf[8:])}, true
}
