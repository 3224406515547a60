package iceberg

import (
	"math"
	"testing"
)

// Each list is in ascending order; Compare must agree with every pair.
func TestCompareOrders(t *testing.T) {
	negZero32, negZero := float32(math.Copysign(0, -1)), math.Copysign(0, -1)
	u1, _ := ParseUUID("1571effb-facd-42a3-90e9-0af522e9b6c2")
	u2, _ := ParseUUID("7fae299c-cf05-4777-9b42-57a52e1415ed")
	u3, _ := ParseUUID("8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4") // high bit set: after u2 unsigned
	dec := DecimalType{Precision: 38, Scale: 2}
	cases := []struct {
		typ    Type
		values []any
	}{
		{BooleanType{}, []any{nil, false, true}},
		{IntType{}, []any{nil, int32(math.MinInt32), int32(-1), int32(0), int32(math.MaxInt32)}},
		{LongType{}, []any{int64(math.MinInt64), int64(0), int64(math.MaxInt64)}},
		{DateType{}, []any{int32(-1), int32(0), int32(1)}},
		{TimestamptzNsType{}, []any{int64(-1), int64(0), int64(1)}},
		// The spec's order, with Java's single NaN at the top.
		{FloatType{}, []any{float32(math.Inf(-1)), float32(-1), negZero32, float32(0), float32(1e-30), float32(math.Inf(1)), float32(math.NaN())}},
		{DoubleType{}, []any{nil, math.Inf(-1), -math.MaxFloat64, negZero, 0.0, math.SmallestNonzeroFloat64, math.Inf(1), math.NaN()}},
		{dec, []any{mustDecimal(t, "-170141183460469231731687303715884105.72", 2), mustDecimal(t, "-1.00", 2),
			mustDecimal(t, "-0.01", 2), mustDecimal(t, "0.00", 2), mustDecimal(t, "0.01", 2),
			mustDecimal(t, "92233720368547758.07", 2), mustDecimal(t, "92233720368547758.08", 2), // 2^63 - 1, 2^63
			mustDecimal(t, "184467440737095516.15", 2), mustDecimal(t, "184467440737095516.16", 2), // 2^64 - 1, 2^64
			mustDecimal(t, "170141183460469231731687303715884105.27", 2)}},
		// Code point order, which for UTF-8 is byte order: U+FFFD < U+1F600
		// although Java's UTF-16 chars would say otherwise.
		{StringType{}, []any{"", "a", "ab", "b", "é", "\uFFFD", "😀"}},
		{UUIDType{}, []any{u1, u2, u3}},
		{BinaryType{}, []any{[]byte{}, []byte{0}, []byte{0, 0}, []byte{0x7f}, []byte{0x80}, []byte{0xff}}},
		{FixedType{Length: 1}, []any{[]byte{0x01}, []byte{0xfe}}},
	}
	for _, c := range cases {
		for i, a := range c.values {
			for j, b := range c.values {
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got := sign(Compare(c.typ, a, b)); got != want {
					t.Errorf("%v: Compare(%v, %v) = %d, want %d", c.typ, a, b, got, want)
				}
			}
		}
	}
}

func TestCompareEqualValues(t *testing.T) {
	nan2 := math.Float64frombits(0x7ff8000000000001)
	if Compare(DoubleType{}, math.NaN(), nan2) != 0 {
		t.Error("NaNs of different payloads must compare equal")
	}
	// Decimals compare by value whatever their scales.
	if Compare(DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "1.5", 1), mustDecimal(t, "1.50", 2)) != 0 {
		t.Error("1.5 and 1.50 must compare equal")
	}
	if Compare(DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "1.5", 1), mustDecimal(t, "1.49", 2)) <= 0 {
		t.Error("1.5 must be above 1.49")
	}
	// Values of the wrong Go type compare equal rather than panic.
	if Compare(IntType{}, int64(1), int32(2)) != 0 {
		t.Error("a non-canonical value must compare equal")
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestCheckValue(t *testing.T) {
	good := []struct {
		typ Type
		v   any
	}{
		{IntType{}, int32(1)}, {DateType{}, int32(1)}, {TimeType{}, int64(1)}, {FloatType{}, float32(1)},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "1.00", 2)}, {FixedType{Length: 2}, []byte{1, 2}},
		{UUIDType{}, [16]byte{}}, {UnknownType{}, nil}, {StringType{}, nil},
	}
	for _, c := range good {
		if err := CheckValue(c.typ, c.v); err != nil {
			t.Errorf("%v %v: %v", c.typ, c.v, err)
		}
	}
	bad := []struct {
		typ Type
		v   any
	}{
		{IntType{}, 1}, {DateType{}, int64(1)}, {FloatType{}, 1.0}, {DoubleType{}, float32(1)},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "1.0", 1)}, {FixedType{Length: 2}, []byte{1}},
		{UUIDType{}, []byte{1}}, {UnknownType{}, int32(0)}, {&StructType{}, []any{}}, {StringType{}, []byte("x")},
	}
	for _, c := range bad {
		if err := CheckValue(c.typ, c.v); err == nil {
			t.Errorf("%v %v (%T): want an error", c.typ, c.v, c.v)
		}
	}
}
