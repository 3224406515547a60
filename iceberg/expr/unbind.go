package expr

import (
	"bytes"
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// Unbind turns a bound expression back into an unbound one that binds to
// the same predicates: each bound predicate becomes a predicate on the
// column as the filter named it, its literals kept in their typed form
// (no text or JSON in between), so a residual computed against the table
// can be bound again to each file, where a column may hold a constant.
// Written out (MarshalJSON, String) the typed literals take Iceberg's
// single-value form, which binding reads back.
func Unbind(e Expr) Expr {
	switch e := e.(type) {
	case *And:
		return &And{Left: Unbind(e.Left), Right: Unbind(e.Right)}
	case *Or:
		return &Or{Left: Unbind(e.Left), Right: Unbind(e.Right)}
	case *Not:
		return &Not{Child: Unbind(e.Child)}
	case *BoundPredicate:
		p := &Predicate{Op: e.Op, Column: e.Name}
		if len(e.Values) > 0 {
			p.Values = make([]any, len(e.Values))
			for i, v := range e.Values {
				p.Values[i] = typedLiteral{typ: e.Field.Type, value: v}
				if s, ok := v.(string); ok && (e.Op == OpStartsWith || e.Op == OpNotStartsWith) {
					p.Values[i] = s // a pattern is a plain string
				}
			}
		}
		return p
	}
	return e
}

// typedLiteral is a bound literal in an unbound predicate (see Unbind):
// a value in the canonical Go form of typ.
type typedLiteral struct {
	typ   iceberg.Type
	value any
}

// convert gives the literal as a value of t: itself when t is its type,
// else what its single-value JSON form converts to (a promoted column, a
// decimal at another scale).
func (l typedLiteral) convert(t iceberg.Type) (literal, error) {
	if l.typ == t {
		return fits(l.value)
	}
	var buf bytes.Buffer
	if err := writeJSONTypedLiteral(&buf, l.typ, l.value); err != nil {
		return literal{}, err
	}
	v, err := parseJSONLiteral(buf.Bytes())
	if err != nil {
		return literal{}, fmt.Errorf("literal %s: %w", buf.Bytes(), err)
	}
	return convertLiteral(t, v)
}
