package prune

import (
	"fmt"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
)

// Filter is a bound filter compiled against one file: negations pushed
// into the predicates, each predicate's literals in its column's domain
// (bounds.Leaf) and each column's conversion from the file's physical
// values planned, once. Its row groups are then judged one by one
// (Filter.RowGroup), each reading only its own structures. A Filter is
// not changed by use, so row groups may be judged concurrently.
type Filter struct {
	f     *parquet.File
	root  *pruneNode
	preds []*prunePredicate
	cols  []*fileColumn
}

// fileColumn is one leaf of the file that the filter's predicates read,
// with how its stored values convert to the predicates' type.
type fileColumn struct {
	node  *parquet.Node
	dec   valueDecoder
	index int // in Filter.cols
}

// prunePredicate is one leaf of the filter on a column the file can
// judge; predicates the file cannot judge compile to "true".
type prunePredicate struct {
	leaf  *bounds.Leaf
	col   *fileColumn
	index int // in Filter.preds
}

type pruneKind uint8

const (
	pruneTrue pruneKind = iota
	pruneFalse
	pruneAnd
	pruneOr
	pruneLeaf
)

// pruneNode is the compiled filter, with constants folded away except at
// the root.
type pruneNode struct {
	kind        pruneKind
	left, right *pruneNode
	pred        *prunePredicate
}

// Compile prepares filter, a bound expression (see expr.Bind; Not is
// allowed), for the row groups of f. columns maps each Iceberg field id
// the filter names to the file's leaf for it (resolved by field id or
// name mapping); a field missing from the map is unknown, never a reason
// to skip. Statistics are converted from the file's type to the
// predicate's, following type promotion (int to long, float to double,
// wider decimals, date to timestamp). A nil filter keeps every row.
func Compile(f *parquet.File, filter expr.Expr, columns map[int]*parquet.Node) (*Filter, error) {
	c := &compiler{Filter: &Filter{f: f}, columns: columns, byNode: map[*parquet.Node]*fileColumn{}}
	if filter == nil {
		c.root = c.True()
		return c.Filter, nil
	}
	root, err := expr.Visit[*pruneNode](expr.RewriteNot(filter), c)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	c.root = root
	return c.Filter, nil
}

type compiler struct {
	*Filter
	columns map[int]*parquet.Node
	byNode  map[*parquet.Node]*fileColumn
}

func (*compiler) True() *pruneNode  { return &pruneNode{kind: pruneTrue} }
func (*compiler) False() *pruneNode { return &pruneNode{kind: pruneFalse} }

func (c *compiler) And(l, r *pruneNode) *pruneNode { return c.join(pruneAnd, l, r) }
func (c *compiler) Or(l, r *pruneNode) *pruneNode  { return c.join(pruneOr, l, r) }

// join folds constants: false absorbs an and, true an or, and the other
// constant drops out.
func (c *compiler) join(kind pruneKind, l, r *pruneNode) *pruneNode {
	absorbing := pruneFalse
	if kind == pruneOr {
		absorbing = pruneTrue
	}
	switch {
	case l.kind == absorbing || r.kind == absorbing:
		return &pruneNode{kind: absorbing}
	case l.kind == pruneTrue || l.kind == pruneFalse:
		return r
	case r.kind == pruneTrue || r.kind == pruneFalse:
		return l
	}
	return &pruneNode{kind: kind, left: l, right: r}
}

func (*compiler) Not(*pruneNode) (*pruneNode, error) {
	return nil, fmt.Errorf("negation left after RewriteNot")
}

func (c *compiler) Predicate(bp *expr.BoundPredicate) (*pruneNode, error) {
	col := c.column(bp)
	if col == nil {
		return c.True(), nil
	}
	p := &prunePredicate{leaf: bounds.NewLeaf(bp), col: col, index: len(c.preds)}
	c.preds = append(c.preds, p)
	return &pruneNode{kind: pruneLeaf, pred: p}, nil
}

// column is the file's leaf for bp's field read as bp's type, or nil when
// the file cannot judge it: no such leaf, one nested in a list or map, or
// values that do not convert. A leaf named by predicates of different
// types (which binding does not produce) keeps the first type and refuses
// the others.
func (c *compiler) column(bp *expr.BoundPredicate) *fileColumn {
	n := c.columns[bp.FieldID]
	if n == nil || !n.IsLeaf() || n.Leaf < 0 || n.Leaf >= len(c.f.Leaves) || c.f.Leaves[n.Leaf] != n || n.RepLevel > 0 {
		return nil
	}
	dec, ok := newValueDecoder(n, bp.Field.Type)
	if !ok {
		return nil
	}
	if col, seen := c.byNode[n]; seen {
		if col.dec != dec {
			return nil
		}
		return col
	}
	col := &fileColumn{node: n, dec: dec, index: len(c.cols)}
	c.cols = append(c.cols, col)
	c.byNode[n] = col
	return col
}
