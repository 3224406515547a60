package manifest

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/floedb/floe/iceberg"
)

// partitionValue converts a partition value as Avro decoded it (logical
// types stripped: nil, bool, int32, int64, float32, float64, string or
// []byte) into the canonical Go form of the partition field's Iceberg type.
// The Iceberg type decides, not the Avro annotation, which writers may omit.
func partitionValue(t iceberg.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) { return nil, fmt.Errorf("a %T cannot hold a %s partition value", v, t) }
	switch t := t.(type) {
	case iceberg.UnknownType:
		return nil, nil
	case iceberg.BooleanType:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case iceberg.IntType, iceberg.DateType:
		switch x := v.(type) {
		case int32:
			return x, nil
		case int64:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return nil, fmt.Errorf("%s partition value %d does not fit in 32 bits", t, x)
			}
			return int32(x), nil
		}
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
		iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		}
	case iceberg.FloatType:
		switch x := v.(type) {
		case float32:
			return x, nil
		case float64:
			return float32(x), nil
		}
	case iceberg.DoubleType:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		}
	case iceberg.StringType:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case iceberg.UUIDType:
		switch x := v.(type) {
		case []byte:
			if len(x) != 16 {
				return nil, fmt.Errorf("uuid partition value has %d bytes, not 16", len(x))
			}
			return [16]byte(x), nil
		case string:
			return iceberg.ParseUUID(x)
		}
	case iceberg.FixedType:
		if b, ok := v.([]byte); ok {
			if len(b) != t.Length {
				return nil, fmt.Errorf("%s partition value has %d bytes", t, len(b))
			}
			return b, nil
		}
	case iceberg.BinaryType:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case iceberg.DecimalType:
		switch x := v.(type) {
		case []byte:
			return decimalFromBigEndian(x, t.Scale)
		case int32:
			return iceberg.DecimalFromInt64(int64(x), t.Scale), nil
		case int64:
			return iceberg.DecimalFromInt64(x, t.Scale), nil
		}
	default:
		return nil, fmt.Errorf("partition fields cannot have type %s", t)
	}
	return bad()
}

// decimalFromBigEndian reads a two's-complement big-endian unscaled value
// of up to 16 bytes (Avro decimal and Iceberg's binary encoding).
func decimalFromBigEndian(b []byte, scale int) (iceberg.Decimal, error) {
	if len(b) == 0 {
		return iceberg.Decimal{}, fmt.Errorf("empty decimal value")
	}
	// Strip sign-extension bytes so a fixed wider than 16 bytes still reads
	// when its value fits.
	for len(b) > 16 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
		b = b[1:]
	}
	if len(b) > 16 {
		return iceberg.Decimal{}, fmt.Errorf("decimal value of %d bytes does not fit in 128 bits", len(b))
	}
	var full [16]byte
	if b[0]&0x80 != 0 {
		for i := range full {
			full[i] = 0xff
		}
	}
	copy(full[16-len(b):], b)
	return iceberg.Decimal{
		Hi:    int64(binary.BigEndian.Uint64(full[:8])),
		Lo:    binary.BigEndian.Uint64(full[8:]),
		Scale: scale,
	}, nil
}

// decimalToBigEndian writes the unscaled value in exactly n bytes, sign
// extended (an Avro fixed); it fails when the value needs more.
func decimalToBigEndian(dst []byte, d iceberg.Decimal, n int) ([]byte, error) {
	var full [16]byte
	binary.BigEndian.PutUint64(full[:8], uint64(d.Hi))
	binary.BigEndian.PutUint64(full[8:], d.Lo)
	minimal := minimalTwosComplement(full[:])
	if len(minimal) > n {
		return dst, fmt.Errorf("decimal %s needs %d bytes, more than the %d its precision allows", d, len(minimal), n)
	}
	pad := byte(0)
	if d.Hi < 0 {
		pad = 0xff
	}
	for i := len(minimal); i < n; i++ {
		dst = append(dst, pad)
	}
	return append(dst, minimal...), nil
}

// minimalTwosComplement drops redundant leading sign bytes, as Java's
// BigInteger.toByteArray does; Iceberg's binary encoding of decimals.
func minimalTwosComplement(b []byte) []byte {
	for len(b) > 1 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
		b = b[1:]
	}
	return b
}

// decimalRequiredBytes is the fixed size Java uses for a decimal of the
// given precision: the fewest bytes whose signed range holds 10^P - 1.
func decimalRequiredBytes(precision int) int {
	for n := 1; n <= 16; n++ {
		if int(math.Floor(math.Log10(math.Pow(2, float64(8*n-1))-1))) >= precision {
			return n
		}
	}
	return 16
}
