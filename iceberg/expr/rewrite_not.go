package expr

// RewriteNot pushes every negation of e down to its predicates (De Morgan's
// laws, and each predicate's operator replaced by its negation), so the
// result has no Not nodes. Evaluating the result gives Iceberg's answer for
// rows with nulls: not (x < 5) becomes x >= 5, which a null x fails, as the
// SQL filter it stands for does. Bound and unbound trees are both
// rewritten.
func RewriteNot(e Expr) Expr { return rewriteNot(e, false) }

func rewriteNot(e Expr, negate bool) Expr {
	switch e := e.(type) {
	case *And:
		l, r := rewriteNot(e.Left, negate), rewriteNot(e.Right, negate)
		if negate {
			return NewOr(l, r)
		}
		if l == e.Left && r == e.Right {
			return e // nothing to push down: keep the tree
		}
		return NewAnd(l, r)
	case *Or:
		l, r := rewriteNot(e.Left, negate), rewriteNot(e.Right, negate)
		if negate {
			return NewAnd(l, r)
		}
		if l == e.Left && r == e.Right {
			return e
		}
		return NewOr(l, r)
	case *Not:
		return rewriteNot(e.Child, !negate)
	case AlwaysTrue:
		if negate {
			return AlwaysFalse{}
		}
	case AlwaysFalse:
		if negate {
			return AlwaysTrue{}
		}
	case *BoundPredicate:
		if negate {
			c := *e
			c.Op = e.Op.Negate()
			return &c
		}
	case *Predicate:
		if negate {
			c := *e
			c.Op = e.Op.Negate()
			return &c
		}
	}
	return e
}
