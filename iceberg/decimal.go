package iceberg

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is an unscaled 128-bit two's complement integer and its scale:
// value = unscaled × 10^-scale. It is comparable with ==, so it can key maps.
type Decimal struct {
	Hi    int64
	Lo    uint64
	Scale int
}

var (
	two64     = new(big.Int).Lsh(big.NewInt(1), 64)
	maxInt128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	minInt128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	bigTen    = big.NewInt(10)
)

// DecimalFromInt64 makes a decimal from a small unscaled value.
func DecimalFromInt64(unscaled int64, scale int) Decimal {
	hi := int64(0)
	if unscaled < 0 {
		hi = -1
	}
	return Decimal{Hi: hi, Lo: uint64(unscaled), Scale: scale}
}

// DecimalFromBigInt makes a decimal from an unscaled big integer; it fails
// when the value does not fit in 128 bits.
func DecimalFromBigInt(unscaled *big.Int, scale int) (Decimal, error) {
	if unscaled.Cmp(maxInt128) > 0 || unscaled.Cmp(minInt128) < 0 {
		return Decimal{}, fmt.Errorf("decimal %s does not fit in 128 bits", unscaled)
	}
	v := new(big.Int).Set(unscaled)
	if v.Sign() < 0 {
		v.Add(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	lo := new(big.Int).And(v, new(big.Int).Sub(two64, big.NewInt(1))).Uint64()
	hi := new(big.Int).Rsh(v, 64).Uint64()
	return Decimal{Hi: int64(hi), Lo: lo, Scale: scale}, nil
}

// Unscaled returns the unscaled value as a big integer.
func (d Decimal) Unscaled() *big.Int {
	v := new(big.Int).SetInt64(d.Hi)
	v.Lsh(v, 64)
	return v.Add(v, new(big.Int).SetUint64(d.Lo))
}

// Int64 returns the unscaled value when it fits in 64 bits.
func (d Decimal) Int64() (int64, bool) {
	if (d.Hi == 0 && int64(d.Lo) >= 0) || (d.Hi == -1 && int64(d.Lo) < 0) {
		return int64(d.Lo), true
	}
	return 0, false
}

// String formats the decimal with exactly Scale fraction digits.
func (d Decimal) String() string {
	u := d.Unscaled()
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	if d.Scale > 0 {
		if len(digits) <= d.Scale {
			digits = strings.Repeat("0", d.Scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-d.Scale] + "." + digits[len(digits)-d.Scale:]
	} else if d.Scale < 0 {
		digits += strings.Repeat("0", -d.Scale)
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// ParseDecimal parses a decimal string ("-12.30", "1E+3") at the given scale;
// a value with more fraction digits than the scale is an error, fewer are
// padded.
func ParseDecimal(s string, scale int) (Decimal, error) {
	s = strings.TrimSpace(s)
	// A 128-bit decimal has at most 39 digits; bounding the text and the
	// exponent keeps hostile input ("1e999999") from building huge numbers.
	if len(s) > 100 {
		return Decimal{}, fmt.Errorf("invalid decimal: %d characters is too long", len(s))
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(s[i+1:]); err != nil || exp > 80 || exp < -80 {
			return Decimal{}, fmt.Errorf("invalid decimal %q: exponent out of range", s)
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return Decimal{}, fmt.Errorf("invalid decimal %q", s)
	}
	mult := new(big.Int).Exp(bigTen, big.NewInt(int64(abs(scale))), nil)
	if scale >= 0 {
		r.Mul(r, new(big.Rat).SetInt(mult))
	} else {
		r.Quo(r, new(big.Rat).SetInt(mult))
	}
	if !r.IsInt() {
		return Decimal{}, fmt.Errorf("decimal %q has more than %d fraction digits", s, scale)
	}
	return DecimalFromBigInt(r.Num(), scale)
}

// Cmp compares two decimals of any scales by value.
func (d Decimal) Cmp(o Decimal) int {
	if d.Scale == o.Scale {
		return d.Unscaled().Cmp(o.Unscaled())
	}
	a, b := new(big.Rat).SetFrac(d.Unscaled(), pow10(d.Scale)), new(big.Rat).SetFrac(o.Unscaled(), pow10(o.Scale))
	return a.Cmp(b)
}

// Rescale changes the scale; making it smaller must not lose digits.
func (d Decimal) Rescale(scale int) (Decimal, error) {
	if scale == d.Scale {
		return d, nil
	}
	u := d.Unscaled()
	if scale > d.Scale {
		u.Mul(u, new(big.Int).Exp(bigTen, big.NewInt(int64(scale-d.Scale)), nil))
	} else {
		q, m := new(big.Int).QuoRem(u, new(big.Int).Exp(bigTen, big.NewInt(int64(d.Scale-scale)), nil), new(big.Int))
		if m.Sign() != 0 {
			return Decimal{}, fmt.Errorf("decimal %s cannot be rescaled to scale %d without rounding", d, scale)
		}
		u = q
	}
	return DecimalFromBigInt(u, scale)
}

func pow10(n int) *big.Int {
	if n < 0 {
		n = 0
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
