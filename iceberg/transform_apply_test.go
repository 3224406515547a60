package iceberg

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func mustDecimal(t *testing.T, s string, scale int) Decimal {
	t.Helper()
	d, err := ParseDecimal(s, scale)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustTimestamp(t *testing.T, s string, nanos bool) int64 {
	t.Helper()
	v, err := ParseTimestamp(s, nanos)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustDate(t *testing.T, s string) int32 {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The test values of spec Appendix B, "32-bit Hash Requirements".
func TestHashValueMatchesSpecAppendixB(t *testing.T) {
	tm, err := ParseTime("22:31:08")
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseUUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		typ  Type
		v    any
		want int32
	}{
		{"int 34", IntType{}, int32(34), 2017239379},
		{"long 34", LongType{}, int64(34), 2017239379},
		{"decimal 14.20", DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "14.20", 2), -500754589},
		{"date", DateType{}, mustDate(t, "2017-11-16"), -653330422},
		{"time", TimeType{}, tm, -662762989},
		{"timestamp", TimestampType{}, mustTimestamp(t, "2017-11-16T22:31:08", false), -2047944441},
		{"timestamp +1µs", TimestampType{}, mustTimestamp(t, "2017-11-16T22:31:08.000001", false), -1207196810},
		{"timestamptz", TimestamptzType{}, mustTimestamp(t, "2017-11-16T14:31:08-08:00", false), -2047944441},
		{"timestamptz +1µs", TimestamptzType{}, mustTimestamp(t, "2017-11-16T14:31:08.000001-08:00", false), -1207196810},
		{"timestamp_ns", TimestampNsType{}, mustTimestamp(t, "2017-11-16T22:31:08", true), -2047944441},
		{"timestamp_ns +1001ns", TimestampNsType{}, mustTimestamp(t, "2017-11-16T22:31:08.000001001", true), -1207196810},
		{"timestamptz_ns", TimestamptzNsType{}, mustTimestamp(t, "2017-11-16T14:31:08-08:00", true), -2047944441},
		{"timestamptz_ns +1001ns", TimestamptzNsType{}, mustTimestamp(t, "2017-11-16T14:31:08.000001001-08:00", true), -1207196810},
		{"string", StringType{}, "iceberg", 1210000089},
		{"uuid", UUIDType{}, u, 1488055340},
		{"fixed", FixedType{Length: 4}, []byte{0, 1, 2, 3}, -188683207},
		{"binary", BinaryType{}, []byte{0, 1, 2, 3}, -188683207},
		// Types the spec hashes although bucket does not accept them.
		{"boolean", BooleanType{}, true, 1392991556},
		{"float 1", FloatType{}, float32(1), -142385009},
		{"float 0", FloatType{}, float32(0), 1669671676},
		{"float -0", FloatType{}, float32(math.Copysign(0, -1)), 1669671676},
		{"double 1", DoubleType{}, 1.0, -142385009},
		{"double 0", DoubleType{}, 0.0, 1669671676},
		{"double -0", DoubleType{}, math.Copysign(0, -1), 1669671676},
	}
	for _, c := range cases {
		got, err := BucketTransform{N: 16}.HashValue(c.typ, c.v)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: hash %d, spec says %d", c.name, got, c.want)
		}
	}
}

func TestHashValueIsStableAcrossPromotions(t *testing.T) {
	// Spec: int and long hash alike, float and double hash alike, and a
	// decimal's hash does not depend on its precision.
	for _, n := range []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 123456} {
		a, _ := BucketTransform{N: 1}.HashValue(IntType{}, n)
		b, _ := BucketTransform{N: 1}.HashValue(LongType{}, int64(n))
		if a != b {
			t.Errorf("int %d hashes %d, long hashes %d", n, a, b)
		}
	}
	for _, f := range []float32{1.5, -2.25, float32(math.Inf(1)), float32(math.NaN())} {
		a, _ := BucketTransform{N: 1}.HashValue(FloatType{}, f)
		b, _ := BucketTransform{N: 1}.HashValue(DoubleType{}, float64(f))
		if a != b {
			t.Errorf("float %v hashes %d, double hashes %d", f, a, b)
		}
	}
	d := mustDecimal(t, "14.20", 2)
	a, _ := BucketTransform{N: 1}.HashValue(DecimalType{Precision: 4, Scale: 2}, d)
	b, _ := BucketTransform{N: 1}.HashValue(DecimalType{Precision: 38, Scale: 2}, d)
	if a != b {
		t.Errorf("decimal hash depends on precision: %d vs %d", a, b)
	}
}

func TestBucketApply(t *testing.T) {
	// (hash & Integer.MAX_VALUE) % N with the Appendix B hashes.
	cases := []struct {
		typ  Type
		v    any
		n    int
		want int32
	}{
		{IntType{}, int32(34), 16, 2017239379 % 16},
		{LongType{}, int64(34), 100, 2017239379 % 100},
		{StringType{}, "iceberg", 7, 1210000089 % 7},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "14.20", 2), 16, int32((int64(-500754589) & math.MaxInt32) % 16)},
		{BinaryType{}, []byte{0, 1, 2, 3}, 1000, int32((int64(-188683207) & math.MaxInt32) % 1000)},
		{IntType{}, int32(34), 1, 0},
	}
	for _, c := range cases {
		got, err := BucketTransform{N: c.n}.Apply(c.typ, c.v)
		if err != nil {
			t.Errorf("bucket[%d](%v): %v", c.n, c.v, err)
			continue
		}
		if got != c.want {
			t.Errorf("bucket[%d](%v %v) = %v, want %d", c.n, c.typ, c.v, got, c.want)
		}
	}
	if got, err := (BucketTransform{N: 16}).Apply(IntType{}, nil); got != nil || err != nil {
		t.Errorf("bucket of null = %v, %v; want null", got, err)
	}
}

func TestMinimalDecimalBytes(t *testing.T) {
	// Java BigInteger.toByteArray of the unscaled value.
	cases := []struct {
		unscaled string
		want     []byte
	}{
		{"0", []byte{0x00}},
		{"1420", []byte{0x05, 0x8c}},
		{"-1", []byte{0xff}},
		{"127", []byte{0x7f}},
		{"128", []byte{0x00, 0x80}},
		{"-128", []byte{0x80}},
		{"-129", []byte{0xff, 0x7f}},
		{"99999", []byte{0x01, 0x86, 0x9f}},
		{"170141183460469231731687303715884105727", append([]byte{0x7f}, []byte(strings.Repeat("\xff", 15))...)},
		{"-170141183460469231731687303715884105728", append([]byte{0x80}, make([]byte, 15)...)},
	}
	for _, c := range cases {
		d := mustDecimal(t, c.unscaled, 0)
		var buf [16]byte
		if got := minimalDecimalBytes(&buf, d); string(got) != string(c.want) {
			t.Errorf("%s: % x, want % x", c.unscaled, got, c.want)
		}
	}
}

func TestTruncateSpecExamples(t *testing.T) {
	cases := []struct {
		typ  Type
		w    int
		v    any
		want any
	}{
		{IntType{}, 10, int32(1), int32(0)},
		{IntType{}, 10, int32(-1), int32(-10)},
		{IntType{}, 10, int32(0), int32(0)},
		{IntType{}, 10, int32(10), int32(10)},
		{LongType{}, 10, int64(1), int64(0)},
		{LongType{}, 10, int64(-1), int64(-10)},
		{LongType{}, 10, int64(math.MaxInt64), int64(math.MaxInt64 - 7)},
		{DecimalType{Precision: 9, Scale: 2}, 50, mustDecimal(t, "10.65", 2), mustDecimal(t, "10.50", 2)},
		// Java TestTruncate's decimal cases.
		{DecimalType{Precision: 9, Scale: 2}, 10, mustDecimal(t, "12.34", 2), mustDecimal(t, "12.30", 2)},
		{DecimalType{Precision: 9, Scale: 2}, 10, mustDecimal(t, "12.29", 2), mustDecimal(t, "12.20", 2)},
		{DecimalType{Precision: 9, Scale: 2}, 10, mustDecimal(t, "0.05", 2), mustDecimal(t, "0.00", 2)},
		{DecimalType{Precision: 9, Scale: 2}, 10, mustDecimal(t, "-0.05", 2), mustDecimal(t, "-0.10", 2)},
		{DecimalType{Precision: 38, Scale: 0}, 10, mustDecimal(t, "-99999999999999999999999999999999999999", 0), mustDecimal(t, "-100000000000000000000000000000000000000", 0)},
		{StringType{}, 3, "iceberg", "ice"},
		{StringType{}, 10, "iceberg", "iceberg"},
		// Code points, not bytes: each of these is 3 or 4 UTF-8 bytes.
		{StringType{}, 2, "イロハニホヘト", "イロ"},
		{StringType{}, 1, "😀😃", "😀"},
		{StringType{}, 3, "a😀b😃", "a😀b"},
		{BinaryType{}, 3, []byte{1, 2, 3, 4, 5}, []byte{1, 2, 3}},
		{BinaryType{}, 10, []byte{1, 2}, []byte{1, 2}},
	}
	for _, c := range cases {
		got, err := TruncateTransform{Width: c.w}.Apply(c.typ, c.v)
		if err != nil {
			t.Errorf("truncate[%d](%v): %v", c.w, c.v, err)
			continue
		}
		if Compare(c.typ, got, c.want) != 0 {
			t.Errorf("truncate[%d](%v %v) = %v, want %v", c.w, c.typ, c.v, got, c.want)
		}
	}
}

func TestTruncateOutOfRangeIsAnError(t *testing.T) {
	if _, err := (TruncateTransform{Width: 10}).Apply(IntType{}, int32(math.MinInt32)); err == nil {
		t.Error("truncate[10] of the smallest int must fail, its result is not an int")
	}
	if _, err := (TruncateTransform{Width: 10}).Apply(LongType{}, int64(math.MinInt64)); err == nil {
		t.Error("truncate[10] of the smallest long must fail")
	}
}

func TestTemporalTransformsFloorBeforeTheEpoch(t *testing.T) {
	type want struct{ year, month, day, hour int32 }
	cases := []struct {
		ts   string
		want want
	}{
		{"1970-01-01T00:00:00", want{0, 0, 0, 0}},
		{"1969-12-31T23:59:59", want{-1, -1, -1, -1}},
		{"1969-12-31T23:59:59.999999", want{-1, -1, -1, -1}},
		{"1969-12-31T23:00:00", want{-1, -1, -1, -1}},
		{"1969-12-31T22:59:59.999999", want{-1, -1, -1, -2}},
		{"1969-01-01T00:00:00", want{-1, -12, -365, -8760}},
		{"1968-12-31T23:59:59", want{-2, -13, -366, -8761}},
		{"2017-11-16T22:31:08", want{47, 47*12 + 10, 17486, 17486*24 + 22}},
		{"1900-03-01T00:00:00", want{-70, -70*12 + 2, -25508, -25508 * 24}},
	}
	for _, c := range cases {
		for _, typ := range []Type{TimestampType{}, TimestamptzType{}, TimestampNsType{}, TimestamptzNsType{}} {
			nanos := typ == (TimestampNsType{}) || typ == (TimestamptzNsType{})
			v := mustTimestamp(t, c.ts, nanos)
			got := want{}
			for _, tr := range []struct {
				tf  Transform
				dst *int32
			}{{YearTransform{}, &got.year}, {MonthTransform{}, &got.month}, {DayTransform{}, &got.day}, {HourTransform{}, &got.hour}} {
				r, err := tr.tf.Apply(typ, v)
				if err != nil {
					t.Fatalf("%s(%s %s): %v", tr.tf, typ, c.ts, err)
				}
				*tr.dst = r.(int32)
			}
			if got != c.want {
				t.Errorf("%s %s: year/month/day/hour %v, want %v", typ, c.ts, got, c.want)
			}
		}
	}
	// One unit before the epoch.
	for _, c := range []struct {
		typ Type
		v   int64
	}{{TimestampType{}, -1}, {TimestampNsType{}, -1}} {
		for _, tf := range []Transform{YearTransform{}, MonthTransform{}, DayTransform{}, HourTransform{}} {
			if r, _ := tf.Apply(c.typ, c.v); r != int32(-1) {
				t.Errorf("%s of %s -1 = %v, want -1", tf, c.typ, r)
			}
		}
	}
}

func TestTemporalTransformsOnDates(t *testing.T) {
	cases := []struct {
		date               string
		year, month, day32 int32
	}{
		{"1970-01-01", 0, 0, 0},
		{"1969-12-31", -1, -1, -1},
		{"1969-01-01", -1, -12, -365},
		{"2017-11-16", 47, 574, 17486},
		{"2000-02-29", 30, 361, 11016},
	}
	for _, c := range cases {
		d := mustDate(t, c.date)
		y, _ := YearTransform{}.Apply(DateType{}, d)
		m, _ := MonthTransform{}.Apply(DateType{}, d)
		day, _ := DayTransform{}.Apply(DateType{}, d)
		if y != c.year || m != c.month || day != c.day32 {
			t.Errorf("%s: year %v month %v day %v, want %d %d %d", c.date, y, m, day, c.year, c.month, c.day32)
		}
	}
	if _, err := (HourTransform{}).Apply(DateType{}, int32(0)); err == nil {
		t.Error("hour of a date must fail")
	}
}

// civilFromDays against Go's calendar over a wide range of days.
func TestCivilFromDaysMatchesTimePackage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(days int64) {
		y, m, d := civilFromDays(days)
		want := time.Unix(days*86400, 0).UTC()
		if y != int64(want.Year()) || m != int(want.Month()) || d != want.Day() {
			t.Fatalf("day %d: %d-%d-%d, want %s", days, y, m, d, want.Format("2006-01-02"))
		}
	}
	for days := int64(-800_000); days <= 800_000; days++ {
		check(days)
	}
	for range 100_000 {
		check(r.Int64N(2*106_751_991) - 106_751_991) // the whole µs timestamp range
	}
}

func TestTemporalTransformsMatchTimePackage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50_000 {
		us := r.Int64N(2*400*365*86400*1_000_000) - 400*365*86400*1_000_000 // ±400 years
		tm := time.UnixMicro(us).UTC()
		year, _ := YearTransform{}.Apply(TimestampType{}, us)
		month, _ := MonthTransform{}.Apply(TimestamptzType{}, us)
		hour, _ := HourTransform{}.Apply(TimestampType{}, us)
		wantYear := int32(tm.Year() - 1970)
		wantMonth := wantYear*12 + int32(tm.Month()) - 1
		wantHour := int32(math.Floor(float64(us) / 3.6e9))
		if year != wantYear || month != wantMonth || hour != wantHour {
			t.Fatalf("%s: year %v month %v hour %v, want %d %d %d", tm, year, month, hour, wantYear, wantMonth, wantHour)
		}
	}
}

func TestResultTypes(t *testing.T) {
	ok := []struct {
		tf   Transform
		src  Type
		want Type
	}{
		{IdentityTransform{}, StringType{}, StringType{}},
		{IdentityTransform{}, DecimalType{Precision: 9, Scale: 2}, DecimalType{Precision: 9, Scale: 2}},
		{VoidTransform{}, &StructType{}, &StructType{}},
		{VoidTransform{}, nil, IntType{}},
		{YearTransform{}, DateType{}, IntType{}},
		{MonthTransform{}, TimestamptzNsType{}, IntType{}},
		{DayTransform{}, TimestampType{}, DateType{}},
		{DayTransform{}, DateType{}, DateType{}},
		{HourTransform{}, TimestamptzType{}, IntType{}},
		{BucketTransform{N: 4}, UUIDType{}, IntType{}},
		{BucketTransform{N: 4}, FixedType{Length: 3}, IntType{}},
		{BucketTransform{N: 4}, TimestampNsType{}, IntType{}},
		{TruncateTransform{Width: 4}, BinaryType{}, BinaryType{}},
		{TruncateTransform{Width: 4}, LongType{}, LongType{}},
	}
	for _, c := range ok {
		got, err := c.tf.ResultType(c.src)
		if err != nil || got.String() != c.want.String() {
			t.Errorf("%s on %v: %v, %v; want %v", c.tf, c.src, got, err, c.want)
		}
	}
	bad := []struct {
		tf  Transform
		src Type
	}{
		{IdentityTransform{}, &ListType{ElementID: 1, Element: IntType{}}},
		{YearTransform{}, TimeType{}},
		{YearTransform{}, LongType{}},
		{HourTransform{}, DateType{}},
		{BucketTransform{N: 4}, BooleanType{}},
		{BucketTransform{N: 4}, FloatType{}},
		{BucketTransform{N: 4}, DoubleType{}},
		{BucketTransform{N: 0}, IntType{}},
		{TruncateTransform{Width: 4}, FixedType{Length: 8}},
		{TruncateTransform{Width: 4}, DateType{}},
		{TruncateTransform{Width: 0}, IntType{}},
		{UnknownTransform{Name: "zorder"}, IntType{}},
	}
	for _, c := range bad {
		if got, err := c.tf.ResultType(c.src); err == nil {
			t.Errorf("%s on %v: got %v, want an error", c.tf, c.src, got)
		}
		if _, err := c.tf.Apply(c.src, int32(1)); err == nil {
			t.Errorf("%s.Apply on %v must fail", c.tf, c.src)
		}
	}
}

func TestApplyRejectsNonCanonicalValues(t *testing.T) {
	cases := []struct {
		tf  Transform
		src Type
		v   any
	}{
		{IdentityTransform{}, IntType{}, int64(1)},
		{IdentityTransform{}, FixedType{Length: 2}, []byte{1}},
		{YearTransform{}, DateType{}, int64(1)},
		{HourTransform{}, TimestampType{}, int32(1)},
		{BucketTransform{N: 2}, StringType{}, []byte("x")},
		{TruncateTransform{Width: 2}, IntType{}, 3},
	}
	for _, c := range cases {
		if _, err := c.tf.Apply(c.src, c.v); err == nil {
			t.Errorf("%s.Apply(%v, %T) must fail", c.tf, c.src, c.v)
		}
	}
	for _, c := range []struct {
		tf  Transform
		src Type
	}{
		{IdentityTransform{}, DateType{}}, {VoidTransform{}, DateType{}}, {YearTransform{}, DateType{}},
		{MonthTransform{}, TimestampType{}}, {DayTransform{}, TimestampNsType{}}, {HourTransform{}, TimestamptzType{}},
		{BucketTransform{N: 3}, StringType{}}, {TruncateTransform{Width: 3}, BinaryType{}},
	} {
		if got, err := c.tf.Apply(c.src, nil); got != nil || err != nil {
			t.Errorf("%s of a null %v = %v, %v; want null", c.tf, c.src, got, err)
		}
	}
	if got, _ := (VoidTransform{}).Apply(IntType{}, int32(5)); got != nil {
		t.Errorf("void gave %v, want null", got)
	}
}

func BenchmarkBucketLong(b *testing.B) {
	tf := BucketTransform{N: 16}
	for i := range b.N {
		if _, err := tf.HashValue(LongType{}, int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBucketString(b *testing.B) {
	tf := BucketTransform{N: 16}
	b.ReportAllocs()
	for range b.N {
		if _, err := tf.HashValue(StringType{}, "iceberg-partition-value"); err != nil {
			b.Fatal(err)
		}
	}
}
