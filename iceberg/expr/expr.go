package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/floedb/floe/errkind"
)

// Expr is a boolean expression over a row. Unbound trees have *Predicate
// leaves; bound trees (see Bind) have *BoundPredicate leaves.
type Expr interface {
	// String gives the text form, which ParseText reads back to an equal
	// tree for unbound expressions.
	String() string
	isExpr()
}

// And holds when both sides hold.
type And struct{ Left, Right Expr }

// Or holds when either side holds.
type Or struct{ Left, Right Expr }

// Not holds when its child does not.
type Not struct{ Child Expr }

// AlwaysTrue holds for every row.
type AlwaysTrue struct{}

// AlwaysFalse holds for no row.
type AlwaysFalse struct{}

// Predicate is an unbound test of a column, named by its dotted path.
// Values holds one literal for comparisons and starts-with, one or more for
// in / not in, none for the null and NaN tests. Literals are string, int64,
// Number (a number's exact decimal text), float64 or bool; their column's
// type is applied when binding.
type Predicate struct {
	Op     Op
	Column string
	Values []any
}

func (*And) isExpr()               {}
func (*Or) isExpr()                {}
func (*Not) isExpr()               {}
func (AlwaysTrue) isExpr()         {}
func (AlwaysFalse) isExpr()        {}
func (*Predicate) isExpr()         {}
func (AlwaysTrue) String() string  { return "true" }
func (AlwaysFalse) String() string { return "false" }

func (e *And) String() string { return "(" + e.Left.String() + " and " + e.Right.String() + ")" }
func (e *Or) String() string  { return "(" + e.Left.String() + " or " + e.Right.String() + ")" }
func (e *Not) String() string { return "not " + parenthesize(e.Child.String()) }

func parenthesize(s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		return s
	}
	return "(" + s + ")"
}

// NewAnd builds left AND right, folding constants.
func NewAnd(left, right Expr) Expr {
	switch {
	case isFalse(left) || isFalse(right):
		return AlwaysFalse{}
	case isTrue(left):
		return right
	case isTrue(right):
		return left
	}
	return &And{Left: left, Right: right}
}

// NewOr builds left OR right, folding constants.
func NewOr(left, right Expr) Expr {
	switch {
	case isTrue(left) || isTrue(right):
		return AlwaysTrue{}
	case isFalse(left):
		return right
	case isFalse(right):
		return left
	}
	return &Or{Left: left, Right: right}
}

// NewNot builds NOT child, folding constants and double negation.
func NewNot(child Expr) Expr {
	switch c := child.(type) {
	case AlwaysTrue:
		return AlwaysFalse{}
	case AlwaysFalse:
		return AlwaysTrue{}
	case *Not:
		return c.Child
	}
	return &Not{Child: child}
}

func isTrue(e Expr) bool  { _, ok := e.(AlwaysTrue); return ok }
func isFalse(e Expr) bool { _, ok := e.(AlwaysFalse); return ok }

// NewPredicate builds a predicate, checking the literal count the operator
// needs and that every literal is a string, int64, Number, float64 or bool
// (a starts-with literal must be a string).
func NewPredicate(op Op, column string, values ...any) (*Predicate, error) {
	if op >= opCount {
		return nil, fmt.Errorf("invalid operator %d", op)
	}
	if column == "" {
		return nil, fmt.Errorf("predicate %s needs a column name", op)
	}
	if strings.HasPrefix(column, ".") || strings.HasSuffix(column, ".") || strings.Contains(column, "..") {
		return nil, fmt.Errorf("column name %q has an empty part", column)
	}
	switch {
	case op.IsUnary() && len(values) != 0:
		return nil, fmt.Errorf("%s takes no value, got %d", op, len(values))
	case op.IsSet() && len(values) == 0:
		return nil, fmt.Errorf("%s needs at least one value", op)
	case !op.IsUnary() && !op.IsSet() && len(values) != 1:
		return nil, fmt.Errorf("%s takes one value, got %d", op, len(values))
	}
	for _, v := range values {
		switch x := v.(type) {
		case string, int64, bool:
		case Number:
			if x.text == "" {
				return nil, fmt.Errorf("%s %s: empty number literal (use ParseNumber)", column, op)
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s: literal %v is not a finite number (use is nan)", column, x)
			}
		case nil:
			return nil, fmt.Errorf("%s %s: a null literal never matches; use is null", column, op)
		default:
			return nil, errkind.Errorf(errkind.Unsupported, "%s %s: unsupported literal %v (%T)", column, op, v, v)
		}
		if _, ok := v.(string); !ok && (op == OpStartsWith || op == OpNotStartsWith) {
			return nil, fmt.Errorf("%s %s: the pattern must be a string, got %v", column, op, v)
		}
	}
	return &Predicate{Op: op, Column: column, Values: values}, nil
}

func (p *Predicate) String() string {
	return predicateString(p.Column, p.Op, p.Values, writeLiteral)
}

// predicateString writes a predicate in the text syntax; literal writes
// one value (unbound literals and bound, typed ones differ only there).
func predicateString(column string, op Op, values []any, literal func(*strings.Builder, any)) string {
	var b strings.Builder
	writeColumn(&b, column)
	b.WriteByte(' ')
	b.WriteString(op.String())
	switch {
	case op.IsUnary():
	case op.IsSet():
		b.WriteString(" (")
		for i, v := range values {
			if i > 0 {
				b.WriteString(", ")
			}
			literal(&b, v)
		}
		b.WriteByte(')')
	case op == OpStartsWith || op == OpNotStartsWith:
		b.WriteByte(' ')
		s, _ := values[0].(string)
		writeQuoted(&b, escapeLike(s)+"%")
	default:
		b.WriteByte(' ')
		literal(&b, values[0])
	}
	return b.String()
}

// WalkPredicates calls fn for every predicate of e, bound or unbound, in
// order.
func WalkPredicates(e Expr, fn func(Expr)) {
	switch e := e.(type) {
	case *And:
		WalkPredicates(e.Left, fn)
		WalkPredicates(e.Right, fn)
	case *Or:
		WalkPredicates(e.Left, fn)
		WalkPredicates(e.Right, fn)
	case *Not:
		WalkPredicates(e.Child, fn)
	case *Predicate, *BoundPredicate:
		fn(e)
	}
}

// escapeLike protects the LIKE metacharacters of a literal prefix.
func escapeLike(s string) string {
	if !strings.ContainsAny(s, `%\`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`).Replace(s)
}

func writeColumn(b *strings.Builder, column string) {
	for i, part := range strings.Split(column, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		if isPlainIdentifier(part) {
			b.WriteString(part)
			continue
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(part, `"`, `""`))
		b.WriteByte('"')
	}
}

func isPlainIdentifier(s string) bool {
	if s == "" || isKeyword(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '$')) {
			return false
		}
	}
	return true
}

func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s, "'", "''"))
	b.WriteByte('\'')
}

// floatLiteral writes a float so that it reads back as one, in text and
// JSON alike: "10" would become an integer.
func floatLiteral(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

func writeLiteral(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		writeQuoted(b, x)
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case Number:
		b.WriteString(x.text)
	case float64:
		b.WriteString(floatLiteral(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case typedLiteral:
		writeBoundLiteral(b, x.typ, x.value)
	default:
		fmt.Fprintf(b, "%v", v)
	}
}
