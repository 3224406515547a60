package expr

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// ResidualEvaluator finds, for the files of one partition spec, the part of
// a row filter that a file's partition tuple does not already decide: a
// predicate becomes true where the partition guarantees it (its strict
// projection holds), false where the partition rules it out (its inclusive
// projection fails), and stays otherwise. Readers then only evaluate the
// residual.
//
// An evaluator is safe for concurrent use.
type ResidualEvaluator struct {
	root *residualNode
}

type residualNode struct {
	expr        Expr // the filter's subtree, returned when nothing is decided
	left, right *residualNode
	and         bool
	checks      []residualCheck // for a predicate: one per partition field
}

// residualCheck holds one partition field's projections of a predicate;
// nil where the transform has none.
type residualCheck struct {
	strict, inclusive *TupleEvaluator
}

// NewResidualEvaluator compiles filter, bound to the table schema, for the
// partition spec with partition struct partType.
func NewResidualEvaluator(filter Expr, spec *iceberg.PartitionSpec, partType *iceberg.StructType) (*ResidualEvaluator, error) {
	if spec == nil || partType == nil {
		return nil, fmt.Errorf("residual: no partition spec or partition type")
	}
	root, err := compileResidual(RewriteNot(filter), spec, partType)
	if err != nil {
		return nil, err
	}
	return &ResidualEvaluator{root: root}, nil
}

func compileResidual(e Expr, spec *iceberg.PartitionSpec, partType *iceberg.StructType) (*residualNode, error) {
	n := &residualNode{expr: e}
	switch e := e.(type) {
	case AlwaysTrue, AlwaysFalse:
		return n, nil
	case *And, *Or:
		var l, r Expr
		if a, ok := e.(*And); ok {
			l, r, n.and = a.Left, a.Right, true
		} else {
			o := e.(*Or)
			l, r = o.Left, o.Right
		}
		var err error
		if n.left, err = compileResidual(l, spec, partType); err != nil {
			return nil, err
		}
		if n.right, err = compileResidual(r, spec, partType); err != nil {
			return nil, err
		}
		return n, nil
	case *BoundPredicate:
		for _, pf := range spec.Fields {
			if pf.SourceID != e.FieldID {
				continue
			}
			field, ok := partType.Field(pf.FieldID)
			if !ok {
				return nil, fmt.Errorf("residual: partition field %d (%s) is not in the partition type %s", pf.FieldID, pf.Name, partType)
			}
			var c residualCheck
			var err error
			if p := ProjectPredicate(e, pf, field, true); p != nil {
				if c.strict, err = NewTupleEvaluator(p, partType); err != nil {
					return nil, err
				}
			}
			if p := ProjectPredicate(e, pf, field, false); p != nil {
				if c.inclusive, err = NewTupleEvaluator(p, partType); err != nil {
					return nil, err
				}
			}
			if c.strict != nil || c.inclusive != nil {
				n.checks = append(n.checks, c)
			}
		}
		return n, nil
	case *Predicate:
		return nil, fmt.Errorf("residual %s: the expression is not bound", e)
	case nil:
		return nil, fmt.Errorf("residual: nil expression")
	}
	return nil, fmt.Errorf("residual: unexpected expression %T", e)
}

// Residual gives the filter's residual for the files with this partition
// tuple (in the spec's field order): AlwaysTrue when the partition
// guarantees every row passes, AlwaysFalse when it guarantees none does,
// and otherwise the filter (negations pushed down) with the decided
// predicates folded away. Undecided subtrees are shared with the filter,
// not copied.
func (r *ResidualEvaluator) Residual(partition []any) Expr { return r.root.residual(partition) }

func (n *residualNode) residual(partition []any) Expr {
	if n.left != nil {
		l := n.left.residual(partition)
		rr := n.right.residual(partition)
		if l == n.left.expr && rr == n.right.expr {
			return n.expr
		}
		if n.and {
			return NewAnd(l, rr)
		}
		return NewOr(l, rr)
	}
	for _, c := range n.checks {
		if c.strict != nil && c.strict.Eval(partition) {
			return AlwaysTrue{}
		}
		if c.inclusive != nil && !c.inclusive.Eval(partition) {
			return AlwaysFalse{}
		}
	}
	return n.expr
}
