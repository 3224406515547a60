package bounds

import (
	"fmt"

	"github.com/floedb/floe/iceberg/expr"
)

// Source gives the summaries of one set of rows (a data file, a manifest,
// a row group) field by field: only how raw bounds decode differs between
// sources.
type Source interface {
	// Rows is the number of rows, negative when unknown: no row of an
	// empty set matches, and every one does.
	Rows() int64
	// Summary says what is known of the values of l's field (by
	// l.FieldID, decoded as l.Type); the zero Summary knows nothing.
	Summary(l *Leaf) Summary
}

// Evaluator is a bound filter compiled for summaries. It is safe for
// concurrent use, and evaluating it allocates nothing beyond what the
// Source does.
type Evaluator struct {
	root   *node
	leaves []*Leaf
}

type nodeKind uint8

const (
	nodeFalse nodeKind = iota
	nodeTrue
	nodeAnd
	nodeOr
	nodeNot
	nodeLeaf
)

type node struct {
	kind        nodeKind
	left, right *node
	leaf        *Leaf
}

// New compiles a bound filter, negations pushed down first (so that "not
// (x < 5)" is judged as x >= 5, which a null fails).
func New(filter expr.Expr) (*Evaluator, error) {
	c := &compiler{}
	root, err := expr.Visit[*node](expr.RewriteNot(filter), c)
	if err != nil {
		return nil, fmt.Errorf("bounds: %w", err)
	}
	return &Evaluator{root: root, leaves: c.leaves}, nil
}

// Leaves are the predicates, by Leaf.Index.
func (e *Evaluator) Leaves() []*Leaf { return e.leaves }

type compiler struct{ leaves []*Leaf }

func (*compiler) True() *node                    { return &node{kind: nodeTrue} }
func (*compiler) False() *node                   { return &node{kind: nodeFalse} }
func (*compiler) And(l, r *node) *node           { return &node{kind: nodeAnd, left: l, right: r} }
func (*compiler) Or(l, r *node) *node            { return &node{kind: nodeOr, left: l, right: r} }
func (*compiler) Not(child *node) (*node, error) { return &node{kind: nodeNot, left: child}, nil }
func (c *compiler) Predicate(p *expr.BoundPredicate) (*node, error) {
	l := NewLeaf(p)
	l.Index = len(c.leaves)
	c.leaves = append(c.leaves, l)
	return &node{kind: nodeLeaf, leaf: l}, nil
}

// MightMatch reports whether a row of src may pass the filter; false
// means none does.
func (e *Evaluator) MightMatch(src Source) bool {
	if src.Rows() == 0 {
		return false
	}
	return e.root.might(src)
}

// AllMatch reports whether every row of src passes the filter.
func (e *Evaluator) AllMatch(src Source) bool {
	if src.Rows() == 0 {
		return true
	}
	return e.root.all(src)
}

func (n *node) might(src Source) bool {
	switch n.kind {
	case nodeTrue:
		return true
	case nodeAnd:
		return n.left.might(src) && n.right.might(src)
	case nodeOr:
		return n.left.might(src) || n.right.might(src)
	case nodeNot:
		// If every row passes the child, none passes its negation.
		return !n.left.all(src)
	case nodeLeaf:
		s := src.Summary(n.leaf)
		return n.leaf.MightMatch(&s)
	}
	return false
}

func (n *node) all(src Source) bool {
	switch n.kind {
	case nodeTrue:
		return true
	case nodeAnd:
		return n.left.all(src) && n.right.all(src)
	case nodeOr:
		return n.left.all(src) || n.right.all(src)
	case nodeNot:
		// A row no child can match may still fail the negation (a null
		// fails both): never sure. New pushes negations down, so this is
		// only reached by trees built otherwise.
		return false
	case nodeLeaf:
		s := src.Summary(n.leaf)
		return n.leaf.AllMatch(&s)
	}
	return false
}
