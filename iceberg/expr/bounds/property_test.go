package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
)

// Random rows, summaries consistent with them (exact, or weakened the ways
// writers weaken them: counts or bounds left out, bounds widened, strings
// truncated with the upper bound rounded up, partition-summary style), and
// random filters: whenever a row passes the filter (expr.TupleEvaluator,
// the rows' own semantics) the evaluator must not say that none can, and
// when it says all do, every row must.
func TestPropertySoundOverRows(t *testing.T) {
	schema := testSchema()
	st := schema.AsStruct()
	rng := rand.New(rand.NewPCG(13, 17))
	pruned, proved := 0, 0
	for iter := range 20000 {
		rows := randomRows(rng)
		src := &mapSource{rows: int64(len(rows)), by: map[int]Summary{}}
		complete := rng.IntN(4) == 0
		src.by[1] = summarize(rng, rows, 0, nil, DomainInt, complete)
		src.by[2] = summarize(rng, rows, 1, nil, DomainFloat, complete)
		src.by[3] = summarize(rng, rows, 2, nil, DomainBytes, complete)
		src.by[5] = summarize(rng, rows, 3, []int{0}, DomainInt, complete)
		filter := randomFilter(rng, 3)
		bound, err := expr.Bind(filter, schema, false)
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		ev, err := New(bound)
		if err != nil {
			t.Fatalf("%s: %v", bound, err)
		}
		tuples, err := expr.NewTupleEvaluator(bound, st)
		if err != nil {
			t.Fatal(err)
		}
		matches, all := 0, true
		for _, r := range rows {
			if tuples.Eval(r) {
				matches++
			} else {
				all = false
			}
		}
		might, allMatch := ev.MightMatch(src), ev.AllMatch(src)
		if matches > 0 && !might {
			t.Fatalf("iteration %d: %s: %d rows match %v, but might match is false for %+v", iter, bound, matches, rows, src.by)
		}
		if allMatch && !all {
			t.Fatalf("iteration %d: %s: all match is true, but a row of %v fails; summaries %+v", iter, bound, rows, src.by)
		}
		if !might {
			pruned++
		}
		if allMatch && len(rows) > 0 {
			proved++
		}
	}
	// The property must not hold only because nothing is ever decided.
	if pruned < 1000 || proved < 1000 {
		t.Errorf("only %d sets pruned and %d proved to match", pruned, proved)
	}
}

var (
	rowInts    = []any{nil, int32(-1), int32(0), int32(1), int32(2)}
	rowDoubles = []any{nil, -1.0, math.Copysign(0, -1), 0.0, 1.0, 2.5, math.NaN(), math.Inf(1)}
	rowStrings = []any{nil, "", "a", "ab", "abc", "abd", "b", "ba", "\xff", "a\xff", "\xff\xff"}
)

func randomRows(rng *rand.Rand) [][]any {
	rows := make([][]any, rng.IntN(5))
	// Each set draws from a few values, so that bounds often decide.
	pick := func(vals []any) []any {
		k := 1 + rng.IntN(3)
		out := make([]any, k)
		for i := range out {
			out[i] = vals[rng.IntN(len(vals))]
		}
		return out
	}
	is, ds, ss, xs := pick(rowInts), pick(rowDoubles), pick(rowStrings), pick(rowInts)
	for i := range rows {
		var nested any
		if rng.IntN(5) > 0 {
			x := xs[rng.IntN(len(xs))]
			if x != nil {
				x = int64(x.(int32))
			}
			nested = []any{x}
		}
		rows[i] = []any{is[rng.IntN(len(is))], ds[rng.IntN(len(ds))], ss[rng.IntN(len(ss))], nested}
	}
	return rows
}

// summarize computes the summary of column col (then down path through
// structs) over rows, then weakens it at random.
func summarize(rng *rand.Rand, rows [][]any, col int, path []int, d Domain, complete bool) Summary {
	var s Summary
	for _, r := range rows {
		v := r[col]
		for _, p := range path {
			if v == nil {
				break
			}
			v = v.([]any)[p]
		}
		s.Values++
		if v == nil {
			s.Nulls++
			continue
		}
		if f, ok := v.(float64); ok && math.IsNaN(f) {
			s.NaNs++
			continue
		}
		var x Value
		switch v := v.(type) {
		case int32:
			x.Int = int64(v)
		case int64:
			x.Int = v
		case float64:
			x.Float = v
		case string:
			x.Bytes = []byte(v)
		}
		if !s.HasLower || d.Compare(&x, &s.Lower) < 0 {
			s.Lower, s.HasLower = x, true
		}
		if !s.HasUpper || d.Compare(&x, &s.Upper) > 0 {
			s.Upper, s.HasUpper = x, true
		}
	}
	s.HasValues, s.HasNulls, s.HasNaNs, s.Exact = true, true, true, true
	if complete {
		// A partition summary: bounds kept, counts reduced to "has none".
		s.BoundsComplete = true
		s.HasValues = false
		s.HasNulls = s.Nulls == 0
		s.HasNaNs = s.NaNs == 0 && rng.IntN(2) == 0
		s.Nulls, s.NaNs, s.Values = 0, 0, 0
		return s
	}
	s.HasValues = rng.IntN(4) > 0
	s.HasNulls = rng.IntN(4) > 0
	s.HasNaNs = rng.IntN(4) > 0
	if rng.IntN(5) == 0 {
		s.HasLower = false
	}
	if rng.IntN(5) == 0 {
		s.HasUpper = false
	}
	switch d {
	case DomainInt:
		if rng.IntN(3) == 0 {
			s.Lower.Int -= int64(rng.IntN(2))
			s.Upper.Int += int64(rng.IntN(2))
			s.Exact = false
		}
	case DomainFloat:
		if rng.IntN(3) == 0 {
			s.Lower.Float -= float64(rng.IntN(2))
			s.Upper.Float += float64(rng.IntN(2))
			s.Exact = false
		}
	case DomainBytes:
		if n := rng.IntN(3); n > 0 {
			s.Exact = false
			if s.HasLower && len(s.Lower.Bytes) > n {
				s.Lower.Bytes = s.Lower.Bytes[:n]
			}
			if s.HasUpper && len(s.Upper.Bytes) > n {
				s.Upper.Bytes, s.HasUpper = roundUp(s.Upper.Bytes[:n])
			}
		}
	}
	return s
}

// roundUp gives the least byte string above every string with prefix p,
// as writers truncate an upper bound; none when p is all 0xff.
func roundUp(p []byte) ([]byte, bool) {
	out := append([]byte(nil), p...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xff {
			out[i]++
			return out[:i+1], true
		}
	}
	return nil, false
}

func randomFilter(rng *rand.Rand, depth int) expr.Expr {
	if depth > 0 && rng.IntN(3) > 0 {
		l, r := randomFilter(rng, depth-1), randomFilter(rng, depth-1)
		switch rng.IntN(3) {
		case 0:
			return &expr.And{Left: l, Right: r}
		case 1:
			return &expr.Or{Left: l, Right: r}
		}
		return &expr.Not{Child: l}
	}
	columns := []string{"i", "d", "s", "st.x"}
	col := columns[rng.IntN(len(columns))]
	lit := func() any {
		switch col {
		case "d":
			return []float64{-1, 0, 1, 2.5, 3}[rng.IntN(5)]
		case "s":
			return []string{"", "a", "ab", "abc", "abcd", "b", "\xff"}[rng.IntN(7)]
		}
		return int64(rng.IntN(5) - 2)
	}
	ops := []expr.Op{expr.OpEq, expr.OpNotEq, expr.OpLt, expr.OpLtEq, expr.OpGt, expr.OpGtEq, expr.OpIn, expr.OpNotIn, expr.OpIsNull, expr.OpNotNull}
	switch col {
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
		values = []any{lit(), lit()}
		if rng.IntN(2) == 0 {
			values = append(values, lit())
		}
	default:
		values = []any{lit()}
	}
	p, err := expr.NewPredicate(op, col, values...)
	if err != nil {
		panic(err)
	}
	return p
}
