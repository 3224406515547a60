package expr

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// evalSchema has one optional column of most types, and a struct.
func evalSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.IntType{}},
		{ID: 2, Name: "l", Type: iceberg.LongType{}},
		{ID: 3, Name: "f", Type: iceberg.FloatType{}},
		{ID: 4, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 5, Name: "s", Type: iceberg.StringType{}},
		{ID: 6, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
		{ID: 7, Name: "u", Type: iceberg.UUIDType{}},
		{ID: 8, Name: "b", Type: iceberg.BinaryType{}},
		{ID: 9, Name: "ts", Type: iceberg.TimestamptzType{}},
		{ID: 10, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 11, Name: "x", Type: iceberg.IntType{}},
		}}},
		{ID: 12, Name: "dt", Type: iceberg.DateType{}},
		{ID: 13, Name: "flag", Type: iceberg.BooleanType{}},
	})
}

func mustBind(t *testing.T, schema *iceberg.Schema, filter string) Expr {
	t.Helper()
	e, err := ParseText(filter)
	if err != nil {
		t.Fatalf("ParseText(%q): %v", filter, err)
	}
	b, err := Bind(e, schema, false)
	if err != nil {
		t.Fatalf("Bind(%q): %v", filter, err)
	}
	return b
}

func TestTupleEvaluator(t *testing.T) {
	schema := evalSchema()
	nan32, nan64 := float32(math.NaN()), math.NaN()
	u, _ := iceberg.ParseUUID("1571effb-facd-42a3-90e9-0af522e9b6c2")
	dec := func(s string) iceberg.Decimal {
		d, err := iceberg.ParseDecimal(s, 2)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// row builds a tuple with the given values at the fields' positions.
	row := func(kv ...any) []any {
		out := make([]any, len(schema.Fields))
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(int)] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		filter string
		tuple  []any
		want   bool
	}{
		{"i < 5", row(0, int32(4)), true},
		{"i < 5", row(0, int32(5)), false},
		{"i < 5", row(), false}, // null compares false
		{"i != 5", row(), false},
		{"not (i < 5)", row(), false}, // negation is pushed down: i >= 5
		{"not (i < 5)", row(0, int32(7)), true},
		{"i is null", row(), true},
		{"not (i is null)", row(), false},
		{"i in (1, 2, 3)", row(0, int32(2)), true},
		{"i not in (1, 2, 3)", row(0, int32(4)), true},
		{"i not in (1, 2, 3)", row(), false},
		{"i in (1, 2, 3)", row(), false},
		{"l >= 9999999999", row(1, int64(9999999999)), true},
		{"f = 1.5", row(2, float32(1.5)), true},
		{"f < 2", row(2, nan32), false},
		{"f > 2", row(2, nan32), false},
		{"f != 2", row(2, nan32), true},
		{"f is nan", row(2, nan32), true},
		{"f is not nan", row(2, nan32), false},
		{"f is not nan", row(), false}, // as the reader's kernels: a null satisfies only "is null"
		{"f is nan", row(), false},
		{"d = 0", row(3, math.Copysign(0, -1)), true}, // -0 equals +0
		{"d in (1.5, 2.5)", row(3, nan64), false},
		{"d not in (1.5, 2.5)", row(3, nan64), true},
		{"s like 'ab%'", row(4, "abc"), true},
		{"s not like 'ab%'", row(4, "abc"), false},
		{"s not like 'ab%'", row(), false},
		{"s > 'b'", row(4, "é"), true}, // code point order
		{"dec > 10.64", row(5, dec("10.65")), true},
		{"dec = 10.6", row(5, dec("10.60")), true},
		{"u = '1571effb-facd-42a3-90e9-0af522e9b6c2'", row(6, u), true},
		{"b = '0102'", row(7, []byte{1, 2}), true},
		{"b < '0102'", row(7, []byte{1}), true},
		{"ts >= '2020-01-01T09:00:00+00:00'", row(8, int64(1577869200000000)), true},
		{"ts > '2020-01-01T09:00:00+00:00'", row(8, int64(1577869200000000)), false},
		{"st.x = 3", row(9, []any{int32(3)}), true},
		{"st.x = 3", row(9, nil), false},
		{"st.x is null", row(9, nil), true},
		{"dt = '1969-12-31'", row(10, int32(-1)), true},
		{"flag = true", row(11, true), true},
		{"flag = true", row(11, false), false},
		{"i = 1 and (l = 2 or s = 'x')", row(0, int32(1), 4, "x"), true},
		{"i = 1 and (l = 2 or s = 'x')", row(0, int32(1), 4, "y"), false},
		{"not (i = 1 and l = 2)", row(0, int32(1), 1, int64(3)), true},
	}
	for _, c := range cases {
		ev, err := NewTupleEvaluator(mustBind(t, schema, c.filter), schema.AsStruct())
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if got := ev.Eval(c.tuple); got != c.want {
			t.Errorf("%s on %v = %v, want %v", c.filter, c.tuple, got, c.want)
		}
	}
	// A short tuple reads as nulls.
	ev, _ := NewTupleEvaluator(mustBind(t, schema, "ts is null"), schema.AsStruct())
	if !ev.Eval(nil) {
		t.Error("a missing field must read as null")
	}
}

// A large in-set is searched by halves; the answer must not change.
func TestTupleEvaluatorLargeSet(t *testing.T) {
	schema := evalSchema()
	var lits []string
	for i := 0; i < 40; i += 2 {
		lits = append(lits, strconv.Itoa(i))
	}
	ev, err := NewTupleEvaluator(mustBind(t, schema, "i in ("+strings.Join(lits, ", ")+")"), schema.AsStruct())
	if err != nil {
		t.Fatal(err)
	}
	for i := -3; i < 45; i++ {
		want := i >= 0 && i < 40 && i%2 == 0
		if got := ev.Eval([]any{int32(i)}); got != want {
			t.Errorf("%d: got %v", i, got)
		}
	}
}

func TestTupleEvaluatorErrors(t *testing.T) {
	schema := evalSchema()
	if _, err := NewTupleEvaluator(&Predicate{Op: OpEq, Column: "i", Values: []any{int64(1)}}, schema.AsStruct()); err == nil || !strings.Contains(err.Error(), "not bound") {
		t.Errorf("unbound predicate: %v", err)
	}
	other := &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 99, Name: "z", Type: iceberg.IntType{}}}}
	if _, err := NewTupleEvaluator(mustBind(t, schema, "i = 1"), other); err == nil {
		t.Error("a field outside the struct must be an error")
	}
	if _, err := NewTupleEvaluator(nil, schema.AsStruct()); err == nil {
		t.Error("nil expression must be an error")
	}
}

// Partition tuples are evaluated once per file: evaluation must not
// allocate.
func TestTupleEvaluatorDoesNotAllocate(t *testing.T) {
	schema := evalSchema()
	ev, err := NewTupleEvaluator(mustBind(t, schema, "(i > 3 or s in ('a', 'b')) and not (l = 7) and ts >= '2020-01-01T00:00:00Z'"), schema.AsStruct())
	if err != nil {
		t.Fatal(err)
	}
	tuple := []any{int32(5), int64(9), nil, nil, "b", nil, nil, nil, int64(1600000000000000)}
	if !ev.Eval(tuple) {
		t.Fatal("the tuple must pass")
	}
	if allocs := testing.AllocsPerRun(100, func() { ev.Eval(tuple) }); allocs != 0 {
		t.Errorf("Eval allocates %v times", allocs)
	}
}
