package expr

import (
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// projectionCase projects filter (on column x, with y an unpartitioned
// int) through the spec fields; inclusive and strict are the projections'
// text, with partition fields named as in the spec.
type projectionCase struct {
	filter, inclusive, strict string
}

func checkProjections(t *testing.T, src iceberg.Type, fields []iceberg.PartitionField, cases []projectionCase) {
	t.Helper()
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "x", Type: src},
		{ID: 2, Name: "y", Type: iceberg.IntType{}},
	})
	spec := &iceberg.PartitionSpec{ID: 0, Fields: fields}
	partType, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		bound := mustBind(t, schema, c.filter)
		inc, err := ProjectInclusive(bound, spec, partType)
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		str, err := ProjectStrict(bound, spec, partType)
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if inc.String() != c.inclusive {
			t.Errorf("%s %s: inclusive projection %s, want %s", fields[0].Transform, c.filter, inc, c.inclusive)
		}
		if str.String() != c.strict {
			t.Errorf("%s %s: strict projection %s, want %s", fields[0].Transform, c.filter, str, c.strict)
		}
		// Projections are bound to the partition struct, so they evaluate.
		for _, e := range []Expr{inc, str} {
			if _, err := NewTupleEvaluator(e, partType); err != nil {
				t.Errorf("%s: projection %s does not evaluate on %s: %v", c.filter, e, partType, err)
			}
		}
	}
}

func field(tr iceberg.Transform) []iceberg.PartitionField {
	return []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "p", Transform: tr}}
}

func TestProjectIdentity(t *testing.T) {
	checkProjections(t, iceberg.IntType{}, field(iceberg.IdentityTransform{}), []projectionCase{
		{"x < 5", "p < 5", "p < 5"},
		{"x != 5", "p != 5", "p != 5"},
		{"x not in (1, 2)", "p not in (1, 2)", "p not in (1, 2)"},
		{"x is null", "p is null", "p is null"},
		{"not (x < 5)", "p >= 5", "p >= 5"},
		{"x = 1 or y = 2", "true", "p = 1"},
		{"x = 1 and y = 2", "p = 1", "false"},
		{"y = 2", "true", "false"},
	})
	checkProjections(t, iceberg.DoubleType{}, field(iceberg.IdentityTransform{}), []projectionCase{
		{"x is nan", "p is nan", "p is nan"},
		{"x is not nan", "p is not nan", "p is not nan"},
	})
}

func TestProjectBucket(t *testing.T) {
	// 34 hashes to 2017239379 (spec Appendix B), which is 3 mod 16.
	checkProjections(t, iceberg.IntType{}, field(iceberg.BucketTransform{N: 16}), []projectionCase{
		{"x = 34", "p = 3", "false"},
		{"x != 34", "true", "p != 3"},
		{"x not in (34, 34)", "true", "p != 3"},
		{"x < 34", "true", "false"},
		{"x is not null", "p is not null", "p is not null"},
	})
	// "iceberg" hashes to 1210000089: bucket 89 of 100.
	checkProjections(t, iceberg.StringType{}, field(iceberg.BucketTransform{N: 100}), []projectionCase{
		{"x = 'iceberg'", "p = 89", "false"},
		{"x like 'ice%'", "true", "false"},
	})
}

func TestProjectTruncateInt(t *testing.T) {
	checkProjections(t, iceberg.IntType{}, field(iceberg.TruncateTransform{Width: 10}), []projectionCase{
		{"x < 10", "p <= 0", "p < 10"},
		{"x <= 10", "p <= 10", "p < 10"},
		{"x <= 9", "p <= 0", "p < 10"},
		{"x > 9", "p >= 10", "p > 0"},
		{"x >= 10", "p >= 10", "p > 0"},
		{"x >= 11", "p >= 10", "p > 10"},
		{"x = -1", "p = -10", "false"},
		{"x != 5", "true", "p != 0"},
		{"x in (1, 5, 15)", "p in (0, 10)", "false"},
		{"x not in (1, 5, 15)", "true", "p not in (0, 10)"},
		// The neighbour of the smallest int does not exist, and its
		// truncation is out of range: neither projects.
		{"x < -2147483648", "true", "false"},
		{"x <= 2147483647", "p <= 2147483640", "false"},
	})
	checkProjections(t, iceberg.LongType{}, field(iceberg.TruncateTransform{Width: 100}), []projectionCase{
		{"x < 1000", "p <= 900", "p < 1000"},
		{"x > -1", "p >= 0", "p > -100"},
	})
}

// The spec's example: truncate[50] of 10.65 at scale 2 is 10.50.
func TestProjectTruncateDecimal(t *testing.T) {
	checkProjections(t, iceberg.DecimalType{Precision: 9, Scale: 2}, field(iceberg.TruncateTransform{Width: 50}), []projectionCase{
		{"x = 10.65", "p = '10.50'", "false"},
		{"x < 10.50", "p <= '10.00'", "p < '10.50'"},
		{"x > 10.49", "p >= '10.50'", "p > '10.00'"},
		{"x >= -0.01", "p >= '-0.50'", "p > '-0.50'"},
	})
}

func TestProjectTruncateString(t *testing.T) {
	checkProjections(t, iceberg.StringType{}, field(iceberg.TruncateTransform{Width: 3}), []projectionCase{
		{"x = 'iceberg'", "p = 'ice'", "false"},
		{"x = 'ic'", "p = 'ic'", "false"},
		{"x != 'iceberg'", "true", "p != 'ice'"},
		{"x < 'icf'", "p <= 'icf'", "p < 'icf'"},
		{"x > 'iceberg'", "p >= 'ice'", "p > 'ice'"},
		{"x like 'ic%'", "p like 'ic%'", "p like 'ic%'"},
		{"x like 'ice%'", "p = 'ice'", "p = 'ice'"},
		{"x like 'iceb%'", "p = 'ice'", "false"},
		{"x not like 'ic%'", "p not like 'ic%'", "p not like 'ic%'"},
		{"x not like 'ice%'", "p != 'ice'", "p != 'ice'"},
		{"x not like 'iceb%'", "true", "p != 'ice'"},
		{"x in ('iceberg', 'icy', 'ice')", "p in ('ice', 'icy')", "false"},
	})
	// Widths count code points, not bytes.
	checkProjections(t, iceberg.StringType{}, field(iceberg.TruncateTransform{Width: 2}), []projectionCase{
		{"x = 'héllo'", "p = 'hé'", "false"},
		{"x like 'hé%'", "p = 'hé'", "p = 'hé'"},
	})
}

func TestProjectTruncateBinary(t *testing.T) {
	checkProjections(t, iceberg.BinaryType{}, field(iceberg.TruncateTransform{Width: 2}), []projectionCase{
		{"x = '010203'", "p = '0102'", "false"},
		{"x >= '010203'", "p >= '0102'", "p > '0102'"},
		{"x != '01'", "true", "p != '01'"},
	})
}

func TestProjectTemporal(t *testing.T) {
	checkProjections(t, iceberg.DateType{}, field(iceberg.YearTransform{}), []projectionCase{
		{"x < '2020-01-01'", "p <= 49", "p < 50"},
		{"x <= '2020-01-01'", "p <= 50", "p < 50"},
		{"x >= '2020-01-01'", "p >= 50", "p > 49"},
		{"x > '2019-12-31'", "p >= 50", "p > 49"},
		{"x = '2020-06-01'", "p = 50", "false"},
		{"x != '2020-06-01'", "true", "p != 50"},
		// Pre-epoch values: projections also cover the value one larger that
		// Iceberg writers up to 0.10 produced for them.
		{"x = '1969-12-31'", "p in (-1, 0)", "false"},
		{"x < '1970-01-01'", "p <= 0", "p < 0"},
		{"x > '1969-06-01'", "p >= -1", "p > 0"},
		{"x != '1969-06-01'", "true", "p not in (-1, 0)"},
		{"x in ('1969-06-01', '2020-01-01')", "p in (-1, 0, 50)", "false"},
	})
	checkProjections(t, iceberg.DateType{}, field(iceberg.MonthTransform{}), []projectionCase{
		{"x >= '2020-02-01'", "p >= 601", "p > 600"},
		{"x < '1970-01-01'", "p <= 0", "p < 0"},
	})
	// day of a date is the date itself: exact, and no pre-epoch adjustment.
	checkProjections(t, iceberg.DateType{}, field(iceberg.DayTransform{}), []projectionCase{
		{"x = '1969-12-31'", "p = '1969-12-31'", "false"},
		{"x < '1970-01-01'", "p <= '1969-12-31'", "p < '1970-01-01'"},
	})
	checkProjections(t, iceberg.TimestampType{}, field(iceberg.DayTransform{}), []projectionCase{
		{"x = '1969-12-31T10:00:00'", "p in ('1969-12-31', '1970-01-01')", "false"},
		{"x >= '2024-03-01T00:00:00'", "p >= '2024-03-01'", "p > '2024-02-29'"},
	})
	// Hour 438297 is 2020-01-01T09 (impala_iceberg_partitioned).
	checkProjections(t, iceberg.TimestamptzType{}, field(iceberg.HourTransform{}), []projectionCase{
		{"x >= '2020-01-01T09:00:00+00:00'", "p >= 438297", "p > 438296"},
		{"x > '2020-01-01T09:00:00+00:00'", "p >= 438297", "p > 438297"},
		{"x < '2020-01-01T09:00:00+00:00'", "p <= 438296", "p < 438297"},
		{"x <= '2020-01-01T09:00:00+00:00'", "p <= 438297", "p < 438297"},
		{"x <= '2020-01-01T09:59:59.999999+00:00'", "p <= 438297", "p < 438298"},
		{"x = '2020-01-01T09:30:00+00:00'", "p = 438297", "false"},
		{"x = '1969-01-01T00:15:00+00:00'", "p in (-8760, -8759)", "false"},
	})
	checkProjections(t, iceberg.TimestampNsType{}, field(iceberg.HourTransform{}), []projectionCase{
		{"x = '2020-01-01T09:00:00.000000001'", "p = 438297", "false"},
		{"x < '2020-01-01T09:00:00'", "p <= 438296", "p < 438297"},
	})
	checkProjections(t, iceberg.TimestampType{}, field(iceberg.YearTransform{}), []projectionCase{
		{"x < '2021-01-01T00:00:00'", "p <= 50", "p < 51"},
	})
}

func TestProjectVoidAndUnknown(t *testing.T) {
	for _, tr := range []iceberg.Transform{iceberg.VoidTransform{}, iceberg.UnknownTransform{Name: "zorder"}} {
		schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "x", Type: iceberg.IntType{}}})
		spec := &iceberg.PartitionSpec{Fields: field(tr)}
		// An unknown transform has no result type; its field is typed int here.
		partType := &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1000, Name: "p", Type: iceberg.IntType{}}}}
		bound := mustBind(t, schema, "x = 5 or x is null")
		inc, _ := ProjectInclusive(bound, spec, partType)
		str, _ := ProjectStrict(bound, spec, partType)
		if inc.String() != "true" || str.String() != "false" {
			t.Errorf("%s: projections %s and %s, want true and false", tr, inc, str)
		}
	}
}

// With two fields on one column the inclusive projection keeps both (each
// is implied), the strict one accepts either (each implies the filter).
func TestProjectSeveralFieldsOfOneColumn(t *testing.T) {
	fields := []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "d", Transform: iceberg.DayTransform{}},
		{SourceID: 1, FieldID: 1001, Name: "h", Transform: iceberg.HourTransform{}},
	}
	checkProjections(t, iceberg.TimestampType{}, fields, []projectionCase{
		{"x = '2020-01-01T09:30:00'", "(d = '2020-01-01' and h = 438297)", "false"},
		{"x >= '2020-01-02T00:00:00'", "(d >= '2020-01-02' and h >= 438312)", "(d > '2020-01-01' or h > 438311)"},
	})
}

// A partition type built from a newer schema (int promoted to long) gets
// literals widened to it.
func TestProjectWidensToPromotedPartitionType(t *testing.T) {
	old := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "x", Type: iceberg.IntType{}}})
	newer := iceberg.NewSchema(1, []iceberg.NestedField{{ID: 1, Name: "x", Type: iceberg.LongType{}}})
	spec := &iceberg.PartitionSpec{Fields: field(iceberg.IdentityTransform{})}
	partType, err := spec.PartitionType(newer)
	if err != nil {
		t.Fatal(err)
	}
	inc, err := ProjectInclusive(mustBind(t, old, "x in (1, 2)"), spec, partType)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := inc.(*BoundPredicate)
	if !ok || p.Values[0] != int64(1) || p.Field.Type != (iceberg.LongType{}) {
		t.Fatalf("projection %#v, want long literals", inc)
	}
}

func TestProjectErrors(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "x", Type: iceberg.IntType{}}})
	spec := &iceberg.PartitionSpec{Fields: field(iceberg.IdentityTransform{})}
	partType, _ := spec.PartitionType(schema)
	if _, err := ProjectInclusive(&Predicate{Op: OpIsNull, Column: "x"}, spec, partType); err == nil || !strings.Contains(err.Error(), "not bound") {
		t.Errorf("unbound: %v", err)
	}
	if _, err := ProjectStrict(mustBind(t, schema, "x = 1"), spec, &iceberg.StructType{}); err == nil {
		t.Error("a partition type without the spec's field must be an error")
	}
}
