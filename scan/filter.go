package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/kernels"
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

// rowFilter is a task's filter bound to its columns.
type rowFilter struct {
	expr expr.Expr
	// column maps a predicate's field id to its plan index, and path to
	// the child indexes inside that struct column, for a field inside one.
	column map[int]int
	path   map[int][]int
	lits   map[*expr.BoundPredicate][]any
	mem    memory.Allocator
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

// eval returns the bitmap of the n rows of cols that satisfy e.
func (f *rowFilter) eval(e expr.Expr, cols []arrow.Array, n int) ([]byte, error) {
	words := (n + 7) / 8
	switch e := e.(type) {
	case *expr.And, *expr.Or:
		var l, r expr.Expr
		if a, ok := e.(*expr.And); ok {
			l, r = a.Left, a.Right
		} else {
			o := e.(*expr.Or)
			l, r = o.Left, o.Right
		}
		lb, err := f.eval(l, cols, n)
		if err != nil {
			return nil, err
		}
		rb, err := f.eval(r, cols, n)
		if err != nil {
			return nil, err
		}
		_, and := e.(*expr.And)
		for i := range lb {
			if and {
				lb[i] &= rb[i]
			} else {
				lb[i] |= rb[i]
			}
		}
		return lb, nil
	case expr.AlwaysTrue:
		out := make([]byte, words)
		for i := range out {
			out[i] = 0xff
		}
		return out, nil
	case expr.AlwaysFalse:
		return make([]byte, words), nil
	case *expr.BoundPredicate:
		out := make([]byte, words)
		op, ok := cmpOps[e.Op]
		if !ok {
			return nil, errkind.Errorf(errkind.Unsupported, "filter operator %s is not supported", e.Op)
		}
		col := cols[f.column[e.FieldID]]
		if path := f.path[e.FieldID]; path != nil {
			leaf, err := structLeaf(col, path, f.mem)
			if err != nil {
				return nil, err
			}
			defer leaf.Release()
			col = leaf
		}
		if err := kernels.CompareToBitmap(col, op, f.lits[e], out); err != nil {
			return nil, fmt.Errorf("filter %s: %w", e, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("filter: unexpected expression %s", e)
}
