package bounds

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
)

// The schema of the tests: one field of each domain and a struct.
func testSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.IntType{}},
		{ID: 2, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 3, Name: "s", Type: iceberg.StringType{}},
		{ID: 4, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 5, Name: "x", Type: iceberg.LongType{}},
		}}},
		{ID: 6, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
		{ID: 7, Name: "ts", Type: iceberg.TimestampType{}},
	})
}

// mapSource holds summaries by field id.
type mapSource struct {
	rows int64
	by   map[int]Summary
}

func (m mapSource) Rows() int64             { return m.rows }
func (m mapSource) Summary(l *Leaf) Summary { return m.by[l.FieldID] }

func compile(t *testing.T, filter string) *Evaluator {
	t.Helper()
	e, err := expr.ParseText(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	b, err := expr.Bind(e, testSchema(), false)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	ev, err := New(b)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	return ev
}

// check runs might-match (want[0]) and all-match (want[1]) cases on one
// field's summary.
func check(t *testing.T, id int, s Summary, cases map[string][2]bool) {
	t.Helper()
	src := mapSource{rows: 10, by: map[int]Summary{id: s}}
	for filter, want := range cases {
		ev := compile(t, filter)
		if got := ev.MightMatch(src); got != want[0] {
			t.Errorf("%s on %+v: might match %v, want %v", filter, s, got, want[0])
		}
		if got := ev.AllMatch(src); got != want[1] {
			t.Errorf("%s on %+v: all match %v, want %v", filter, s, got, want[1])
		}
	}
}

func ints(lo, hi int64) (Value, Value) { return Value{Int: lo}, Value{Int: hi} }

func TestNoStatistics(t *testing.T) {
	// A column without statistics might hold anything, and nothing is
	// known to hold for all its rows.
	check(t, 1, Summary{}, map[string][2]bool{
		"i = 1": {true, false}, "i is null": {true, false}, "i is not null": {true, false}, "d is nan": {true, false},
		"d is not nan": {true, false}, "s like 'a%'": {true, false}, "s not like 'a%'": {true, false},
		"i != 1": {true, false}, "i in (1, 2)": {true, false}, "true": {true, true}, "false": {false, false},
	})
	// No row: nothing matches, and every row does.
	ev := compile(t, "true")
	if empty := (mapSource{}); ev.MightMatch(empty) || !ev.AllMatch(empty) {
		t.Error("an empty set of rows")
	}
}

func TestNullCounts(t *testing.T) {
	lo, hi := ints(1, 5)
	check(t, 1, Summary{Values: 10, Nulls: 10, HasValues: true, HasNulls: true}, map[string][2]bool{
		"i is null": {true, true}, "i is not null": {false, false}, "i = 1": {false, false}, "i != 1": {false, false},
		"i not in (1, 2)": {false, false}, "not (i = 1)": {false, false}, "i = 1 or i is null": {true, true},
	})
	check(t, 3, Summary{Values: 10, Nulls: 10, HasValues: true, HasNulls: true}, map[string][2]bool{
		"s not like 'a%'": {false, false}, "s like 'a%'": {false, false},
	})
	noNulls := Summary{Lower: lo, Upper: hi, HasLower: true, HasUpper: true, Exact: true, Nulls: 0, HasNulls: true}
	check(t, 1, noNulls, map[string][2]bool{
		"i is null": {false, false}, "i is not null": {true, true}, "i >= 1": {true, true}, "i > 1": {true, false},
	})
	// Some nulls: no comparison holds for every row.
	someNulls := noNulls
	someNulls.Nulls = 2
	check(t, 1, someNulls, map[string][2]bool{"i >= 1": {true, false}, "i is not null": {true, false}, "i is null": {true, false}})
}

func TestRangesAndSets(t *testing.T) {
	lo, hi := ints(10, 20)
	s := Summary{Lower: lo, Upper: hi, HasLower: true, HasUpper: true, Exact: true, HasNulls: true}
	check(t, 1, s, map[string][2]bool{
		"i < 10": {false, false}, "i <= 10": {true, false}, "i > 20": {false, false}, "i >= 20": {true, false},
		"i < 21": {true, true}, "i >= 10": {true, true}, "i > 9": {true, true}, "i <= 20": {true, true},
		"i = 9": {false, false}, "i = 15": {true, false}, "i in (1, 2, 21)": {false, false}, "i in (1, 15)": {true, false},
		"i in (5, 25)": {false, false}, "i != 15": {true, false}, "i != 21": {true, true},
		"i not in (9, 21)": {true, true}, "i not in (10, 30)": {true, false},
		"i < 10 or i > 20": {false, false}, "i < 10 or i = 11": {true, false}, "not (i >= 10)": {false, false},
	})
	// Equal exact bounds pin the value.
	lo, hi = ints(15, 15)
	one := Summary{Lower: lo, Upper: hi, HasLower: true, HasUpper: true, Exact: true, HasNulls: true}
	check(t, 1, one, map[string][2]bool{
		"i != 15": {false, false}, "i not in (15, 16)": {false, false}, "i not in (16, 17)": {true, true},
		"i = 15": {true, true}, "i in (14, 15)": {true, true}, "i in (14, 16)": {false, false},
	})
	// Nulls beside the one value fail != as well.
	one.Nulls = 2
	check(t, 1, one, map[string][2]bool{"i != 15": {false, false}, "i != 16": {true, false}, "i = 15": {true, false}})
	// Inverted bounds come from a writer that cannot be trusted.
	lo, hi = ints(20, 10)
	check(t, 1, Summary{Lower: lo, Upper: hi, HasLower: true, HasUpper: true, Exact: true, HasNulls: true}, map[string][2]bool{
		"i = 15": {true, false}, "i < 5": {true, false}, "i > 25": {true, false},
	})
	// One bound alone still decides its side.
	check(t, 1, Summary{Lower: Value{Int: 10}, HasLower: true, HasNulls: true}, map[string][2]bool{
		"i < 10": {false, false}, "i > 100": {true, false}, "i > 9": {true, true}, "i != 5": {true, true},
	})
}

// Strings and binary may have truncated bounds: a shorter lower bound, an
// upper one rounded up. They stay bounds, but equal ones do not pin a
// value unless Exact.
func TestTruncatedBytes(t *testing.T) {
	b := func(s string) Value { return Value{Bytes: []byte(s)} }
	s := Summary{Lower: b("abc"), Upper: b("abd"), HasLower: true, HasUpper: true, HasNulls: true}
	check(t, 3, s, map[string][2]bool{
		"s = 'abczzz'": {true, false}, "s = 'abe'": {false, false}, "s < 'abc'": {false, false}, "s >= 'abd'": {true, false},
		"s like 'abc%'": {true, false}, "s like 'abe%'": {false, false}, "s like 'aa%'": {false, false},
		"s like 'ab%'": {true, true}, "s like 'abcdefgh%'": {true, false},
		"s not like 'ab%'": {false, false}, "s not like 'abc%'": {true, false}, "s not like 'b%'": {true, true},
		"s not like 'aa%'": {true, true}, "s != 'abc'": {true, false},
	})
	// A lower bound longer than the prefix is compared on the prefix's length.
	check(t, 3, Summary{Lower: b("abcz"), Upper: b("abd"), HasLower: true, HasUpper: true, HasNulls: true}, map[string][2]bool{
		"s like 'abc%'": {true, false},
	})
	same := Summary{Lower: b("abc"), Upper: b("abc"), HasLower: true, HasUpper: true, HasNulls: true}
	check(t, 3, same, map[string][2]bool{"s != 'abc'": {true, false}, "s not in ('abc', 'x')": {true, false}, "s = 'abc'": {true, false}})
	same.Exact = true
	check(t, 3, same, map[string][2]bool{"s != 'abc'": {false, false}, "s not in ('abc', 'x')": {false, false}, "s = 'abc'": {true, true}})
	// Nulls fail not like too.
	withNulls := Summary{Lower: b("abc"), Upper: b("abd"), HasLower: true, HasUpper: true, Nulls: 1, HasNulls: true}
	check(t, 3, withNulls, map[string][2]bool{"s not like 'ab%'": {false, false}, "s not like 'b%'": {true, false}})
}

func TestFloatsAndNaN(t *testing.T) {
	f := func(x float64) Value { return Value{Float: x} }
	nanOnly := Summary{Values: 4, NaNs: 4, HasValues: true, HasNulls: true, HasNaNs: true}
	check(t, 2, nanOnly, map[string][2]bool{
		"d < 1": {false, false}, "d = 1": {false, false}, "d in (1, 2)": {false, false}, "d is nan": {true, true},
		"d is not nan": {false, false}, "d != 1": {true, false}, "d not in (1, 2)": {true, false},
	})
	// Only nulls and NaNs, by their counts: no comparison can hold.
	check(t, 2, Summary{Values: 4, Nulls: 1, NaNs: 3, HasValues: true, HasNulls: true, HasNaNs: true}, map[string][2]bool{
		"d < 1": {false, false}, "d is not nan": {true, false}, "d is null": {true, false}, "d != 1": {true, false},
	})
	noNaN := Summary{Lower: f(-1), Upper: f(1), HasLower: true, HasUpper: true, Exact: true, HasNulls: true, HasNaNs: true}
	check(t, 2, noNaN, map[string][2]bool{
		"d is nan": {false, false}, "d is not nan": {true, true}, "d > 1": {false, false}, "d = 0": {true, false},
		"d < 2": {true, true}, "d != 5": {true, true},
	})
	// Without a NaN count a NaN may be there: it passes != and fails <.
	mayNaN := noNaN
	mayNaN.HasNaNs = false
	check(t, 2, mayNaN, map[string][2]bool{"d < 2": {true, false}, "d is nan": {true, false}, "d is not nan": {true, false}})
	pinned := Summary{Lower: f(2), Upper: f(2), HasLower: true, HasUpper: true, Exact: true, HasNulls: true}
	check(t, 2, pinned, map[string][2]bool{"d != 2": {true, false}, "d = 2": {true, false}})
	pinned.HasNaNs = true
	check(t, 2, pinned, map[string][2]bool{"d != 2": {false, false}, "d = 2": {true, true}})
	// A NaN bound says nothing, of either side.
	nanBound := Summary{Lower: f(math.NaN()), Upper: f(5), HasLower: true, HasUpper: true, HasNulls: true, HasNaNs: true}
	check(t, 2, nanBound, map[string][2]bool{"d < 1": {true, false}, "d > 6": {true, false}, "d <= 5": {true, false}})
	// -0 and +0 are equal to a filter.
	negZero := Summary{Lower: f(math.Copysign(0, -1)), Upper: f(math.Copysign(0, -1)), HasLower: true, HasUpper: true, Exact: true, HasNulls: true, HasNaNs: true}
	check(t, 2, negZero, map[string][2]bool{"d = 0": {true, true}, "d >= 0": {true, true}, "d != 0": {false, false}, "d > 0": {false, false}})
}

// Partition summaries: bounds are missing only when no value is neither
// null nor NaN.
func TestBoundsComplete(t *testing.T) {
	nullsOnly := Summary{BoundsComplete: true, HasNaNs: true}
	check(t, 2, nullsOnly, map[string][2]bool{
		"d = 1": {false, false}, "d is null": {true, true}, "d is not null": {false, false}, "d != 1": {false, false},
		"d is nan": {false, false}, "d is not nan": {true, false},
	})
	nansOnly := Summary{BoundsComplete: true, HasNulls: true}
	check(t, 2, nansOnly, map[string][2]bool{"d = 1": {false, false}, "d is not nan": {false, false}, "d != 1": {true, false}, "d is nan": {true, true}})
	// Metrics without bounds know nothing.
	check(t, 2, Summary{HasNulls: true, HasNaNs: true}, map[string][2]bool{"d = 1": {true, false}, "d is not null": {true, true}})
}

// A field inside a struct is judged by its own summary, not its parent's.
func TestNestedField(t *testing.T) {
	lo, hi := ints(10, 20)
	src := mapSource{rows: 5, by: map[int]Summary{
		5: {Lower: lo, Upper: hi, HasLower: true, HasUpper: true, Exact: true, HasNulls: true},
		4: {Values: 5, Nulls: 5, HasValues: true, HasNulls: true},
	}}
	for filter, want := range map[string]bool{"st.x > 20": false, "st.x = 15": true, "st.x is null": false, "st.x < 10 or st.x > 15": true} {
		if got := compile(t, filter).MightMatch(src); got != want {
			t.Errorf("%s: might match %v, want %v", filter, got, want)
		}
	}
}

func TestDecimalsAndTimestamps(t *testing.T) {
	dec := func(s string) Value {
		d, err := iceberg.ParseDecimal(s, 2)
		if err != nil {
			t.Fatal(err)
		}
		return Value{Hi: d.Hi, Lo: d.Lo}
	}
	check(t, 6, Summary{Lower: dec("-1.50"), Upper: dec("100.25"), HasLower: true, HasUpper: true, Exact: true, HasNulls: true}, map[string][2]bool{
		"dec < -1.50": {false, false}, "dec <= -1.5": {true, false}, "dec > 100.25": {false, false}, "dec = 50": {true, false},
		"dec in (-2, 101)": {false, false}, "dec > -2": {true, true},
	})
}

// Bounds keep the type a column had when its file was written.
func TestDecodeBinaryPromotions(t *testing.T) {
	le32 := func(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
	cases := []struct {
		t    iceberg.Type
		raw  []byte
		want Value
	}{
		{iceberg.LongType{}, le32(-5), Value{Int: -5}},                                                              // int → long
		{iceberg.DoubleType{}, binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.5)), Value{Float: 1.5}},     // float → double
		{iceberg.TimestampType{}, le32(2), Value{Int: 2 * 86_400_000_000}},                                          // date → timestamp
		{iceberg.TimestampNsType{}, le32(-1), Value{Int: -86_400_000_000_000}},                                      // date → timestamp_ns
		{iceberg.DecimalType{Precision: 20, Scale: 2}, []byte{0xff, 0x85}, Value{Hi: -1, Lo: math.MaxUint64 - 122}}, // a short decimal widened
		{iceberg.BooleanType{}, []byte{1}, Value{Int: 1}},
	}
	for _, c := range cases {
		got, ok := DecodeBinary(c.t, c.raw)
		if !ok || got.Int != c.want.Int || got.Float != c.want.Float || got.Hi != c.want.Hi || got.Lo != c.want.Lo {
			t.Errorf("%s %x: got %+v %v, want %+v", c.t, c.raw, got, ok, c.want)
		}
	}
	for _, c := range []struct {
		t   iceberg.Type
		raw []byte
	}{{iceberg.IntType{}, []byte{1, 2, 3, 4, 5, 6, 7, 8}}, {iceberg.TimeType{}, le32(1)}, {iceberg.LongType{}, []byte{1, 2, 3}}, {iceberg.FloatType{}, make([]byte, 8)}} {
		if v, ok := DecodeBinary(c.t, c.raw); ok {
			t.Errorf("%s %x: decoded as %+v, want no bound", c.t, c.raw, v)
		}
	}
	// A promoted column's bounds decide: a timestamp column written as dates.
	lo, _ := DecodeBinary(iceberg.TimestampType{}, le32(0))
	hi, _ := DecodeBinary(iceberg.TimestampType{}, le32(1))
	check(t, 7, Summary{Lower: lo, Upper: hi, HasLower: true, HasUpper: true, Exact: true, HasNulls: true}, map[string][2]bool{
		"ts > '1970-01-02T00:00:00'": {false, false}, "ts >= '1970-01-02T00:00:00'": {true, false}, "ts < '1970-01-01T00:00:00'": {false, false},
	})
}

func TestEvaluatorDoesNotAllocate(t *testing.T) {
	lo, hi := ints(10, 20)
	src := mapSource{rows: 5, by: map[int]Summary{
		1: {Lower: lo, Upper: hi, HasLower: true, HasUpper: true, Exact: true, HasNulls: true},
		3: {Lower: Value{Bytes: []byte("abc")}, Upper: Value{Bytes: []byte("abd")}, HasLower: true, HasUpper: true, HasNulls: true},
	}}
	ev := compile(t, "(i > 15 or s like 'ab%') and i in (11, 30) and not (s = 'x')")
	if allocs := testing.AllocsPerRun(100, func() { ev.MightMatch(&src); ev.AllMatch(&src) }); allocs != 0 {
		t.Errorf("evaluation allocates %v times", allocs)
	}
}
