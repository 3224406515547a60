package table

import (
	"math"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

func metricsSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.IntType{}},
		{ID: 2, Name: "l", Type: iceberg.LongType{}},
		{ID: 3, Name: "s", Type: iceberg.StringType{}},
		{ID: 4, Name: "f", Type: iceberg.FloatType{}},
		{ID: 5, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 6, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
		{ID: 7, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 8, Name: "b", Type: iceberg.BinaryType{}},
		{ID: 9, Name: "flag", Type: iceberg.BooleanType{}},
	})
}

func bindFilter(t *testing.T, schema *iceberg.Schema, filter string) expr.Expr {
	t.Helper()
	e, err := expr.ParseText(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	b, err := expr.Bind(e, schema, false)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	return b
}

func encode(t *testing.T, typ iceberg.Type, v any) []byte {
	t.Helper()
	b, err := iceberg.ValueToBytes(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// column describes one column's metrics in a test file; nil counts are
// left out of the file's maps.
type column struct {
	id                   int
	values, nulls, nans  *int64
	lower, upper         []byte
	lowerType, upperType iceberg.Type
}

func n(v int64) *int64 { return &v }

func dataFile(rows int64, cols ...column) *manifest.DataFile {
	f := &manifest.MetricMaps{ValueCounts: map[int]int64{}, NullValueCounts: map[int]int64{},
		NaNValueCounts: map[int]int64{}, LowerBounds: map[int][]byte{}, UpperBounds: map[int][]byte{}}
	for _, c := range cols {
		if c.values != nil {
			f.ValueCounts[c.id] = *c.values
		}
		if c.nulls != nil {
			f.NullValueCounts[c.id] = *c.nulls
		}
		if c.nans != nil {
			f.NaNValueCounts[c.id] = *c.nans
		}
		if c.lower != nil {
			f.LowerBounds[c.id] = c.lower
		}
		if c.upper != nil {
			f.UpperBounds[c.id] = c.upper
		}
	}
	return &manifest.DataFile{RecordCount: rows, Metrics: manifest.MetricsOf(*f)}
}

func checkMetrics(t *testing.T, f *manifest.DataFile, cases map[string]bool) {
	t.Helper()
	schema := metricsSchema()
	for filter, want := range cases {
		m, err := NewMetricsEvaluator(bindFilter(t, schema, filter))
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		if got := m.MightMatch(f); got != want {
			t.Errorf("%s: might match %v, want %v", filter, got, want)
		}
	}
}

func TestMetricsWithoutMetrics(t *testing.T) {
	// A column the metrics do not mention (a file older than the column,
	// or no metrics kept) might hold anything.
	checkMetrics(t, dataFile(10), map[string]bool{
		"i = 1": true, "i is null": true, "i is not null": true, "f is nan": true, "f is not nan": true,
		"s like 'a%'": true, "s not like 'a%'": true, "i != 1": true, "i in (1, 2)": true, "false": false,
	})
	checkMetrics(t, dataFile(0), map[string]bool{"true": false, "i is null": false})
	checkMetrics(t, dataFile(-1, column{id: 1, values: n(3), nulls: n(3)}), map[string]bool{"i = 1": true})
}

func TestMetricsNullAndValueCounts(t *testing.T) {
	// A null fails every comparison, != and not like included, as in the
	// reader's filters.
	nullsOnly := dataFile(3, column{id: 1, values: n(3), nulls: n(3)})
	checkMetrics(t, nullsOnly, map[string]bool{
		"i = 1": false, "i < 1": false, "i in (1, 2)": false, "i is null": true, "i is not null": false,
		"i != 1": false, "i not in (1, 2)": false, "not (i = 1)": false, "i = 1 or i is null": true,
	})
	checkMetrics(t, dataFile(3, column{id: 3, values: n(3), nulls: n(3)}), map[string]bool{"s not like 'a%'": false, "s like 'a%'": false})
	noNulls := dataFile(3, column{id: 1, values: n(3), nulls: n(0)})
	checkMetrics(t, noNulls, map[string]bool{"i is null": false, "i is not null": true, "not (i is not null)": false})
}

func TestMetricsIntBounds(t *testing.T) {
	f := dataFile(5, column{id: 1, values: n(5), nulls: n(0), lower: encode(t, iceberg.IntType{}, int32(10)), upper: encode(t, iceberg.IntType{}, int32(20))})
	checkMetrics(t, f, map[string]bool{
		"i < 10": false, "i <= 10": true, "i > 20": false, "i >= 20": true, "i = 9": false, "i = 21": false,
		"i = 15": true, "i in (1, 2, 21)": false, "i in (1, 15)": true, "i in (5, 25)": false, "i != 15": true,
		"i not in (10, 20)": true, "not (i >= 10)": false, "i < 10 or i > 20": false, "i < 10 or i = 11": true,
	})
	// Equal bounds and no nulls pin the value: != and not in can rule it out.
	one := dataFile(5, column{id: 1, values: n(5), nulls: n(0), lower: encode(t, iceberg.IntType{}, int32(15)), upper: encode(t, iceberg.IntType{}, int32(15))})
	checkMetrics(t, one, map[string]bool{"i != 15": false, "i not in (15, 16)": false, "i not in (16, 17)": true, "i != 14": true})
	// Nulls beside the one value fail != as well.
	withNulls := dataFile(5, column{id: 1, values: n(5), nulls: n(2), lower: encode(t, iceberg.IntType{}, int32(15)), upper: encode(t, iceberg.IntType{}, int32(15))})
	checkMetrics(t, withNulls, map[string]bool{"i != 15": false, "i != 16": true, "i is null": true})
}

// Bounds stay in the type a column had when the file was written.
func TestMetricsPromotedBounds(t *testing.T) {
	asInt := dataFile(5, column{id: 2, values: n(5), nulls: n(0), lower: encode(t, iceberg.IntType{}, int32(-5)), upper: encode(t, iceberg.IntType{}, int32(20))})
	checkMetrics(t, asInt, map[string]bool{"l > 20": false, "l = -5": true, "l < -5": false, "l = 10000000000": false})
	asFloat := dataFile(5, column{id: 5, values: n(5), nulls: n(0), nans: n(0), lower: encode(t, iceberg.FloatType{}, float32(1.5)), upper: encode(t, iceberg.FloatType{}, float32(2.5))})
	checkMetrics(t, asFloat, map[string]bool{"d > 2.5": false, "d >= 2.5": true, "d < 1.5": false})
	// A timestamp column that was a date: its bounds are days.
	asDate := dataFile(5, column{id: 7, values: n(5), nulls: n(0), lower: encode(t, iceberg.DateType{}, int32(0)), upper: encode(t, iceberg.DateType{}, int32(1))})
	checkMetrics(t, asDate, map[string]bool{"ts > '1970-01-02T00:00:00'": false, "ts >= '1970-01-02T00:00:00'": true, "ts < '1970-01-01T00:00:00'": false})
	// Bounds of a width no type has are ignored.
	odd := dataFile(5, column{id: 2, values: n(5), nulls: n(0), lower: []byte{1, 2, 3}, upper: []byte{1}})
	checkMetrics(t, odd, map[string]bool{"l = 7": true, "l > 100": true})
}

func TestMetricsFloats(t *testing.T) {
	nanOnly := dataFile(4, column{id: 4, values: n(4), nulls: n(0), nans: n(4)})
	checkMetrics(t, nanOnly, map[string]bool{
		"f < 1": false, "f = 1": false, "f in (1, 2)": false, "f is nan": true, "f is not nan": false, "f != 1": true,
	})
	noNaN := dataFile(4, column{id: 4, values: n(4), nulls: n(0), nans: n(0), lower: encode(t, iceberg.FloatType{}, float32(-1)), upper: encode(t, iceberg.FloatType{}, float32(1))})
	checkMetrics(t, noNaN, map[string]bool{"f is nan": false, "f is not nan": true, "f > 1": false, "f = 0": true})
	// Old writers could give NaN bounds: they say nothing.
	nanBound := dataFile(4, column{id: 4, values: n(4), nulls: n(0), lower: encode(t, iceberg.FloatType{}, float32(math.NaN())), upper: encode(t, iceberg.FloatType{}, float32(math.NaN()))})
	checkMetrics(t, nanBound, map[string]bool{"f < 1": true, "f > 1": true, "f = 1": true})
	// -0 and +0 are equal to a filter: a file of -0.0 matches f = 0.
	negZero := dataFile(4, column{id: 5, values: n(4), nulls: n(0), nans: n(0), lower: encode(t, iceberg.DoubleType{}, math.Copysign(0, -1)), upper: encode(t, iceberg.DoubleType{}, math.Copysign(0, -1))})
	checkMetrics(t, negZero, map[string]bool{"d = 0": true, "d >= 0": true, "d != 0": false, "d > 0": false})
	// A unique float value needs the NaN count to rule out !=.
	mayBeNaN := dataFile(4, column{id: 5, values: n(4), nulls: n(0), lower: encode(t, iceberg.DoubleType{}, 2.0), upper: encode(t, iceberg.DoubleType{}, 2.0)})
	checkMetrics(t, mayBeNaN, map[string]bool{"d != 2": true, "d = 2": true})
}

// String bounds may be truncated prefixes (the upper one bumped): they are
// compared as bytes and never taken as a single value.
func TestMetricsTruncatedStrings(t *testing.T) {
	f := dataFile(5, column{id: 3, values: n(5), nulls: n(0), lower: []byte("abc"), upper: []byte("abd")})
	checkMetrics(t, f, map[string]bool{
		"s = 'abczzz'": true, "s = 'abe'": false, "s < 'abc'": false, "s > 'abd'": false, "s >= 'abd'": true,
		"s like 'abc%'": true, "s like 'abe%'": false, "s like 'aa%'": false, "s like 'ab%'": true,
		"s like 'abcdefgh%'": true, "s not like 'ab%'": false, "s not like 'abc%'": true, "s != 'abc'": true,
	})
	same := dataFile(5, column{id: 3, values: n(5), nulls: n(0), lower: []byte("abc"), upper: []byte("abc")})
	checkMetrics(t, same, map[string]bool{"s != 'abc'": true, "s not in ('abc')": true, "s not like 'abc%'": false})
	withNulls := dataFile(5, column{id: 3, values: n(5), nulls: n(1), lower: []byte("abc"), upper: []byte("abd")})
	checkMetrics(t, withNulls, map[string]bool{"s not like 'ab%'": false, "s not like 'abc%'": true})
	// Multi-byte code points order by their bytes.
	utf := dataFile(5, column{id: 3, values: n(5), nulls: n(0), lower: []byte("é"), upper: []byte("ü")})
	checkMetrics(t, utf, map[string]bool{"s = 'z'": false, "s = 'ö'": true, "s like 'e%'": false})
}

func TestMetricsOtherTypes(t *testing.T) {
	dec := func(s string) iceberg.Decimal { d, _ := iceberg.ParseDecimal(s, 2); return d }
	f := dataFile(5,
		column{id: 6, values: n(5), nulls: n(0), lower: encode(t, iceberg.DecimalType{Precision: 9, Scale: 2}, dec("-1.50")), upper: encode(t, iceberg.DecimalType{Precision: 9, Scale: 2}, dec("100.25"))},
		column{id: 8, values: n(5), nulls: n(0), lower: []byte{0x01, 0xff}, upper: []byte{0x02}},
		column{id: 9, values: n(5), nulls: n(0), lower: []byte{1}, upper: []byte{1}},
	)
	checkMetrics(t, f, map[string]bool{
		"dec < -1.50": false, "dec <= -1.5": true, "dec > 100.25": false, "dec = 50": true, "dec in (-2, 101)": false,
		"b = '01ff'": true, "b < '01ff'": false, "b > '02'": false, "b = '0200'": false,
		"flag = false": false, "flag = true": true, "flag != true": false,
	})
}

// Pruning runs once per file of every manifest read: it must not allocate.
func TestMetricsEvaluatorDoesNotAllocate(t *testing.T) {
	f := dataFile(5,
		column{id: 1, values: n(5), nulls: n(0), lower: encode(t, iceberg.IntType{}, int32(10)), upper: encode(t, iceberg.IntType{}, int32(20))},
		column{id: 3, values: n(5), nulls: n(0), lower: []byte("abc"), upper: []byte("abd")},
		column{id: 5, values: n(5), nulls: n(0), nans: n(0), lower: encode(t, iceberg.DoubleType{}, 1.0), upper: encode(t, iceberg.DoubleType{}, 2.0)},
	)
	m, err := NewMetricsEvaluator(bindFilter(t, metricsSchema(), "(i > 15 or s like 'ab%') and d in (1.5, 3.0) and not (s = 'x')"))
	if err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() { m.MightMatch(f) }); allocs != 0 {
		t.Errorf("MightMatch allocates %v times per file", allocs)
	}
}

// Whether a file's metrics prove every row passes, as delete and
// overwrite by filter ask to drop whole files.
func TestMetricsAllRowsMatch(t *testing.T) {
	schema := metricsSchema()
	f := dataFile(5,
		column{id: 1, values: n(5), nulls: n(0), lower: encode(t, iceberg.IntType{}, int32(10))},
		column{id: 2, values: n(5), nulls: n(0), lower: encode(t, iceberg.IntType{}, int32(-5)), upper: encode(t, iceberg.IntType{}, int32(20))},
		column{id: 3, values: n(5), nulls: n(0), lower: []byte("abc"), upper: []byte("abd")},
		column{id: 5, values: n(5), nulls: n(0), lower: encode(t, iceberg.DoubleType{}, 1.0), upper: encode(t, iceberg.DoubleType{}, 2.0)},
		column{id: 9, values: n(5), nulls: n(1), lower: []byte{1}, upper: []byte{1}},
		column{id: 8, values: n(5), nulls: n(0), lower: []byte("ab"), upper: []byte("ab")},
	)
	for filter, want := range map[string]bool{
		// one bound is enough for != on its side
		"i != 5": true, "i != 15": false, "i > 9": true, "i < 100": false,
		// bounds of a column promoted from int
		"l >= -5": true, "l < 21": true, "l > -5": false,
		// every value between the bounds starts with "ab", none with "x"
		"s like 'ab%'": true, "s not like 'x%'": true, "s not like 'abc%'": false,
		// a float column must be known to hold no NaN
		"d < 3": false,
		// a null fails every comparison
		"flag = true": false, "flag is not null": false,
		// equal binary bounds pin the value (a truncated upper bound is
		// rounded up, so it never equals the lower one)
		"b = '6162'": true, "b in ('6162', '00')": true, "b = '61'": false,
	} {
		if got := allRowsMatch(bindFilter(t, schema, filter), f); got != want {
			t.Errorf("%s: all rows match %v, want %v", filter, got, want)
		}
	}
}
