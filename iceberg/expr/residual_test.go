package expr

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// impala_iceberg_partitioned's schema and spec: hour(event_time), then
// identity(action).
func partitionedTable(t *testing.T) (*iceberg.Schema, *iceberg.PartitionSpec, *iceberg.StructType) {
	t.Helper()
	schema := fixtureSchema(t, "impala_iceberg_partitioned/metadata/v2.metadata.json")
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 4, FieldID: 1000, Name: "event_time_hour", Transform: iceberg.HourTransform{}},
		{SourceID: 3, FieldID: 1001, Name: "action", Transform: iceberg.IdentityTransform{}},
	}}
	partType, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	return schema, spec, partType
}

func TestResidual(t *testing.T) {
	schema, spec, partType := partitionedTable(t)
	click := []any{int32(438297), "click"}
	view := []any{int32(438296), "view"}
	download := []any{int32(438298), "download"}
	cases := []struct {
		filter    string
		partition []any
		want      string
	}{
		{"action = 'click' and id > 10", click, "id > 10"},
		{"action = 'click' and id > 10", view, "false"},
		{"action = 'click' or id > 10", view, "id > 10"},
		{"action = 'click' or id > 10", click, "true"},
		{"not (action = 'click')", click, "false"},
		{"not (action = 'click')", view, "true"},
		{"action != 'click' or id = 1", click, "id = 1"},
		{"action like 'cl%'", click, "true"},
		{"action in ('click', 'view')", download, "false"},
		{"event_time >= '2020-01-01T09:00:00+00:00'", click, "true"},
		{"event_time >= '2020-01-01T09:00:00+00:00'", view, "false"},
		{"event_time > '2020-01-01T09:30:00+00:00'", click, "event_time > '2020-01-01T09:30:00.000000+00:00'"},
		{"event_time > '2020-01-01T09:30:00+00:00'", download, "true"},
		{"event_time < '2020-01-01T10:00:00+00:00' and user = 'Alan'", click, "user = 'Alan'"},
		{"event_time is null", click, "false"},
		{"user is not null", click, "true"}, // a required column: bound to true
		{"id is null", click, "id is null"},
	}
	for _, c := range cases {
		r, err := NewResidualEvaluator(mustBind(t, schema, c.filter), spec, partType)
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if got := r.Residual(c.partition).String(); got != c.want {
			t.Errorf("residual of %s on %v = %s, want %s", c.filter, c.partition, got, c.want)
		}
	}
}

// An undecided filter comes back as the same tree, not a copy.
func TestResidualSharesUndecidedFilter(t *testing.T) {
	schema, spec, partType := partitionedTable(t)
	filter := mustBind(t, schema, "id > 1 and (user = 'Alan' or id < 0)")
	r, err := NewResidualEvaluator(filter, spec, partType)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Residual([]any{int32(1), "x"}); got != filter {
		t.Errorf("residual %s is a new tree", got)
	}
	unpartitioned, err := NewResidualEvaluator(filter, &iceberg.PartitionSpec{}, &iceberg.StructType{})
	if err != nil {
		t.Fatal(err)
	}
	if got := unpartitioned.Residual(nil); got != filter {
		t.Errorf("unpartitioned residual %s is not the filter", got)
	}
}

// The residual of a partition with a truncated column keeps the predicate
// unless the partition decides it either way.
func TestResidualTruncate(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "s", Type: iceberg.StringType{}}})
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "s_trunc", Transform: iceberg.TruncateTransform{Width: 2}}}}
	partType, _ := spec.PartitionType(schema)
	r, err := NewResidualEvaluator(mustBind(t, schema, "s like 'ab%'"), spec, partType)
	if err != nil {
		t.Fatal(err)
	}
	for part, want := range map[string]string{"ab": "true", "ac": "false", "a": "false"} {
		if got := r.Residual([]any{part}).String(); got != want {
			t.Errorf("partition %q: residual %s, want %s", part, got, want)
		}
	}
	r, _ = NewResidualEvaluator(mustBind(t, schema, "s >= 'abc'"), spec, partType)
	for part, want := range map[string]string{"ab": "s >= 'abc'", "ac": "true", "aa": "false"} {
		if got := r.Residual([]any{part}).String(); got != want {
			t.Errorf("partition %q: residual %s, want %s", part, got, want)
		}
	}
}

// A residual written with MarshalJSON parses and binds back to an equal
// expression, for literals of every type; so does one unbound in memory
// (Unbind), which also writes the same JSON and text.
func TestResidualJSONRoundTrip(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.IntType{}},
		{ID: 2, Name: "l", Type: iceberg.LongType{}},
		{ID: 3, Name: "f", Type: iceberg.FloatType{}},
		{ID: 4, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 5, Name: "dec", Type: iceberg.DecimalType{Precision: 38, Scale: 4}},
		{ID: 6, Name: "dt", Type: iceberg.DateType{}},
		{ID: 7, Name: "tm", Type: iceberg.TimeType{}},
		{ID: 8, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 9, Name: "tstz", Type: iceberg.TimestamptzType{}},
		{ID: 10, Name: "tsns", Type: iceberg.TimestampNsType{}},
		{ID: 11, Name: "tstzns", Type: iceberg.TimestamptzNsType{}},
		{ID: 12, Name: "s", Type: iceberg.StringType{}},
		{ID: 13, Name: "u", Type: iceberg.UUIDType{}},
		{ID: 14, Name: "bin", Type: iceberg.BinaryType{}},
		{ID: 15, Name: "fx", Type: iceberg.FixedType{Length: 3}},
		{ID: 16, Name: "flag", Type: iceberg.BooleanType{}},
		{ID: 17, Name: "Mixed Case", Type: iceberg.IntType{}},
		{ID: 18, Name: "part", Type: iceberg.StringType{}},
	})
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 18, FieldID: 1000, Name: "part", Transform: iceberg.IdentityTransform{}}}}
	partType, _ := spec.PartitionType(schema)
	filters := []string{
		"i = -2147483648 and l in (9007199254740993, -1, 0)",
		"f = 3.14 or f = -0.0 or f < 3.4028234663852886e38 or f > 1e-45",
		"d in (10.0, 1e300, -2.5e-300) and d is not nan",
		"d > '-Infinity' or d < 'Infinity'",
		"dec = '-12345678901234567890.1234' or dec > 0.5",
		"dt < '1969-12-31' and tm >= '23:59:59.999999'",
		"ts = '1969-01-01T00:00:00.000001' or tstz != '2021-10-31T00:15:00+02:00'",
		"tsns = '2261-12-31T23:59:59.999999999' or tstzns < '1678-01-01T00:00:00.000000001Z'",
		`s in ('it''s', 'é', '"quoted"', 'a\b') or s like '100\%%' or s not like 'x%'`,
		"u = '1571effb-facd-42a3-90e9-0af522e9b6c2' or bin = '00ff10' or fx != 'abcdef'",
		`flag = false and "Mixed Case" is null and not (i is not null)`,
		"part = 'a' and i > 1", // the partition decides part: the residual is i > 1
	}
	for _, f := range filters {
		bound := mustBind(t, schema, f)
		r, err := NewResidualEvaluator(bound, spec, partType)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		residual := r.Residual([]any{"b"})
		if strings.HasPrefix(f, "part") {
			residual = r.Residual([]any{"a"})
			if residual.String() != "i > 1" {
				t.Errorf("residual of %s is %s", f, residual)
			}
		}
		data, err := MarshalJSON(residual)
		if err != nil {
			t.Fatalf("MarshalJSON(%s): %v", residual, err)
		}
		parsed, err := ParseJSON(data)
		if err != nil {
			t.Fatalf("ParseJSON(%s): %v", data, err)
		}
		back, err := Bind(parsed, schema, false)
		if err != nil {
			t.Fatalf("Bind(%s): %v", data, err)
		}
		if !reflect.DeepEqual(back, residual) {
			t.Errorf("%s\n  wrote %s\n  read back %s", residual, data, back)
		}
		unbound := Unbind(residual)
		if rebound, err := Bind(unbound, schema, false); err != nil || !reflect.DeepEqual(rebound, residual) {
			t.Errorf("%s: unbound and bound again: %v (%v)", residual, rebound, err)
		}
		if again, err := MarshalJSON(unbound); err != nil || string(again) != string(data) {
			t.Errorf("%s: unbound writes %s (%v), bound %s", residual, again, err, data)
		}
		if unbound.String() != residual.String() {
			t.Errorf("unbound reads %s, bound %s", unbound, residual)
		}
	}
	// Float literals stay exact, including the sign of zero and the float
	// range's edge.
	p := mustBind(t, schema, "f = -0.0").(*BoundPredicate)
	data, _ := MarshalJSON(p)
	back, _ := ParseJSON(data)
	rebound, _ := Bind(back, schema, false)
	if v := rebound.(*BoundPredicate).Values[0].(float32); !math.Signbit(float64(v)) {
		t.Errorf("-0.0 came back as %v through %s", v, data)
	}
}

func TestMarshalBoundJSONForm(t *testing.T) {
	schema, _, _ := partitionedTable(t)
	got, err := MarshalJSON(mustBind(t, schema, "event_time >= '2020-01-01T09:00:00Z' and action in ('view', 'click')"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"and","left":{"type":"gt-eq","term":"event_time","value":"2020-01-01T09:00:00.000000+00:00"},` +
		`"right":{"type":"in","term":"action","values":["click","view"]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, bad := range []*BoundPredicate{
		{Op: OpEq, Name: "x", Field: iceberg.NestedField{Type: iceberg.IntType{}}},
		{Op: OpIsNull, Name: "x", Field: iceberg.NestedField{Type: iceberg.IntType{}}, Values: []any{int32(1)}},
		{Op: OpEq, Name: "x", Field: iceberg.NestedField{Type: iceberg.DoubleType{}}, Values: []any{math.NaN()}},
		{Op: OpEq, Name: "x", Field: iceberg.NestedField{Type: iceberg.IntType{}}, Values: []any{"not an int"}},
		{Op: OpEq, Field: iceberg.NestedField{Type: iceberg.IntType{}}, Values: []any{int32(1)}},
	} {
		if _, err := MarshalJSON(bad); err == nil {
			t.Errorf("MarshalJSON(%#v) must fail", bad)
		}
	}
}

// A literal unbound from one type binds to a column promoted since: an int
// literal to a long column, a float one to a double column, a decimal to a
// wider one at the same scale.
func TestUnbindBindsToPromotedColumns(t *testing.T) {
	narrow := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.IntType{}},
		{ID: 2, Name: "f", Type: iceberg.FloatType{}},
		{ID: 3, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
	})
	wide := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.LongType{}},
		{ID: 2, Name: "f", Type: iceberg.DoubleType{}},
		{ID: 3, Name: "dec", Type: iceberg.DecimalType{Precision: 18, Scale: 2}},
	})
	for _, c := range []struct {
		filter string
		want   any
	}{
		{"i = 7", int64(7)},
		{"f = 0.5", 0.5},
		{"dec = 12.34", iceberg.DecimalFromInt64(1234, 2)},
	} {
		got, err := Bind(Unbind(mustBind(t, narrow, c.filter)), wide, false)
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if v := got.(*BoundPredicate).Values[0]; !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s on the promoted column: %#v, want %#v", c.filter, v, c.want)
		}
	}
}
