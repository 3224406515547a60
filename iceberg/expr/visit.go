package expr

import "fmt"

// Visitor turns a bound expression into a T node by node, children
// before their parent: what every evaluator compiled from a filter (tuple
// evaluation, metrics and statistics pruning) does to walk the tree, so
// that the and/or/not/true/false/predicate walk and its errors are written
// once.
type Visitor[T any] interface {
	True() T
	False() T
	And(left, right T) T
	Or(left, right T) T
	// Not may refuse, for compilers that need negations pushed down
	// (RewriteNot) and so never expect one.
	Not(child T) (T, error)
	// Predicate compiles one leaf; an error stops the walk.
	Predicate(p *BoundPredicate) (T, error)
}

// Visit walks e, a bound expression, with v. An unbound predicate, a nil
// expression or a node of another kind is an error.
func Visit[T any](e Expr, v Visitor[T]) (T, error) {
	var zero T
	switch e := e.(type) {
	case AlwaysTrue:
		return v.True(), nil
	case AlwaysFalse:
		return v.False(), nil
	case *And:
		l, r, err := visitPair(e.Left, e.Right, v)
		if err != nil {
			return zero, err
		}
		return v.And(l, r), nil
	case *Or:
		l, r, err := visitPair(e.Left, e.Right, v)
		if err != nil {
			return zero, err
		}
		return v.Or(l, r), nil
	case *Not:
		c, err := Visit(e.Child, v)
		if err != nil {
			return zero, err
		}
		return v.Not(c)
	case *BoundPredicate:
		return v.Predicate(e)
	case *Predicate:
		return zero, fmt.Errorf("expression %s is not bound", e)
	case nil:
		return zero, fmt.Errorf("nil expression")
	}
	return zero, fmt.Errorf("unexpected expression %T", e)
}

func visitPair[T any](left, right Expr, v Visitor[T]) (l, r T, err error) {
	if l, err = Visit(left, v); err != nil {
		return l, r, err
	}
	r, err = Visit(right, v)
	return l, r, err
}
