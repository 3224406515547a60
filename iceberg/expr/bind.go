package expr

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// Bound is an expression tree returned by Bind: its leaves are
// *BoundPredicate, AlwaysTrue or AlwaysFalse.
type Bound = Expr

// BoundPredicate is a predicate resolved against a schema. Values hold the
// literals in the field type's canonical Go form (see iceberg/values.go):
// one for comparisons and starts-with, a sorted set of two or more distinct
// values for in / not in, none for the null and NaN tests.
type BoundPredicate struct {
	Op      Op
	FieldID int
	Name    string // the column as the filter named it
	Field   iceberg.NestedField
	Values  []any
}

func (*BoundPredicate) isExpr() {}

func (p *BoundPredicate) String() string {
	return predicateString(p.Name, p.Op, p.Values, func(b *strings.Builder, v any) {
		writeBoundLiteral(b, p.Field.Type, v)
	})
}

// writeBoundLiteral writes a canonical value as the text syntax would
// (dates, timestamps, uuids and decimals as quoted strings).
func writeBoundLiteral(b *strings.Builder, t iceberg.Type, v any) {
	raw, err := iceberg.ValueToJSON(t, v)
	if err != nil {
		fmt.Fprintf(b, "%v", v)
		return
	}
	if len(raw) > 0 && raw[0] == '"' {
		writeQuoted(b, strings.Trim(string(raw), `"`))
		return
	}
	b.Write(raw)
}

// Bind resolves every column of e against schema and converts literals to
// the columns' types, folding predicates whose outcome the types decide:
// "is null" on a required column is false, and a literal outside the
// column type's range (a long beyond int, a number beyond a decimal's
// largest value) makes a comparison always true or always false the way
// Iceberg's Java binder does (int_col < 1e12 is true, int_col = 1e12
// false) and drops out of in sets.
//
// Conversions: strings convert to any primitive type (dates, times,
// timestamps with or without zone, taken as UTC when absent, uuids,
// decimals, numbers, booleans, and hex for binary and fixed); numbers to
// any numeric type, and integers also to date (days), time (µs of the day)
// and timestamps (µs or ns as the type counts); a fraction to int or long
// is an error. Numbers (unquoted or quoted) convert exactly, except to
// float and double, which take the nearest value. Nothing is rounded
// otherwise: a decimal literal with more fraction digits than its column's
// scale lies between two of the column's values, so = is false, != is "not
// null", and an order is one against the neighbour (dec_2 < 1.005 is
// dec_2 <= 1.00, dec_2 > 1.005 is dec_2 >= 1.01); so does a finite number
// beyond a float's or double's range, between its largest finite value
// and infinity.
func Bind(e Expr, schema *iceberg.Schema, caseInsensitive bool) (Bound, error) {
	return BindNullable(e, schema, caseInsensitive, nil)
}

// BindNullable is Bind for a schema some of whose required fields may
// read null: nullable reports them (nil: none). "is null" and "is not
// null" on such a field stay predicates, to be decided by the value the
// field reads as (see FoldConstants).
func BindNullable(e Expr, schema *iceberg.Schema, caseInsensitive bool, nullable func(fieldID int) bool) (Bound, error) {
	if schema == nil {
		return nil, fmt.Errorf("bind: no schema")
	}
	b := binder{schema: schema, caseInsensitive: caseInsensitive, nullable: nullable}
	// Negations go down to the predicates before binding: binding folds a
	// predicate whose literal lies outside the column's range, and the
	// fold is right only for the predicate as it will be evaluated (not
	// (x < 2^40) on an int is x >= 2^40: false for every row, nulls too).
	return b.bind(RewriteNot(e))
}

type binder struct {
	schema          *iceberg.Schema
	caseInsensitive bool
	nullable        func(fieldID int) bool
}

// neverNull reports whether a field can never read null: it and every
// struct around it are required (a required field of a null struct is
// null, as Java's BoundReference.producesNull has it), and the caller
// knows of no reason it might read null anyway.
func (b binder) neverNull(field iceberg.NestedField) bool {
	if !field.Required || (b.nullable != nil && b.nullable(field.ID)) {
		return false
	}
	for parent := b.schema.ParentID(field.ID); parent != 0; parent = b.schema.ParentID(parent) {
		pf, _ := b.schema.FindField(parent)
		if !pf.Required || (b.nullable != nil && b.nullable(parent)) {
			return false
		}
	}
	return true
}

func (b binder) bind(e Expr) (Expr, error) {
	switch e := e.(type) {
	case AlwaysTrue, AlwaysFalse:
		return e, nil
	case *And:
		l, r, err := b.bindPair(e.Left, e.Right)
		if err != nil {
			return nil, err
		}
		return NewAnd(l, r), nil
	case *Or:
		l, r, err := b.bindPair(e.Left, e.Right)
		if err != nil {
			return nil, err
		}
		return NewOr(l, r), nil
	case *Not:
		c, err := b.bind(e.Child)
		if err != nil {
			return nil, err
		}
		return NewNot(c), nil
	case *Predicate:
		return b.bindPredicate(e)
	case nil:
		return nil, fmt.Errorf("bind: nil expression")
	}
	return nil, fmt.Errorf("bind: cannot bind %T", e)
}

func (b binder) bindPair(left, right Expr) (Expr, Expr, error) {
	l, err := b.bind(left)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.bind(right)
	if err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

func (b binder) findField(name string) (iceberg.NestedField, error) {
	if !b.caseInsensitive {
		if f, ok := b.schema.FindFieldByName(name); ok {
			return f, nil
		}
	} else {
		f, err := b.schema.FindFieldByNameCaseInsensitive(name)
		if err == nil {
			return f, nil
		}
		var ambiguous *iceberg.AmbiguousNameError
		if errors.As(err, &ambiguous) {
			return f, err
		}
	}
	msg := fmt.Sprintf("no column named %q", name)
	if close := b.schema.CloseNames(name); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return iceberg.NestedField{}, errkind.Errorf(errkind.InvalidArgument, "%s", msg)
}

func (b binder) bindPredicate(p *Predicate) (Expr, error) {
	if p.Op >= opCount {
		return nil, fmt.Errorf("bind: invalid operator %d", p.Op)
	}
	field, err := b.findField(p.Column)
	if err != nil {
		return nil, err
	}
	if _, ok := field.Type.(iceberg.PrimitiveType); !ok {
		return nil, fmt.Errorf("column %q is a %s; predicates need a primitive column", p.Column, field.Type)
	}
	if iceberg.IsVariant(field.Type) {
		// A variant's values have no order or equality of one Iceberg type
		// (and no bounds to prune by); filter on the rows after reading.
		return nil, errkind.Errorf(errkind.Unsupported, "column %q is a variant; filters on variant columns are not supported", p.Column)
	}
	for parent := b.schema.ParentID(field.ID); parent != 0; parent = b.schema.ParentID(parent) {
		pf, _ := b.schema.FindField(parent)
		if _, isStruct := pf.Type.(*iceberg.StructType); !isStruct {
			return nil, errkind.Errorf(errkind.Unsupported, "column %q is inside the %s %q; predicates on list and map contents are not supported", p.Column, pf.Type, pf.Name)
		}
	}
	if err := checkGeoPredicate(p, field); err != nil {
		return nil, err
	}
	bound := &BoundPredicate{Op: p.Op, FieldID: field.ID, Name: p.Column, Field: field}
	switch p.Op {
	case OpIsNull, OpNotNull:
		if len(p.Values) != 0 {
			return nil, fmt.Errorf("%s %s takes no value", p.Column, p.Op)
		}
		if b.neverNull(field) {
			return constant(p.Op == OpNotNull), nil
		}
		return bound, nil
	case OpIsNaN, OpNotNaN:
		if len(p.Values) != 0 {
			return nil, fmt.Errorf("%s %s takes no value", p.Column, p.Op)
		}
		switch field.Type.(type) {
		case iceberg.FloatType, iceberg.DoubleType:
			return bound, nil
		}
		// Only float and double columns hold NaN: on any other column
		// "is nan" is false and "is not nan" true for every row (nulls
		// included), as Java's and pyiceberg's binders decide.
		return constant(p.Op == OpNotNaN), nil
	case OpStartsWith, OpNotStartsWith:
		if _, ok := field.Type.(iceberg.StringType); !ok {
			return nil, fmt.Errorf("%s %s: column is a %s; starts with needs a string column", p.Column, p.Op, field.Type)
		}
		if len(p.Values) != 1 {
			return nil, fmt.Errorf("%s %s takes one value", p.Column, p.Op)
		}
		s, ok := p.Values[0].(string)
		if !ok {
			return nil, fmt.Errorf("%s %s: the pattern must be a string, got %v", p.Column, p.Op, p.Values[0])
		}
		bound.Values = []any{s}
		return bound, nil
	case OpIn, OpNotIn:
		return b.bindSet(p, bound)
	}
	if len(p.Values) != 1 {
		return nil, fmt.Errorf("%s %s takes one value", p.Column, p.Op)
	}
	lit, err := convertLiteral(field.Type, p.Values[0])
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", p.Column, p.Op, err)
	}
	switch lit.fit {
	case aboveMax:
		return b.holdsForValues(bound, p.Op == OpLt || p.Op == OpLtEq || p.Op == OpNotEq), nil
	case belowMin:
		return b.holdsForValues(bound, p.Op == OpGt || p.Op == OpGtEq || p.Op == OpNotEq), nil
	case between:
		// No value equals the literal; an order against it is an order
		// against its neighbours (x < 1.005 is x <= 1.00 at scale 2).
		switch p.Op {
		case OpEq, OpNotEq:
			return b.holdsForValues(bound, p.Op == OpNotEq), nil
		case OpLt, OpLtEq:
			bound.Op, bound.Values = OpLtEq, []any{lit.below}
		default:
			bound.Op, bound.Values = OpGtEq, []any{lit.above}
		}
		return bound, nil
	}
	bound.Values = []any{lit.value}
	return bound, nil
}

func (b binder) bindSet(p *Predicate, bound *BoundPredicate) (Expr, error) {
	t := p.Values
	if len(t) == 0 {
		return nil, fmt.Errorf("%s %s needs at least one value", p.Column, p.Op)
	}
	values := make([]any, 0, len(t))
	for _, lit := range t {
		l, err := convertLiteral(bound.Field.Type, lit)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", p.Column, p.Op, err)
		}
		// A literal no value equals neither admits nor excludes any.
		if l.fit == inRange {
			values = append(values, l.value)
		}
	}
	typ := bound.Field.Type
	slices.SortFunc(values, func(a, b any) int { return iceberg.Compare(typ, a, b) })
	values = slices.CompactFunc(values, func(a, b any) bool { return iceberg.Compare(typ, a, b) == 0 })
	switch len(values) {
	case 0:
		return b.holdsForValues(bound, p.Op == OpNotIn), nil
	case 1:
		bound.Op = OpEq
		if p.Op == OpNotIn {
			bound.Op = OpNotEq
		}
	}
	bound.Values = values
	return bound, nil
}

// holdsForValues folds a comparison whose outcome the literal alone
// decides for every non-null value: when it holds, it still fails for
// nulls (a comparison with null is not true), so it becomes "not null"
// on an optional column.
func (b binder) holdsForValues(p *BoundPredicate, holds bool) Expr {
	if !holds || b.neverNull(p.Field) {
		return constant(holds)
	}
	return &BoundPredicate{Op: OpNotNull, FieldID: p.FieldID, Name: p.Name, Field: p.Field}
}

func constant(b bool) Expr {
	if b {
		return AlwaysTrue{}
	}
	return AlwaysFalse{}
}
