package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

func numberSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "c", Type: iceberg.DecimalType{Precision: 36, Scale: 23}},
		{ID: 2, Name: "big", Type: iceberg.DecimalType{Precision: 38, Scale: 0}},
		{ID: 3, Name: "d2", Type: iceberg.DecimalType{Precision: 10, Scale: 2}},
		{ID: 4, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 5, Name: "l", Type: iceberg.LongType{}},
		{ID: 6, Name: "i", Type: iceberg.IntType{}},
		{ID: 7, Name: "f", Type: iceberg.FloatType{}},
		{ID: 8, Name: "day", Type: iceberg.DateType{}},
		{ID: 9, Name: "t", Type: iceberg.TimeType{}},
		{ID: 10, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 11, Name: "small", Type: iceberg.DecimalType{Precision: 2, Scale: 1}, Required: true},
	})
}

func mustDecimal(t *testing.T, s string, scale int) iceberg.Decimal {
	t.Helper()
	d, err := iceberg.ParseDecimal(s, scale)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The digits of an unquoted number reach a decimal column intact, as the
// quoted string's do, through both the text and the JSON forms.
func TestBindNumberDecimalExact(t *testing.T) {
	schema := numberSchema()
	const pi = "3.14159265358979323846264"
	want := mustDecimal(t, pi, 23)
	parsers := map[string]func() (Expr, error){
		"text unquoted": func() (Expr, error) { return ParseText("c = " + pi) },
		"text quoted":   func() (Expr, error) { return ParseText("c = '" + pi + "'") },
		"json number":   func() (Expr, error) { return ParseJSON([]byte(`{"type":"eq","term":"c","value":` + pi + `}`)) },
		"json string":   func() (Expr, error) { return ParseJSON([]byte(`{"type":"eq","term":"c","value":"` + pi + `"}`)) },
		"json typed literal": func() (Expr, error) {
			return ParseJSON([]byte(`{"type":"eq","left":{"type":"reference","name":"c"},"right":{"type":"literal","value":` + pi + `}}`))
		},
		"json in": func() (Expr, error) {
			return ParseJSON([]byte(`{"type":"in","term":"c","values":[` + pi + `, 1e-30]}`))
		},
	}
	for name, parse := range parsers {
		e, err := parse()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := Bind(e, schema, false)
		if err != nil {
			t.Fatalf("%s: Bind(%s): %v", name, e, err)
		}
		p, ok := b.(*BoundPredicate)
		if !ok || p.Op != OpEq || len(p.Values) != 1 || p.Values[0] != want {
			t.Errorf("%s: %s bound to %v, want c = %s", name, e, b, want)
			continue
		}
		// A bound residual written as JSON reads back to the same value.
		js, err := MarshalJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseJSON(js)
		if err != nil {
			t.Fatal(err)
		}
		rebound, err := Bind(again, schema, false)
		if err != nil {
			t.Fatal(err)
		}
		if rp, ok := rebound.(*BoundPredicate); !ok || rp.Values[0] != want {
			t.Errorf("%s: residual %s read back as %v", name, js, rebound)
		}
	}
}

func TestBindNumberConversions(t *testing.T) {
	schema := numberSchema()
	for filter, want := range map[string]string{
		// Integers beyond int64 on a decimal(38, 0), exactly.
		"big = 12345678901234567890123":  "big = '12345678901234567890123'",
		"big = -12345678901234567890123": "big = '-12345678901234567890123'",
		"big < 1e37":                     "big < '10000000000000000000000000000000000000'",
		"big < 1e38":                     "big is not null", // 39 digits > precision 38
		"big = 1.5e1":                    "big = '15'",
		// Integer literals on decimal columns take the scale.
		"d2 = 7":          "d2 = '7.00'",
		"d2 in (1, 2.50)": "d2 in ('1.00', '2.50')",
		"d2 = 1.50000":    "d2 = '1.50'", // trailing zeros are not digits of the scale
		// More fraction digits than the scale: no value equals the literal,
		// and orders hold against its neighbours (x < 1.005 is x <= 1.00).
		"d2 = 1.005":               "false",
		"d2 != 1.005":              "d2 is not null",
		"d2 < 1.005":               "d2 <= '1.00'",
		"d2 <= 1.005":              "d2 <= '1.00'",
		"d2 > 1.005":               "d2 >= '1.01'",
		"d2 >= 1.005":              "d2 >= '1.01'",
		"d2 < -1.005":              "d2 <= '-1.01'",
		"d2 > -1.005":              "d2 >= '-1.00'",
		"d2 > 0.0001":              "d2 >= '0.01'",
		"d2 < 1e-999999":           "d2 <= '0.00'",
		"d2 >= '1.005'":            "d2 >= '1.01'", // quoted alike
		"d2 in (1.005, 2)":         "d2 = '2.00'",
		"d2 not in (1.005, 2)":     "d2 != '2.00'",
		"d2 in (1.005, 1.001)":     "false",
		"d2 not in (1.005, 1.001)": "d2 is not null",
		// Beyond the precision: above or below every value.
		"d2 < 123456789012":    "d2 is not null",
		"d2 > 99999999.995":    "false",          // the neighbour above, 100000000.00, does not fit
		"d2 < 99999999.995":    "d2 is not null", // above 99999999.99,
		"d2 >= -99999999.999":  "d2 is not null", // below -99999999.99,
		"d2 > -1e300":          "d2 is not null",
		"small > 9.95":         "false",
		"small != 9.95":        "true",
		"small <= 9.85":        "small <= '9.8'",
		"c > 1e13":             "false", // 36 - 23 = 13 integer digits at most
		"c < 9999999999999.99": "c < '9999999999999.99000000000000000000000'",
		// Doubles still take the nearest double.
		"d > 1.5":                       "d > 1.5",
		"d = 0.1":                       "d = 0.1",
		"d = 3.14159265358979323846264": "d = 3.141592653589793",
		"d < 1e400":                     "d <= 1.7976931348623157e+308", // below infinity
		"d > 1e400":                     "d >= 'Infinity'",
		"d = 1e400":                     "false",
		"d > 1e-400":                    "d > 0", // the nearest double,
		"f = 0.1":                       "f = 0.1",
		"f = 16777217":                  "f = 1.6777216e+07",
		"f < 1e39":                      "f <= 3.4028235e+38",
		// Integral numbers on integer-valued types, exactly.
		"l = 1e10":                    "l = 10000000000",
		"l = 9223372036854775807.0":   "l = 9223372036854775807",
		"l < 9223372036854775808":     "l is not null",
		"l > -9223372036854775809":    "l is not null",
		"l > 12345678901234567890123": "false",
		"i = 2.0":                     "i = 2",
		"i > 3e9":                     "false",
		"day = 19723":                 "day = '2024-01-01'",
		"day = 19723.0":               "day = '2024-01-01'",
		"t = 3600000000":              "t = '01:00:00.000000'",
		"t < 86400000000":             "t is not null",
		"t < -1":                      "false",
		"ts >= 1704067200000000":      "ts >= '2024-01-01T00:00:00.000000'",
		"ts >= 1.7040672e15":          "ts >= '2024-01-01T00:00:00.000000'",
		"l in (1e30, 5, 5.0, '5')":    "l = 5",
		"big in (1e38, 1, 12345678901234567890123)": "big in ('1', '12345678901234567890123')",
	} {
		b, err := bindText(t, schema, filter, true)
		if err != nil {
			t.Errorf("Bind(%q): %v", filter, err)
			continue
		}
		if got := b.String(); got != want {
			t.Errorf("Bind(%q) = %s, want %s", filter, got, want)
		}
	}
	for filter, message := range map[string]string{
		"l = 1.5":         "fraction",
		"i = 1e-3":        "fraction",
		"day = 1.5":       "fraction",
		"l = '1.5'":       "fraction",
		"l = 'x1'":        "invalid number",
		"d2 = 'abc'":      "invalid decimal",
		"d = 'abc'":       "invalid number",
		"c like '3.1%'":   "needs a string column",
		"day = 1.5e-1000": "fraction",
	} {
		_, err := bindText(t, schema, filter, true)
		if err == nil || !strings.Contains(err.Error(), message) {
			t.Errorf("Bind(%q) error = %v, want %q", filter, err, message)
		}
	}
}

// Every comparison of a decimal(4, 2) column with a literal of up to four
// fraction digits, bound and evaluated, gives the exact answer.
func TestBindNumberDecimalComparisonsExact(t *testing.T) {
	typ := iceberg.DecimalType{Precision: 4, Scale: 2}
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "x", Type: typ}})
	rng := rand.New(rand.NewPCG(12, 34))
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	ratOf := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("bad rational %s", s)
		}
		return r
	}
	for range 3000 {
		// Literals from -120.0000 to 120.0000, some beyond the precision.
		lit := fmt.Sprintf("%.4f", float64(rng.IntN(2_400_001)-1_200_000)/10000)
		if rng.IntN(4) == 0 {
			lit = lit[:len(lit)-2] // two digits: a value of the type, or beyond it
		}
		op := ops[rng.IntN(len(ops))]
		b, err := bindText(t, schema, "x "+op+" "+lit, true)
		if err != nil {
			t.Fatalf("x %s %s: %v", op, lit, err)
		}
		ev, err := NewTupleEvaluator(b, schema.AsStruct())
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			unscaled := int64(rng.IntN(19999) - 9999)
			if rng.IntN(3) == 0 { // near the literal
				l, _ := ratOf(lit).Float64()
				unscaled = int64(math.Round(l*100)) + int64(rng.IntN(5)-2)
				unscaled = max(-9999, min(9999, unscaled))
			}
			v := iceberg.DecimalFromInt64(unscaled, 2)
			c := ratOf(v.String()).Cmp(ratOf(lit))
			want := map[string]bool{"=": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
			if got := ev.Eval([]any{v}); got != want {
				t.Fatalf("x %s %s bound to %s: x = %s gave %v, want %v", op, lit, b, v, got, want)
			}
		}
		if ev.Eval([]any{nil}) {
			t.Fatalf("x %s %s bound to %s holds for null", op, lit, b)
		}
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]string{
		"1.5": "1.5", "+1.5": "1.5", "-.5": "-0.5", "5.": "5.0", "007": "7", "-00.10e+3": "-0.10e+3", "1E5": "1E5", "0": "0",
	} {
		n, err := ParseNumber(in)
		if err != nil || n.String() != want {
			t.Errorf("ParseNumber(%q) = %v, %v, want %s", in, n, err, want)
		}
	}
	for _, in := range []string{"", "-", ".", "1e", "1.5x", "0x10", "Infinity", "1 "} {
		if n, err := ParseNumber(in); err == nil {
			t.Errorf("ParseNumber(%q) = %v, want an error", in, n)
		}
	}
	if _, err := NewPredicate(OpEq, "x", Number{}); err == nil {
		t.Error("NewPredicate took the zero Number")
	}
}
