package expr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// For random values v and random filters P on a column: if P(v) holds,
// the inclusive projection holds on transform(v); if the strict projection
// holds on transform(v), P(v) holds; and P's residual for the partition
// transform(v) holds on v exactly when P does. Values and literals are drawn near each
// other and near the transforms' boundaries (widths, hours, days, years,
// the epoch, the types' extremes), so the projections' edges are hit.
func TestProjectionProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2024))
	type combo struct {
		src iceberg.Type
		tr  iceberg.Transform
	}
	var combos []combo
	temporal := []iceberg.Transform{iceberg.YearTransform{}, iceberg.MonthTransform{}, iceberg.DayTransform{}}
	for _, src := range []iceberg.Type{iceberg.DateType{}, iceberg.TimestampType{}, iceberg.TimestamptzType{}, iceberg.TimestampNsType{}, iceberg.TimestamptzNsType{}} {
		for _, tr := range temporal {
			combos = append(combos, combo{src, tr})
		}
		if _, date := src.(iceberg.DateType); !date {
			combos = append(combos, combo{src, iceberg.HourTransform{}})
		}
	}
	for _, src := range []iceberg.Type{iceberg.IntType{}, iceberg.LongType{}, iceberg.DecimalType{Precision: 9, Scale: 2}, iceberg.StringType{}, iceberg.BinaryType{}} {
		combos = append(combos, combo{src, iceberg.TruncateTransform{Width: 1}}, combo{src, iceberg.TruncateTransform{Width: 3}}, combo{src, iceberg.TruncateTransform{Width: 10}})
		combos = append(combos, combo{src, iceberg.BucketTransform{N: 4}}, combo{src, iceberg.IdentityTransform{}})
	}
	for _, src := range []iceberg.Type{iceberg.DateType{}, iceberg.TimestamptzType{}, iceberg.UUIDType{}} {
		combos = append(combos, combo{src, iceberg.BucketTransform{N: 3}})
	}
	for _, src := range []iceberg.Type{iceberg.FloatType{}, iceberg.DoubleType{}, iceberg.BooleanType{}, iceberg.UUIDType{}, iceberg.DateType{}} {
		combos = append(combos, combo{src, iceberg.IdentityTransform{}})
	}

	const rounds = 6000
	for _, c := range combos {
		schema := &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1, Name: "x", Type: c.src}}}
		pf := iceberg.PartitionField{SourceID: 1, FieldID: 1000, Name: "p", Transform: c.tr}
		spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{pf}}
		partType, err := spec.PartitionType(iceberg.NewSchema(0, schema.Fields))
		if err != nil {
			t.Fatal(err)
		}
		gen := valueGenerator(c.src, rng)
		decidedStrict, decidedInclusive := 0, 0
		for range rounds {
			v := gen(nil)
			if rng.IntN(10) == 0 {
				v = nil
			}
			var pred Expr = randomPredicate(c.src, v, gen, rng)
			// A third of the filters combine two predicates, some negated.
			switch rng.IntN(9) {
			case 0:
				pred = &And{Left: pred, Right: randomPredicate(c.src, v, gen, rng)}
			case 1:
				pred = &Or{Left: pred, Right: randomPredicate(c.src, v, gen, rng)}
			case 2:
				pred = &Not{Child: &Or{Left: pred, Right: randomPredicate(c.src, v, gen, rng)}}
			}
			rowEval, err := NewTupleEvaluator(pred, schema)
			if err != nil {
				t.Fatalf("%s: %v", pred, err)
			}
			pv, err := c.tr.Apply(c.src, v)
			if err != nil {
				continue // beyond the result type's range; nothing to check
			}
			holds := rowEval.Eval([]any{v})
			inc, err := ProjectInclusive(pred, spec, partType)
			if err != nil {
				t.Fatal(err)
			}
			str, err := ProjectStrict(pred, spec, partType)
			if err != nil {
				t.Fatal(err)
			}
			incEval, err := NewTupleEvaluator(inc, partType)
			if err != nil {
				t.Fatalf("%s: %v", inc, err)
			}
			strEval, err := NewTupleEvaluator(str, partType)
			if err != nil {
				t.Fatalf("%s: %v", str, err)
			}
			incHolds, strHolds := incEval.Eval([]any{pv}), strEval.Eval([]any{pv})
			if holds && !incHolds {
				t.Fatalf("%s %s: %s holds on %v but its inclusive projection %s fails on %v", c.src, c.tr, pred, v, inc, pv)
			}
			if strHolds && !holds {
				t.Fatalf("%s %s: strict projection %s holds on %v but %s fails on %v", c.src, c.tr, str, pv, pred, v)
			}
			// The residual for v's partition decides v as the filter does.
			res, err := NewResidualEvaluator(pred, spec, partType)
			if err != nil {
				t.Fatal(err)
			}
			residual := res.Residual([]any{pv})
			resEval, err := NewTupleEvaluator(residual, schema)
			if err != nil {
				t.Fatalf("%s: %v", residual, err)
			}
			if resEval.Eval([]any{v}) != holds {
				t.Fatalf("%s %s: %s is %v on %v, its residual %s for partition %v is not", c.src, c.tr, pred, holds, v, residual, pv)
			}
			if strHolds {
				decidedStrict++
			}
			if !incHolds {
				decidedInclusive++
			}
		}
		// The projections must decide something, or the check says little.
		if decidedInclusive < rounds/50 {
			t.Errorf("%s %s: inclusive projections ruled out only %d of %d values", c.src, c.tr, decidedInclusive, rounds)
		}
		if _, bucket := c.tr.(iceberg.BucketTransform); !bucket && decidedStrict < rounds/50 {
			t.Errorf("%s %s: strict projections decided only %d of %d values", c.src, c.tr, decidedStrict, rounds)
		}
	}
}

// valueGenerator draws values of t; given a value, it draws one near it.
func valueGenerator(t iceberg.Type, rng *rand.Rand) func(near any) any {
	pick := func(xs ...int64) int64 { return xs[rng.IntN(len(xs))] }
	small := func() int64 { return rng.Int64N(7) - 3 }
	const day = int64(86_400_000_000)
	switch t.(type) {
	case iceberg.IntType, iceberg.LongType:
		wide := func() int64 {
			return pick(0, 0, 10, -10, 30, -30, 100, rng.Int64N(2000)-1000, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64) + small()
		}
		return func(near any) any {
			n := wide()
			if near != nil && rng.IntN(2) == 0 {
				n = toInt64(near) + small()
			}
			if _, ok := t.(iceberg.IntType); ok {
				return int32(max(math.MinInt32, min(math.MaxInt32, n)))
			}
			return n
		}
	case iceberg.DecimalType:
		return func(near any) any {
			n := pick(0, 1000, -1000, 1050, -1050, rng.Int64N(100_000)-50_000) + small()
			if near != nil && rng.IntN(2) == 0 {
				n, _ = near.(iceberg.Decimal).Int64()
				n += small()
			}
			return iceberg.DecimalFromInt64(n, 2)
		}
	case iceberg.DateType:
		return func(near any) any {
			// Around the epoch, month and year starts, and the 1900s.
			d := pick(0, -1, 31, -31, 365, -365, 18262, -25567, rng.Int64N(40000)-20000) + small()
			if near != nil && rng.IntN(2) == 0 {
				d = toInt64(near) + small()
			}
			return int32(d)
		}
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		unit := int64(1)
		if t == (iceberg.TimestampNsType{}) || t == (iceberg.TimestamptzNsType{}) {
			unit = 1000
		}
		return func(near any) any {
			base := pick(0, day, -day, 365*day, -365*day, 18262*day, 3_600_000_000, -3_600_000_000, (rng.Int64N(40000)-20000)*day)
			base += rng.Int64N(24) * 3_600_000_000 * pick(0, 1)
			v := base*unit + small()
			if near != nil && rng.IntN(2) == 0 {
				v = near.(int64) + small()*pick(1, unit, 1_000_000*unit)
			}
			return v
		}
	case iceberg.StringType, iceberg.BinaryType:
		alphabet := []string{"a", "b", "é", "z", "ß", "\u00ff", ""}
		return func(near any) any {
			var s string
			if near != nil && rng.IntN(2) == 0 {
				s = asString(near)
				if rng.IntN(2) == 0 && len(s) > 0 {
					s = s[:rng.IntN(len(s)+1)]
				}
			}
			for n := rng.IntN(5); n > 0; n-- {
				s += alphabet[rng.IntN(len(alphabet))]
			}
			if _, ok := t.(iceberg.BinaryType); ok {
				return []byte(s)
			}
			return s
		}
	case iceberg.FloatType, iceberg.DoubleType:
		return func(near any) any {
			f := []float64{0, math.Copysign(0, -1), 1.5, -1.5, math.NaN(), math.Inf(1), math.Inf(-1), rng.Float64()*10 - 5}[rng.IntN(8)]
			if near != nil && rng.IntN(2) == 0 {
				f = toFloat64(near)
			}
			if _, ok := t.(iceberg.FloatType); ok {
				return float32(f)
			}
			return f
		}
	case iceberg.BooleanType:
		return func(any) any { return rng.IntN(2) == 0 }
	case iceberg.UUIDType:
		return func(near any) any {
			var u [16]byte
			if near != nil && rng.IntN(2) == 0 {
				u = near.([16]byte)
			}
			u[15] = byte(rng.IntN(4))
			return u
		}
	}
	panic("no generator for " + t.String())
}

// randomPredicate builds a bound predicate on field 1 with literals near v.
func randomPredicate(t iceberg.Type, v any, gen func(any) any, rng *rand.Rand) *BoundPredicate {
	field := iceberg.NestedField{ID: 1, Name: "x", Type: t}
	ops := []Op{OpEq, OpNotEq, OpLt, OpLtEq, OpGt, OpGtEq, OpIn, OpNotIn, OpIsNull, OpNotNull}
	switch t.(type) {
	case iceberg.StringType:
		ops = append(ops, OpStartsWith, OpNotStartsWith)
	case iceberg.FloatType, iceberg.DoubleType:
		ops = append(ops, OpIsNaN, OpNotNaN)
	}
	op := ops[rng.IntN(len(ops))]
	p := &BoundPredicate{Op: op, FieldID: 1, Name: "x", Field: field}
	literal := func() any {
		for {
			// Bind never gives NaN literals.
			if l := gen(v); !isNaN(l) {
				return l
			}
		}
	}
	switch {
	case op.IsUnary():
	case op.IsSet():
		vals := []any{literal(), literal(), literal()}
		slices.SortFunc(vals, func(a, b any) int { return iceberg.Compare(t, a, b) })
		vals = slices.CompactFunc(vals, func(a, b any) bool { return iceberg.Compare(t, a, b) == 0 })
		if len(vals) == 1 && op == OpIn {
			p.Op = OpEq
		} else if len(vals) == 1 {
			p.Op = OpNotEq
		}
		p.Values = vals
	case op == OpStartsWith || op == OpNotStartsWith:
		s := asString(literal())
		p.Values = []any{s}
	default:
		p.Values = []any{literal()}
	}
	return p
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return 0
}

func toFloat64(v any) float64 {
	switch x := v.(type) {
	case float32:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}
