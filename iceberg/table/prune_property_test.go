package table

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// Random rows written as a data file's metrics the ways writers write
// them (bounds in the type before a promotion, strings truncated with the
// upper bound rounded up, counts or bounds left out), and random filters:
// a file with a row the filter accepts is never ruled out, and a file
// whose metrics are said to prove that every row passes has no row that
// fails.
func TestMetricsPropertyOverRows(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "l", Type: iceberg.LongType{}},
		{ID: 2, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 3, Name: "s", Type: iceberg.StringType{}},
		{ID: 4, Name: "ts", Type: iceberg.TimestampType{}},
	})
	const day = int64(86_400_000_000)
	columns := []struct {
		name   string
		values []any
		lits   []any
	}{
		{"l", []any{nil, int64(-1), int64(0), int64(2), int64(3)}, []any{int64(-2), int64(0), int64(1), int64(3)}},
		{"d", []any{nil, -1.0, math.Copysign(0, -1), 1.0, 2.5, math.NaN()}, []any{-1.0, 0.0, 1.0, 2.0, 2.5}},
		{"s", []any{nil, "", "a", "abc", "abd", "b", "\xff\xff"}, []any{"", "a", "ab", "abc", "abcd", "b"}},
		{"ts", []any{nil, int64(0), day, 2 * day}, []any{"1970-01-01T00:00:00", "1970-01-02T00:00:00", "1970-01-02T12:00:00"}},
	}
	rng := rand.New(rand.NewPCG(7, 13))
	pruned, proved := 0, 0
	for iter := range 5000 {
		rows := make([][]any, 1+rng.IntN(4))
		for i := range rows {
			rows[i] = make([]any, len(columns))
			for c, col := range columns {
				rows[i][c] = col.values[rng.IntN(len(col.values))]
			}
		}
		maps := manifest.MetricMaps{ValueCounts: map[int]int64{}, NullValueCounts: map[int]int64{},
			NaNValueCounts: map[int]int64{}, LowerBounds: map[int][]byte{}, UpperBounds: map[int][]byte{}}
		for c := range columns {
			writeMetrics(t, rng, &maps, schema.Fields[c], rows, c)
		}
		df := &manifest.DataFile{RecordCount: int64(len(rows)), Metrics: manifest.MetricsOf(maps)}
		var filter expr.Expr
		for range 1 + rng.IntN(2) {
			col := columns[rng.IntN(len(columns))]
			ops := []expr.Op{expr.OpEq, expr.OpNotEq, expr.OpLt, expr.OpLtEq, expr.OpGt, expr.OpGtEq, expr.OpIn, expr.OpNotIn, expr.OpIsNull, expr.OpNotNull}
			switch col.name {
			case "d":
				ops = append(ops, expr.OpIsNaN, expr.OpNotNaN)
			case "s":
				ops = append(ops, expr.OpStartsWith, expr.OpNotStartsWith)
			}
			op := ops[rng.IntN(len(ops))]
			var values []any
			switch {
			case op.IsUnary():
			case op.IsSet():
				values = []any{col.lits[rng.IntN(len(col.lits))], col.lits[rng.IntN(len(col.lits))]}
			default:
				values = []any{col.lits[rng.IntN(len(col.lits))]}
			}
			p, err := expr.NewPredicate(op, col.name, values...)
			if err != nil {
				t.Fatal(err)
			}
			var e expr.Expr = p
			if rng.IntN(4) == 0 {
				e = &expr.Not{Child: e}
			}
			switch {
			case filter == nil:
				filter = e
			case rng.IntN(2) == 0:
				filter = &expr.And{Left: filter, Right: e}
			default:
				filter = &expr.Or{Left: filter, Right: e}
			}
		}
		bound, err := expr.Bind(filter, schema, false)
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		rowsEval, err := expr.NewTupleEvaluator(bound, schema.AsStruct())
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMetricsEvaluator(bound)
		if err != nil {
			t.Fatal(err)
		}
		some, all := false, true
		for _, r := range rows {
			if rowsEval.Eval(r) {
				some = true
			} else {
				all = false
			}
		}
		may, every := m.MightMatch(df), allRowsMatch(bound, df)
		if some && !may {
			t.Fatalf("iteration %d: %s: a row of %v passes, but the file is ruled out by %+v", iter, bound, rows, df)
		}
		if every && !all {
			t.Fatalf("iteration %d: %s: said to hold for every row of %v, but one fails; metrics %+v", iter, bound, rows, df)
		}
		if !may {
			pruned++
		}
		if every {
			proved++
		}
	}
	if pruned < 300 || proved < 300 {
		t.Errorf("only %d files pruned and %d proved to match", pruned, proved)
	}
}

// writeMetrics records column c's metrics for rows, the way a writer of
// field's type (or of the type before its promotion) would.
func writeMetrics(t *testing.T, rng *rand.Rand, df *manifest.MetricMaps, field iceberg.NestedField, rows [][]any, c int) {
	t.Helper()
	var lo, hi any
	var nulls, nans int64
	for _, r := range rows {
		v := r[c]
		if v == nil {
			nulls++
			continue
		}
		if f, ok := v.(float64); ok && math.IsNaN(f) {
			nans++
			continue
		}
		if lo == nil || iceberg.Compare(field.Type, v, lo) < 0 {
			lo = v
		}
		if hi == nil || iceberg.Compare(field.Type, v, hi) > 0 {
			hi = v
		}
	}
	id := field.ID
	if rng.IntN(5) > 0 {
		df.ValueCounts[id] = int64(len(rows))
	}
	if rng.IntN(5) > 0 {
		df.NullValueCounts[id] = nulls
	}
	if _, float := field.Type.(iceberg.DoubleType); float && rng.IntN(5) > 0 {
		df.NaNValueCounts[id] = nans
	}
	if lo == nil {
		return
	}
	// Written before a promotion: long as int, double as float, timestamp as date.
	older := rng.IntN(2) == 0
	enc := func(v any) []byte {
		typ := field.Type
		switch x := v.(type) {
		case int64:
			if older && typ == (iceberg.LongType{}) {
				typ, v = iceberg.IntType{}, int32(x)
			} else if older && typ == (iceberg.TimestampType{}) {
				typ, v = iceberg.DateType{}, int32(x/86_400_000_000)
			}
		case float64:
			if older {
				typ, v = iceberg.FloatType{}, float32(x)
			}
		}
		b, err := iceberg.ValueToBytes(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	lower, upper := enc(lo), enc(hi)
	if _, str := field.Type.(iceberg.StringType); str && rng.IntN(2) == 0 {
		n := 1 + rng.IntN(2)
		if len(lower) > n {
			lower = lower[:n]
		}
		if len(upper) > n {
			upper = roundUpBytes(upper[:n])
		}
	}
	if rng.IntN(6) > 0 {
		df.LowerBounds[id] = lower
	}
	if upper != nil && rng.IntN(6) > 0 {
		df.UpperBounds[id] = upper
	}
}

// roundUpBytes gives the least string above every one with prefix p (nil
// when p is all 0xff: the writer then keeps no upper bound).
func roundUpBytes(p []byte) []byte {
	out := append([]byte(nil), p...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xff {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}
