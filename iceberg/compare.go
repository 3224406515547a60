package iceberg

import (
	"bytes"
	"cmp"
	"math"
	"strings"
)

// Compare orders two canonical values of primitive type t: negative when a
// sorts before b, zero when equal, positive after. Null sorts first. Floats
// follow Java's Float.compare, which the spec's sort order names: -0 < +0
// and every NaN is equal and greater than +Inf. Strings, binary, fixed and
// uuid compare as unsigned bytes (for strings that is code point order).
// Decimals compare by value whatever their scales.
//
// Values that are not in t's canonical form (see CheckValue) compare equal
// to everything, so check untrusted values first.
func Compare(t Type, a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch t.(type) {
	case BooleanType:
		x, ok1 := a.(bool)
		y, ok2 := b.(bool)
		if ok1 && ok2 && x != y {
			if x {
				return 1
			}
			return -1
		}
	case IntType, DateType:
		x, ok1 := a.(int32)
		y, ok2 := b.(int32)
		if ok1 && ok2 {
			return cmp.Compare(x, y)
		}
	case LongType, TimeType, TimestampType, TimestamptzType, TimestampNsType, TimestamptzNsType:
		x, ok1 := a.(int64)
		y, ok2 := b.(int64)
		if ok1 && ok2 {
			return cmp.Compare(x, y)
		}
	case FloatType:
		x, ok1 := a.(float32)
		y, ok2 := b.(float32)
		if ok1 && ok2 {
			return compareFloat(float64(x), float64(y))
		}
	case DoubleType:
		x, ok1 := a.(float64)
		y, ok2 := b.(float64)
		if ok1 && ok2 {
			return compareFloat(x, y)
		}
	case DecimalType:
		x, ok1 := a.(Decimal)
		y, ok2 := b.(Decimal)
		if ok1 && ok2 {
			if x.Scale == y.Scale {
				if x.Hi != y.Hi {
					return cmp.Compare(x.Hi, y.Hi)
				}
				return cmp.Compare(x.Lo, y.Lo)
			}
			return x.Cmp(y)
		}
	case StringType:
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		if ok1 && ok2 {
			return strings.Compare(x, y)
		}
	case UUIDType:
		x, ok1 := a.([16]byte)
		y, ok2 := b.([16]byte)
		if ok1 && ok2 {
			return bytes.Compare(x[:], y[:])
		}
	case FixedType, BinaryType:
		x, ok1 := a.([]byte)
		y, ok2 := b.([]byte)
		if ok1 && ok2 {
			return bytes.Compare(x, y)
		}
	}
	return 0
}

// compareFloat is Java's Double.compare: total, with -0 < +0 and all NaNs
// equal and above +Inf.
func compareFloat(x, y float64) int {
	xNaN, yNaN := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xNaN && yNaN:
		return 0
	case xNaN:
		return 1
	case yNaN:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	case x == 0 && y == 0:
		return cmp.Compare(boolInt(!math.Signbit(x)), boolInt(!math.Signbit(y)))
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
