package expr

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Number is an unbound numeric literal kept exactly as its decimal text
// ("3.14159265358979323846264", "1e10", "12345678901234567890123") until
// binding gives it a type: passing it through float64 would lose digits a
// decimal or long column can hold. The text and JSON parsers give integers
// that fit in 64 bits as int64 and every other number as a Number.
type Number struct {
	text string // JSON number syntax: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
}

// ParseNumber reads [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?,
// the text grammar's numbers, of which JSON's are a subset. The text is
// kept in JSON's syntax (no '+' sign, no leading zeros, digits on both
// sides of a point), so both the text and the JSON writers can emit it.
func ParseNumber(s string) (Number, error) {
	if n := scanNumber(s); n == 0 || n != len(s) {
		return Number{}, fmt.Errorf("invalid number %q", s)
	}
	var b strings.Builder
	i := 0
	switch s[0] {
	case '-':
		b.WriteByte('-')
		i++
	case '+':
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	intPart := strings.TrimLeft(s[i:j], "0")
	if intPart == "" {
		intPart = "0"
	}
	b.WriteString(intPart)
	if j < len(s) && s[j] == '.' {
		k := j + 1
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		frac := s[j+1 : k]
		if frac == "" {
			frac = "0"
		}
		b.WriteByte('.')
		b.WriteString(frac)
		j = k
	}
	b.WriteString(s[j:]) // the exponent, already valid
	return Number{text: b.String()}, nil
}

// String gives the number's text.
func (n Number) String() string { return n.text }

// exactNumber is a number's exact value: (-1)^neg × coef × 10^exp, where
// coef is decimal digits without leading or trailing zeros ("" for zero,
// whose exp is 0), so it is an integer exactly when exp >= 0.
type exactNumber struct {
	neg  bool
	coef string
	exp  int64
}

// maxExponent bounds exponents: no type holds a value near 10^±(1<<40),
// and the bound keeps exponent arithmetic from overflowing.
const maxExponent = 1 << 40

// parseExact reads decimal text of the grammar ParseNumber accepts (with
// surrounding spaces, as strings bound to numeric columns may have).
func parseExact(s string) (exactNumber, bool) {
	s = strings.TrimSpace(s)
	if n := scanNumber(s); n == 0 || n != len(s) {
		return exactNumber{}, false
	}
	var x exactNumber
	switch s[0] {
	case '-':
		x.neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
	}
	if expText != "" {
		e, err := strconv.ParseInt(expText, 10, 64)
		if err != nil || e > maxExponent || e < -maxExponent {
			// Out of int64: as good as infinitely large or small.
			e = maxExponent
			if strings.HasPrefix(expText, "-") {
				e = -maxExponent
			}
		}
		x.exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	x.exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	x.exp += int64(len(digits) - len(trimmed))
	if trimmed == "" {
		return exactNumber{}, true
	}
	x.coef = trimmed
	return x, true
}

func exactFromInt64(n int64) exactNumber {
	x, _ := parseExact(strconv.FormatInt(n, 10))
	return x
}

func (x exactNumber) isZero() bool { return x.coef == "" }

// magnitude is the number of digits before the point: 10^(m-1) <= |x| <
// 10^m for x != 0.
func (x exactNumber) magnitude() int64 { return int64(len(x.coef)) + x.exp }

// scaled returns x × 10^scale truncated toward zero, and whether that
// dropped a non-zero fraction; callers bound the magnitude first, so the
// result stays small.
func (x exactNumber) scaled(scale int64) (*big.Int, bool) {
	shift := x.exp + scale
	digits := x.coef
	switch {
	case shift >= 0:
		digits += strings.Repeat("0", int(shift))
	case -shift >= int64(len(digits)):
		digits = ""
	default:
		digits = digits[:int64(len(digits))+shift]
	}
	v := new(big.Int)
	if digits != "" {
		v.SetString(digits, 10)
	}
	if x.neg {
		v.Neg(v)
	}
	// coef has no trailing zero, so a negative shift always drops digits.
	return v, shift < 0 && !x.isZero()
}

// numberLiteral is the literal a parsed number becomes: int64 when it is
// an integer that fits, else the exact Number.
func numberLiteral(text string) (any, error) {
	text = strings.TrimPrefix(text, "+")
	if !strings.ContainsAny(text, ".eE") {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
	}
	return ParseNumber(text)
}
