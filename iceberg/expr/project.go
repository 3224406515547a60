package expr

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"unicode/utf8"

	"github.com/floedb/floe/iceberg"
)

// Projection turns a row filter into a filter on partition tuples (spec
// "Scan Planning"). Both forms take an expression bound to the table schema
// and give one bound to the spec's partition struct: each predicate's
// FieldID is a partition field id, its Field the partition struct's field
// (typed by the transform's result) and its Values partition values.
//
// partType is the spec's partition struct (PartitionSpec.PartitionType);
// its fields are found by partition field id.

// ProjectInclusive gives a partition filter that every partition holding a
// row e accepts also passes: a partition it rejects holds no matching row.
// Predicates on columns no field partitions (or that no transform of theirs
// can project) become true.
func ProjectInclusive(e Expr, spec *iceberg.PartitionSpec, partType *iceberg.StructType) (Expr, error) {
	return project(e, spec, partType, false)
}

// ProjectStrict gives a partition filter that only partitions whose every
// row e accepts pass. Predicates that no partition field can guarantee
// become false.
func ProjectStrict(e Expr, spec *iceberg.PartitionSpec, partType *iceberg.StructType) (Expr, error) {
	return project(e, spec, partType, true)
}

func project(e Expr, spec *iceberg.PartitionSpec, partType *iceberg.StructType, strict bool) (Expr, error) {
	if spec == nil || partType == nil {
		return nil, fmt.Errorf("project: no partition spec or partition type")
	}
	var walk func(Expr) (Expr, error)
	walk = func(e Expr) (Expr, error) {
		switch e := e.(type) {
		case AlwaysTrue, AlwaysFalse:
			return e, nil
		case *And, *Or:
			var l, r Expr
			if a, ok := e.(*And); ok {
				l, r = a.Left, a.Right
			} else {
				o := e.(*Or)
				l, r = o.Left, o.Right
			}
			pl, err := walk(l)
			if err != nil {
				return nil, err
			}
			pr, err := walk(r)
			if err != nil {
				return nil, err
			}
			if _, ok := e.(*And); ok {
				return NewAnd(pl, pr), nil
			}
			return NewOr(pl, pr), nil
		case *BoundPredicate:
			return projectOnSpec(e, spec, partType, strict)
		case *Predicate:
			return nil, fmt.Errorf("project %s: the expression is not bound", e)
		case nil:
			return nil, fmt.Errorf("project: nil expression")
		}
		return nil, fmt.Errorf("project: unexpected expression %T", e)
	}
	return walk(RewriteNot(e))
}

// projectOnSpec projects one predicate through every partition field of
// its column. Inclusively each projection is implied by the predicate, so
// all of them hold together; strictly each one alone implies it.
func projectOnSpec(p *BoundPredicate, spec *iceberg.PartitionSpec, partType *iceberg.StructType, strict bool) (Expr, error) {
	var out Expr = AlwaysTrue{}
	if strict {
		out = AlwaysFalse{}
	}
	for _, pf := range spec.Fields {
		if pf.SourceID != p.FieldID {
			continue
		}
		field, ok := partType.Field(pf.FieldID)
		if !ok {
			return nil, fmt.Errorf("project: partition field %d (%s) is not in the partition type %s", pf.FieldID, pf.Name, partType)
		}
		proj := ProjectPredicate(p, pf, field, strict)
		switch {
		case proj == nil:
		case strict:
			out = NewOr(out, proj)
		default:
			out = NewAnd(out, proj)
		}
	}
	return out, nil
}

// ProjectPredicate projects one predicate through one partition field whose
// source is the predicate's column; field is the partition struct's field.
// It returns nil when the transform gives no projection of that kind (a
// caller then uses true for inclusive and false for strict projections).
func ProjectPredicate(p *BoundPredicate, pf iceberg.PartitionField, field iceberg.NestedField, strict bool) Expr {
	if p.FieldID != pf.SourceID || p.Op >= opCount {
		return nil
	}
	switch t := pf.Transform.(type) {
	case iceberg.IdentityTransform:
		return projectedPredicate(p.Op, field, p.Values)
	case iceberg.BucketTransform:
		return projectBucket(p, t, field, strict)
	case iceberg.TruncateTransform:
		switch p.Field.Type.(type) {
		case iceberg.StringType:
			return projectTruncateString(p, t, field, strict)
		case iceberg.BinaryType:
			return projectTruncateBinary(p, t, field, strict)
		}
		return projectMonotone(p, t, field, strict, false)
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform:
		_, dateDays := p.Field.Type.(iceberg.DateType)
		_, day := t.(iceberg.DayTransform)
		return projectMonotone(p, t, field, strict, !(dateDays && day))
	}
	// void: every partition value is null, which says nothing of the rows;
	// unknown transforms are ignored for filtering, as the spec requires.
	return nil
}

// projectNullTest maps "is null" and "is not null": every transform maps
// null to null and only null.
func projectNullTest(p *BoundPredicate, field iceberg.NestedField) Expr {
	if p.Op == OpIsNull || p.Op == OpNotNull {
		return projectedPredicate(p.Op, field, nil)
	}
	return nil
}

func projectBucket(p *BoundPredicate, t iceberg.BucketTransform, field iceberg.NestedField, strict bool) Expr {
	if p.Op.IsUnary() {
		return projectNullTest(p, field)
	}
	// A bucket says a value is one of many, never that it is not: equality
	// projects inclusively and inequality strictly, and nothing else does.
	want := []Op{OpEq, OpIn}
	if strict {
		want = []Op{OpNotEq, OpNotIn}
	}
	if !slices.Contains(want, p.Op) {
		return nil
	}
	out, ok := applyAll(t, p.Field.Type, p.Values)
	if !ok {
		return nil
	}
	return projectedPredicate(p.Op, field, out)
}

// projectMonotone projects through a transform that never decreases over a
// discrete domain (truncate of ints, longs and decimals; the temporal
// transforms): a closed bound projects to the transformed bound, and an
// open one is closed first by stepping to the adjacent value. fixTime adds
// the adjustment Iceberg's reference implementation makes for data its
// versions up to 0.10 wrote, whose temporal transforms gave pre-epoch values
// one too large.
func projectMonotone(p *BoundPredicate, t iceberg.Transform, field iceberg.NestedField, strict, fixTime bool) Expr {
	src := p.Field.Type
	if p.Op.IsUnary() {
		return projectNullTest(p, field)
	}
	at := func(step int) ([]any, bool) {
		v, ok := adjacentValue(p.Values[0], step)
		if !ok {
			return nil, false
		}
		return applyAll(t, src, []any{v})
	}
	var op Op
	var vals []any
	ok := true
	if !strict {
		switch p.Op {
		case OpLt:
			op = OpLtEq
			vals, ok = at(-1)
		case OpLtEq:
			op = OpLtEq
			vals, ok = at(0)
		case OpGt:
			op = OpGtEq
			vals, ok = at(1)
		case OpGtEq:
			op = OpGtEq
			vals, ok = at(0)
		case OpEq, OpIn:
			op = p.Op
			vals, ok = applyAll(t, src, p.Values)
		default:
			return nil
		}
	} else {
		switch p.Op {
		case OpLt:
			op = OpLt
			vals, ok = at(0)
		case OpLtEq:
			op = OpLt
			vals, ok = at(1)
		case OpGt:
			op = OpGt
			vals, ok = at(0)
		case OpGtEq:
			op = OpGt
			vals, ok = at(-1)
		case OpNotEq, OpNotIn:
			op = p.Op
			vals, ok = applyAll(t, src, p.Values)
		default:
			// Neighbouring values share a partition, so no partition holds
			// only the values equal to a literal.
			return nil
		}
	}
	if !ok {
		return nil
	}
	if fixTime {
		if op, vals, ok = fixPreEpochTime(op, vals, strict); !ok {
			return nil
		}
	}
	return projectedPredicate(op, field, vals)
}

// fixPreEpochTime widens an inclusive (narrows a strict) temporal
// projection so that a pre-epoch value transformed one too large by old
// writers still falls on the right side of it.
func fixPreEpochTime(op Op, vals []any, strict bool) (Op, []any, bool) {
	ints := make([]int32, len(vals))
	for i, v := range vals {
		n, ok := v.(int32)
		if !ok {
			return op, nil, false
		}
		ints[i] = n
	}
	withNext := func() []any {
		out := make([]any, 0, 2*len(ints))
		for _, n := range ints {
			out = append(out, n)
			if n < 0 {
				out = append(out, n+1)
			}
		}
		return out
	}
	n := ints[0]
	if !strict {
		switch op {
		case OpLt, OpLtEq:
			if n < 0 {
				return op, []any{n + 1}, true
			}
		case OpEq:
			if n < 0 {
				return OpIn, withNext(), true
			}
		case OpIn:
			return OpIn, withNext(), true
		}
		return op, vals, true
	}
	switch op {
	case OpGt, OpGtEq:
		if n <= 0 {
			return op, []any{n + 1}, true
		}
	case OpNotEq:
		if n < 0 {
			return OpNotIn, withNext(), true
		}
	case OpNotIn:
		return OpNotIn, withNext(), true
	}
	return op, vals, true
}

func projectTruncateString(p *BoundPredicate, t iceberg.TruncateTransform, field iceberg.NestedField, strict bool) Expr {
	if p.Op.IsUnary() {
		return projectNullTest(p, field)
	}
	trunc := func(v any) ([]any, bool) { return applyAll(t, p.Field.Type, []any{v}) }
	if p.Op == OpStartsWith || p.Op == OpNotStartsWith {
		prefix, ok := p.Values[0].(string)
		if !ok || !utf8.ValidString(prefix) {
			return nil
		}
		// A prefix shorter than the width is kept whole in the truncated
		// value, so it tests the same; one exactly as long is the whole
		// truncated value.
		n := utf8.RuneCountInString(prefix)
		switch {
		case n < t.Width:
			return projectedPredicate(p.Op, field, p.Values)
		case n == t.Width && p.Op == OpStartsWith:
			return projectedPredicate(OpEq, field, p.Values)
		case n == t.Width:
			return projectedPredicate(OpNotEq, field, p.Values)
		}
		// A longer prefix: matching rows truncate to the prefix's own
		// truncation, and a row whose truncation differs from it cannot
		// start with the prefix.
		if p.Op == OpStartsWith && !strict || p.Op == OpNotStartsWith && strict {
			vals, ok := trunc(prefix)
			if !ok {
				return nil
			}
			op := OpEq
			if strict {
				op = OpNotEq
			}
			return projectedPredicate(op, field, vals)
		}
		return nil
	}
	// Code points are counted the same way in the literal and in the data
	// only when both are valid UTF-8.
	for _, v := range p.Values {
		if s, ok := v.(string); !ok || !utf8.ValidString(s) {
			return nil
		}
	}
	return projectTruncatePrefix(p, t, field, strict)
}

func projectTruncateBinary(p *BoundPredicate, t iceberg.TruncateTransform, field iceberg.NestedField, strict bool) Expr {
	if p.Op.IsUnary() {
		return projectNullTest(p, field)
	}
	return projectTruncatePrefix(p, t, field, strict)
}

// projectTruncatePrefix handles comparisons through a truncation to a
// prefix (strings, binary), where truncation keeps order but open and
// closed bounds cannot be told apart after it.
func projectTruncatePrefix(p *BoundPredicate, t iceberg.TruncateTransform, field iceberg.NestedField, strict bool) Expr {
	var op Op
	if !strict {
		switch p.Op {
		case OpLt, OpLtEq:
			op = OpLtEq
		case OpGt, OpGtEq:
			op = OpGtEq
		case OpEq, OpIn:
			op = p.Op
		default:
			return nil
		}
	} else {
		switch p.Op {
		case OpLt, OpLtEq:
			op = OpLt
		case OpGt, OpGtEq:
			op = OpGt
		case OpNotEq, OpNotIn:
			op = p.Op
		default:
			return nil
		}
	}
	vals, ok := applyAll(t, p.Field.Type, p.Values)
	if !ok {
		return nil
	}
	return projectedPredicate(op, field, vals)
}

// applyAll transforms every literal; false when one cannot be transformed
// (a value the result type cannot hold).
func applyAll(t iceberg.Transform, src iceberg.Type, values []any) ([]any, bool) {
	out := make([]any, len(values))
	for i, v := range values {
		r, err := t.Apply(src, v)
		if err != nil || r == nil {
			return nil, false
		}
		out[i] = r
	}
	return out, true
}

// adjacentValue steps a discrete value (int, long, date, time, timestamp,
// decimal at its scale) by -1, 0 or +1 units; false on overflow.
func adjacentValue(v any, step int) (any, bool) {
	if step == 0 {
		return v, true
	}
	switch x := v.(type) {
	case int32:
		n := int64(x) + int64(step)
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, false
		}
		return int32(n), true
	case int64:
		if step > 0 && x == math.MaxInt64 || step < 0 && x == math.MinInt64 {
			return nil, false
		}
		return x + int64(step), true
	case iceberg.Decimal:
		u := x.Unscaled()
		u.Add(u, big.NewInt(int64(step)))
		d, err := iceberg.DecimalFromBigInt(u, x.Scale)
		return d, err == nil
	}
	return nil, false
}

// projectedPredicate builds a predicate on a partition field, with values
// converted to the field's type (partition types follow the current schema,
// so a literal bound to an older one may need widening) and sets kept
// sorted and distinct as Bind keeps them. It returns nil when a value does
// not fit the field.
func projectedPredicate(op Op, field iceberg.NestedField, values []any) Expr {
	out := make([]any, 0, len(values))
	for _, v := range values {
		fit, ok := fitValue(field.Type, v)
		if !ok {
			return nil
		}
		out = append(out, fit)
	}
	if op.IsSet() {
		typ := field.Type
		slices.SortFunc(out, func(a, b any) int { return iceberg.Compare(typ, a, b) })
		out = slices.CompactFunc(out, func(a, b any) bool { return iceberg.Compare(typ, a, b) == 0 })
		switch {
		case len(out) == 1 && op == OpIn:
			op = OpEq
		case len(out) == 1:
			op = OpNotEq
		}
	}
	if op.IsUnary() {
		out = nil
	}
	return &BoundPredicate{Op: op, FieldID: field.ID, Name: field.Name, Field: field, Values: out}
}

// fitValue converts a canonical value to type t when t is t's type or a
// promotion of it (int to long, float to double, a decimal to another
// scale it fits).
func fitValue(t iceberg.Type, v any) (any, bool) {
	if iceberg.CheckValue(t, v) == nil {
		return v, true
	}
	switch t := t.(type) {
	case iceberg.LongType:
		if n, ok := v.(int32); ok {
			return int64(n), true
		}
	case iceberg.DoubleType:
		if f, ok := v.(float32); ok {
			return float64(f), true
		}
	case iceberg.DecimalType:
		if d, ok := v.(iceberg.Decimal); ok {
			r, err := d.Rescale(t.Scale)
			return r, err == nil
		}
	}
	return nil, false
}
