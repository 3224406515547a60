package expr

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/floedb/floe/iceberg"
)

// TupleEvaluator tests a bound expression against tuples of one struct type
// (a partition tuple, or a row as []any by field position, nested structs
// as nested []any), in the canonical Go forms of package iceberg.
//
// Negations are pushed down first (see RewriteNot), and predicates follow
// the rules the reader's filter kernels apply to rows: a null satisfies only
// "is null" and "is not nan"; a NaN satisfies "is nan", "!=" and "not in"
// and no ordering; -0 equals +0.
//
// An evaluator is safe for concurrent use.
type TupleEvaluator struct {
	root tupleNode
}

type tupleNodeKind uint8

const (
	tupleFalse tupleNodeKind = iota
	tupleTrue
	tupleAnd
	tupleOr
	tuplePredicate
)

type tupleNode struct {
	kind        tupleNodeKind
	left, right *tupleNode
	pred        tuplePred
}

type tuplePred struct {
	op     Op
	path   []int // positions from the tuple down to the field
	values []any
}

// NewTupleEvaluator compiles e, an expression bound to the fields of st.
func NewTupleEvaluator(e Expr, st *iceberg.StructType) (*TupleEvaluator, error) {
	if st == nil {
		return nil, fmt.Errorf("evaluate: no struct type")
	}
	root, err := compileTuple(RewriteNot(e), st)
	if err != nil {
		return nil, err
	}
	return &TupleEvaluator{root: *root}, nil
}

// tupleCompiler compiles a tree whose negations are pushed down (so Not
// never comes: RewriteNot leaves none).
type tupleCompiler struct{ st *iceberg.StructType }

func (tupleCompiler) True() *tupleNode  { return &tupleNode{kind: tupleTrue} }
func (tupleCompiler) False() *tupleNode { return &tupleNode{kind: tupleFalse} }
func (tupleCompiler) And(l, r *tupleNode) *tupleNode {
	return &tupleNode{kind: tupleAnd, left: l, right: r}
}
func (tupleCompiler) Or(l, r *tupleNode) *tupleNode {
	return &tupleNode{kind: tupleOr, left: l, right: r}
}
func (tupleCompiler) Not(*tupleNode) (*tupleNode, error) {
	return nil, fmt.Errorf("a negation is left after RewriteNot")
}

func (c tupleCompiler) Predicate(e *BoundPredicate) (*tupleNode, error) {
	path, ok := fieldPath(c.st, e.FieldID)
	if !ok {
		return nil, fmt.Errorf("evaluate %s: field %d is not in %s", e, e.FieldID, c.st)
	}
	if e.Op >= opCount {
		return nil, fmt.Errorf("evaluate: invalid operator %d", e.Op)
	}
	return &tupleNode{kind: tuplePredicate, pred: tuplePred{op: e.Op, path: path, values: e.Values}}, nil
}

func compileTuple(e Expr, st *iceberg.StructType) (*tupleNode, error) {
	n, err := Visit[*tupleNode](e, tupleCompiler{st})
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	return n, nil
}

// fieldPath finds the positions leading to field id through nested structs.
func fieldPath(st *iceberg.StructType, id int) ([]int, bool) {
	for i, f := range st.Fields {
		if f.ID == id {
			return []int{i}, true
		}
		if inner, ok := f.Type.(*iceberg.StructType); ok {
			if rest, ok := fieldPath(inner, id); ok {
				return append([]int{i}, rest...), true
			}
		}
	}
	return nil, false
}

// Eval reports whether tuple satisfies the expression. Fields beyond the
// tuple's length read as null.
func (ev *TupleEvaluator) Eval(tuple []any) bool { return ev.root.eval(tuple) }

func (n *tupleNode) eval(tuple []any) bool {
	switch n.kind {
	case tupleTrue:
		return true
	case tupleAnd:
		return n.left.eval(tuple) && n.right.eval(tuple)
	case tupleOr:
		return n.left.eval(tuple) || n.right.eval(tuple)
	case tuplePredicate:
		return n.pred.eval(tuple)
	}
	return false
}

func (p *tuplePred) eval(tuple []any) bool {
	var v any
	for i, pos := range p.path {
		if pos >= len(tuple) {
			v = nil
			break
		}
		v = tuple[pos]
		if i < len(p.path)-1 {
			inner, ok := v.([]any)
			if !ok {
				v = nil
				break
			}
			tuple = inner
		}
	}
	return testValue(p.op, v, p.values)
}

// testValue applies one predicate to one value (nil = null).
func testValue(op Op, v any, values []any) bool {
	switch op {
	case OpIsNull:
		return v == nil
	case OpNotNull:
		return v != nil
	}
	// A null satisfies no other predicate, "is not nan" included.
	if v == nil {
		return false
	}
	switch op {
	case OpIsNaN:
		return isNaN(v)
	case OpNotNaN:
		return !isNaN(v)
	}
	switch op {
	case OpStartsWith, OpNotStartsWith:
		s, ok1 := v.(string)
		prefix, ok2 := values[0].(string)
		if !ok1 || !ok2 {
			return false
		}
		return strings.HasPrefix(s, prefix) == (op == OpStartsWith)
	case OpIn, OpNotIn:
		found, ordered := setContains(values, v)
		if !ordered {
			return op == OpNotIn && isNaN(v)
		}
		return found == (op == OpIn)
	}
	if len(values) != 1 {
		return false
	}
	c, r := compareValues(v, values[0])
	switch r {
	case unorderedNaN:
		return op == OpNotEq
	case mismatched:
		return false
	}
	switch op {
	case OpEq:
		return c == 0
	case OpNotEq:
		return c != 0
	case OpLt:
		return c < 0
	case OpLtEq:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGtEq:
		return c >= 0
	}
	return false
}

// setContains looks v up in a set sorted by iceberg.Compare; ordered is
// false when v is NaN or not comparable with the set.
func setContains(values []any, v any) (found, ordered bool) {
	if len(values) <= 8 {
		for _, x := range values {
			c, r := compareValues(v, x)
			if r != compared {
				return false, false
			}
			if c == 0 {
				return true, true
			}
		}
		return false, true
	}
	bad := false
	i := sort.Search(len(values), func(i int) bool {
		c, r := compareValues(values[i], v)
		bad = bad || r != compared
		return c >= 0
	})
	if bad {
		return false, false
	}
	if i < len(values) {
		c, _ := compareValues(values[i], v)
		return c == 0, true
	}
	return false, true
}

type compareResult uint8

const (
	compared compareResult = iota
	unorderedNaN
	mismatched
)

// compareValues orders two canonical values the way filters compare them:
// ints and longs together, floats and doubles by IEEE 754 (-0 equals +0,
// NaN orders nowhere), decimals by value, strings and bytes unsigned.
func compareValues(a, b any) (int, compareResult) {
	switch x := a.(type) {
	case int32:
		switch y := b.(type) {
		case int32:
			return cmp.Compare(x, y), compared
		case int64:
			return cmp.Compare(int64(x), y), compared
		}
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp.Compare(x, y), compared
		case int32:
			return cmp.Compare(x, int64(y)), compared
		}
	case float32:
		switch y := b.(type) {
		case float32:
			return compareIEEE(float64(x), float64(y))
		case float64:
			return compareIEEE(float64(x), y)
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return compareIEEE(x, y)
		case float32:
			return compareIEEE(x, float64(y))
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), compared
		}
	case bool:
		if y, ok := b.(bool); ok {
			return iceberg.Compare(iceberg.BooleanType{}, x, y), compared
		}
	case iceberg.Decimal:
		if y, ok := b.(iceberg.Decimal); ok {
			return iceberg.Compare(iceberg.DecimalType{}, x, y), compared
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return iceberg.Compare(iceberg.BinaryType{}, x, y), compared
		}
	case [16]byte:
		if y, ok := b.([16]byte); ok {
			return iceberg.Compare(iceberg.UUIDType{}, x, y), compared
		}
	}
	return 0, mismatched
}

func compareIEEE(x, y float64) (int, compareResult) {
	switch {
	case x != x || y != y:
		return 0, unorderedNaN
	case x < y:
		return -1, compared
	case x > y:
		return 1, compared
	}
	return 0, compared
}

func isNaN(v any) bool {
	switch x := v.(type) {
	case float32:
		return x != x
	case float64:
		return math.IsNaN(x)
	}
	return false
}
