package scan

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/prune"
)

// filterFields binds a filter to the scan's schema and returns the
// top-level columns it reads (a struct for a field inside it); the task
// carries them so it can bind again wherever it runs.
func filterFields(e expr.Expr, schema *iceberg.Schema, caseInsensitive bool) ([]iceberg.NestedField, error) {
	if _, err := expr.Bind(e, schema, caseInsensitive); err != nil {
		return nil, expr.InvalidFilter(err)
	}
	// Columns come from the filter as written, not as bound: binding may
	// fold a predicate away (is null on a required column), and the task
	// binds the written filter again.
	var out []iceberg.NestedField
	seen := map[int]bool{}
	var walkErr error
	expr.WalkPredicates(e, func(pe expr.Expr) {
		p, ok := pe.(*expr.Predicate)
		if !ok {
			return
		}
		f, err := findColumn(schema, p.Column, caseInsensitive)
		if err != nil {
			walkErr = expr.InvalidFilter(err)
			return
		}
		f = fieldPath(schema, f)[0]
		if !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f)
		}
	})
	return out, walkErr
}

// rowFilter is a task's filter bound to one file and compiled, once per
// file, for each use: into kernel calls on decoded batches (root) and
// into questions to the file's row-group structures (pruner).
type rowFilter struct {
	expr   expr.Expr
	root   *filterNode
	pruner *prune.Filter
	mem    memory.Allocator
}

type filterKind uint8

const (
	filterTrue filterKind = iota
	filterFalse
	filterAnd
	filterOr
	filterPredicate
)

// filterNode is one node of a compiled row filter. A predicate reads the
// column at plan index column, and for a field inside a struct column the
// child at path below it.
type filterNode struct {
	kind        filterKind
	left, right *filterNode
	pred        *expr.BoundPredicate
	op          kernels.CmpOp
	lits        []any
	column      int
	path        []int
}

// plans appends the plan indexes of the columns n reads.
func (n *filterNode) plans(out []int) []int {
	switch n.kind {
	case filterAnd, filterOr:
		return n.right.plans(n.left.plans(out))
	case filterPredicate:
		if !slices.Contains(out, n.column) {
			out = append(out, n.column)
		}
	}
	return out
}

var cmpOps = map[expr.Op]kernels.CmpOp{
	expr.OpEq: kernels.CmpEq, expr.OpNotEq: kernels.CmpNotEq, expr.OpLt: kernels.CmpLt, expr.OpLtEq: kernels.CmpLtEq,
	expr.OpGt: kernels.CmpGt, expr.OpGtEq: kernels.CmpGtEq, expr.OpIn: kernels.CmpIn, expr.OpNotIn: kernels.CmpNotIn,
	expr.OpIsNull: kernels.CmpIsNull, expr.OpNotNull: kernels.CmpNotNull, expr.OpIsNaN: kernels.CmpIsNaN,
	expr.OpNotNaN: kernels.CmpNotNaN, expr.OpStartsWith: kernels.CmpStartsWith, expr.OpNotStartsWith: kernels.CmpNotStartsWith,
}

// kernelLiteral converts a bound literal to the form the comparison
// kernels take for the column's Arrow type.
func kernelLiteral(v any) any {
	switch v := v.(type) {
	case iceberg.Decimal:
		return decimal128.New(v.Hi, v.Lo)
	case [16]byte:
		return v[:]
	}
	return v
}

// filterCompiler compiles a bound filter for one file: each predicate's
// kernel, literals and column, planning a hidden column where no output
// column holds the field.
type filterCompiler struct {
	columnOf func(field iceberg.NestedField) (int, []int, error)
	// seen caches columns by field id.
	seen map[int]*filterNode
}

func (*filterCompiler) True() *filterNode  { return &filterNode{kind: filterTrue} }
func (*filterCompiler) False() *filterNode { return &filterNode{kind: filterFalse} }
func (*filterCompiler) And(l, r *filterNode) *filterNode {
	return &filterNode{kind: filterAnd, left: l, right: r}
}
func (*filterCompiler) Or(l, r *filterNode) *filterNode {
	return &filterNode{kind: filterOr, left: l, right: r}
}
func (*filterCompiler) Not(*filterNode) (*filterNode, error) {
	return nil, fmt.Errorf("filter: negation left after RewriteNot")
}

func (c *filterCompiler) Predicate(p *expr.BoundPredicate) (*filterNode, error) {
	op, ok := cmpOps[p.Op]
	if !ok {
		return nil, errkind.Errorf(errkind.Unsupported, "filter operator %s is not supported", p.Op)
	}
	n := &filterNode{kind: filterPredicate, pred: p, op: op, lits: make([]any, len(p.Values))}
	for i, v := range p.Values {
		n.lits[i] = kernelLiteral(v)
	}
	if same, ok := c.seen[p.FieldID]; ok {
		n.column, n.path = same.column, same.path
		return n, nil
	}
	var err error
	if n.column, n.path, err = c.columnOf(p.Field); err != nil {
		return nil, err
	}
	c.seen[p.FieldID] = n
	return n, nil
}

// eval returns the bitmap of the n rows of cols that satisfy node.
func (f *rowFilter) eval(node *filterNode, cols []arrow.Array, n int) ([]byte, error) {
	words := (n + 7) / 8
	switch node.kind {
	case filterAnd, filterOr:
		lb, err := f.eval(node.left, cols, n)
		if err != nil {
			return nil, err
		}
		rb, err := f.eval(node.right, cols, n)
		if err != nil {
			return nil, err
		}
		and := node.kind == filterAnd
		for i := range lb {
			if and {
				lb[i] &= rb[i]
			} else {
				lb[i] |= rb[i]
			}
		}
		return lb, nil
	case filterTrue:
		out := make([]byte, words)
		for i := range out {
			out[i] = 0xff
		}
		return out, nil
	case filterFalse:
		return make([]byte, words), nil
	}
	out := make([]byte, words)
	col := cols[node.column]
	if node.path != nil {
		leaf, err := structLeaf(col, node.path, f.mem)
		if err != nil {
			return nil, err
		}
		defer leaf.Release()
		col = leaf
	}
	if err := kernels.CompareToBitmap(col, node.op, node.lits, out); err != nil {
		return nil, fmt.Errorf("filter %s: %w", node.pred, err)
	}
	return out, nil
}
