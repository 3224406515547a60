package table

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
)

// boundPredicate is a bound predicate prepared for comparison with lower
// and upper bounds in the binary single-value form (manifest metrics and
// partition field summaries), without decoding each bound into an any.
// Comparisons follow the reader's filters: floats by IEEE 754 (-0 = +0),
// strings and binary as unsigned bytes.
type boundPredicate struct {
	op    expr.Op
	id    int // field id: a column (metrics) or a partition field (summaries)
	typ   iceberg.Type
	kind  boundKind
	ints  []int64 // literals of integer kinds, in set order
	flts  []float64
	decs  []iceberg.Decimal
	bytes [][]byte
}

type boundKind uint8

const (
	kindUnsupported boundKind = iota
	kindInt                   // int, long, date, time, timestamps, boolean
	kindFloat
	kindDecimal
	kindBytes // string, binary, fixed, uuid
)

func kindOf(t iceberg.Type) boundKind {
	switch t.(type) {
	case iceberg.IntType, iceberg.LongType, iceberg.DateType, iceberg.TimeType, iceberg.TimestampType,
		iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType, iceberg.BooleanType:
		return kindInt
	case iceberg.FloatType, iceberg.DoubleType:
		return kindFloat
	case iceberg.DecimalType:
		return kindDecimal
	case iceberg.StringType, iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType:
		return kindBytes
	}
	return kindUnsupported
}

// prepareBoundPredicate converts p's literals to its kind. Predicates whose
// literals do not convert compare as unknown (kindUnsupported), which
// never prunes.
func prepareBoundPredicate(p *expr.BoundPredicate) *boundPredicate {
	b := &boundPredicate{op: p.Op, id: p.FieldID, typ: p.Field.Type, kind: kindOf(p.Field.Type)}
	for _, v := range p.Values {
		ok := false
		switch b.kind {
		case kindInt:
			var n int64
			n, ok = literalInt(v)
			b.ints = append(b.ints, n)
		case kindFloat:
			var f float64
			f, ok = literalFloat(v)
			b.flts = append(b.flts, f)
		case kindDecimal:
			var d iceberg.Decimal
			d, ok = v.(iceberg.Decimal)
			b.decs = append(b.decs, d)
		case kindBytes:
			var raw []byte
			raw, ok = literalBytes(v)
			b.bytes = append(b.bytes, raw)
		}
		if !ok {
			b.kind = kindUnsupported
			break
		}
	}
	return b
}

func literalInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func literalFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), !math.IsNaN(float64(x))
	case float64:
		return x, !math.IsNaN(x)
	}
	return 0, false
}

func literalBytes(v any) ([]byte, bool) {
	switch x := v.(type) {
	case string:
		return []byte(x), true
	case []byte:
		return x, true
	case [16]byte:
		return x[:], true
	}
	return nil, false
}

// boundValue is one decoded bound.
type boundValue struct {
	n   int64
	f   float64
	d   iceberg.Decimal
	raw []byte
}

// decodeBound reads a bound of the predicate's type. Bounds keep the type
// they were written with when a column is later promoted, so a narrower
// encoding is read as its promotion (as iceberg.ValueFromBytes does). A NaN
// bound, which old writers produced, is as good as none.
func (b *boundPredicate) decodeBound(raw []byte) (boundValue, bool) {
	switch b.kind {
	case kindInt:
		n, ok := boundInt(b.typ, raw)
		return boundValue{n: n}, ok
	case kindFloat:
		var f float64
		switch {
		case len(raw) == 4:
			f = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw)))
		case len(raw) == 8 && b.typ == (iceberg.DoubleType{}):
			f = math.Float64frombits(binary.LittleEndian.Uint64(raw))
		default:
			return boundValue{}, false
		}
		return boundValue{f: f}, !math.IsNaN(f)
	case kindDecimal:
		v, err := iceberg.ValueFromBytes(b.typ, raw)
		if err != nil {
			return boundValue{}, false
		}
		return boundValue{d: v.(iceberg.Decimal)}, true
	case kindBytes:
		return boundValue{raw: raw}, true
	}
	return boundValue{}, false
}

func boundInt(t iceberg.Type, raw []byte) (int64, bool) {
	switch t.(type) {
	case iceberg.BooleanType:
		if len(raw) == 1 {
			if raw[0] != 0 {
				return 1, true
			}
			return 0, true
		}
		return 0, false
	case iceberg.IntType, iceberg.DateType:
		if len(raw) == 4 {
			return int64(int32(binary.LittleEndian.Uint32(raw))), true
		}
		return 0, false
	}
	switch len(raw) {
	case 8:
		return int64(binary.LittleEndian.Uint64(raw)), true
	case 4:
		switch t.(type) {
		case iceberg.LongType:
			return int64(int32(binary.LittleEndian.Uint32(raw))), true
		case iceberg.TimeType:
			return 0, false
		}
		// A timestamp column promoted from date: its midnight.
		v, err := iceberg.ValueFromBytes(t, raw)
		if err != nil {
			return 0, false
		}
		n, ok := v.(int64)
		return n, ok
	}
	return 0, false
}

// compare orders a decoded bound against literal i.
func (b *boundPredicate) compare(v boundValue, i int) int {
	switch b.kind {
	case kindInt:
		return cmp.Compare(v.n, b.ints[i])
	case kindFloat:
		switch {
		case v.f < b.flts[i]:
			return -1
		case v.f > b.flts[i]:
			return 1
		}
		return 0
	case kindDecimal:
		return iceberg.Compare(iceberg.DecimalType{}, v.d, b.decs[i])
	}
	return bytes.Compare(v.raw, b.bytes[i])
}

func (b *boundPredicate) literals() int {
	switch b.kind {
	case kindInt:
		return len(b.ints)
	case kindFloat:
		return len(b.flts)
	case kindDecimal:
		return len(b.decs)
	case kindBytes:
		return len(b.bytes)
	}
	return 0
}

// rangeMayMatch reports whether rows with values between the bounds (nil
// when unknown) may pass the comparison or set predicate b.
func (b *boundPredicate) rangeMayMatch(lower, upper []byte) bool {
	if b.kind == kindUnsupported || b.literals() == 0 {
		return true
	}
	lo, hasLo := boundValue{}, false
	if lower != nil {
		lo, hasLo = b.decodeBound(lower)
	}
	hi, hasHi := boundValue{}, false
	if upper != nil {
		hi, hasHi = b.decodeBound(upper)
	}
	switch b.op {
	case expr.OpLt:
		return !hasLo || b.compare(lo, 0) < 0
	case expr.OpLtEq:
		return !hasLo || b.compare(lo, 0) <= 0
	case expr.OpGt:
		return !hasHi || b.compare(hi, 0) > 0
	case expr.OpGtEq:
		return !hasHi || b.compare(hi, 0) >= 0
	case expr.OpEq:
		return (!hasLo || b.compare(lo, 0) <= 0) && (!hasHi || b.compare(hi, 0) >= 0)
	case expr.OpIn:
		// Literals are sorted: find the first at or above the lower bound.
		n := b.literals()
		i := 0
		if hasLo {
			i = sort.Search(n, func(i int) bool { return b.compare(lo, i) <= 0 })
		}
		return i < n && (!hasHi || b.compare(hi, i) >= 0)
	}
	return true
}

// uniqueValueExcluded reports whether bounds that are equal, on a column
// known to hold no null (and, for floats, no NaN), pin every value to one
// that "!=" / "not in" excludes. String and binary bounds may be truncated
// prefixes, so equal ones do not pin a value: those are never used.
func (b *boundPredicate) uniqueValueExcluded(lower, upper []byte) bool {
	if b.kind == kindUnsupported || b.kind == kindBytes || lower == nil || !bytes.Equal(lower, upper) {
		return false
	}
	v, ok := b.decodeBound(lower)
	if !ok {
		return false
	}
	for i := range b.literals() {
		if b.compare(v, i) == 0 {
			return true
		}
	}
	return false
}

// prefixMayMatch reports whether values between the bounds may start with
// the predicate's prefix: truncating both bounds to the prefix's length
// keeps their order.
func (b *boundPredicate) prefixMayMatch(lower, upper []byte) bool {
	if b.kind != kindBytes || len(b.bytes) != 1 {
		return true
	}
	prefix := b.bytes[0]
	if lower != nil && bytes.Compare(lower[:min(len(prefix), len(lower))], prefix) > 0 {
		return false
	}
	if upper != nil && bytes.Compare(upper[:min(len(prefix), len(upper))], prefix) < 0 {
		return false
	}
	return true
}

// allStartWithPrefix reports whether every value between two known bounds
// starts with the prefix: values with a prefix are an interval in byte
// order, so both bounds starting with it is enough.
func (b *boundPredicate) allStartWithPrefix(lower, upper []byte) bool {
	if b.kind != kindBytes || len(b.bytes) != 1 || lower == nil || upper == nil {
		return false
	}
	prefix := b.bytes[0]
	return bytes.HasPrefix(lower, prefix) && bytes.HasPrefix(upper, prefix)
}

// compileBound walks a bound expression (negations already pushed down)
// into a tree of prepared predicates.
type boundNode struct {
	kind        boundNodeKind
	left, right *boundNode
	pred        *boundPredicate
}

type boundNodeKind uint8

const (
	boundFalse boundNodeKind = iota
	boundTrue
	boundAnd
	boundOr
	boundLeaf
)

func compileBound(e expr.Expr) (*boundNode, error) {
	switch e := e.(type) {
	case expr.AlwaysTrue:
		return &boundNode{kind: boundTrue}, nil
	case expr.AlwaysFalse:
		return &boundNode{kind: boundFalse}, nil
	case *expr.And, *expr.Or:
		var l, r expr.Expr
		kind := boundAnd
		if a, ok := e.(*expr.And); ok {
			l, r = a.Left, a.Right
		} else {
			o := e.(*expr.Or)
			l, r, kind = o.Left, o.Right, boundOr
		}
		left, err := compileBound(l)
		if err != nil {
			return nil, err
		}
		right, err := compileBound(r)
		if err != nil {
			return nil, err
		}
		return &boundNode{kind: kind, left: left, right: right}, nil
	case *expr.BoundPredicate:
		return &boundNode{kind: boundLeaf, pred: prepareBoundPredicate(e)}, nil
	case nil:
		return nil, fmt.Errorf("pruning: nil expression")
	}
	return nil, fmt.Errorf("pruning: expression %s is not bound", e)
}

// mightMatch evaluates the tree, with leaf deciding each predicate on in.
// leaf is a plain function, not a closure, so evaluation does not allocate.
func mightMatch[T any](n *boundNode, in T, leaf func(*boundPredicate, T) bool) bool {
	switch n.kind {
	case boundTrue:
		return true
	case boundAnd:
		return mightMatch(n.left, in, leaf) && mightMatch(n.right, in, leaf)
	case boundOr:
		return mightMatch(n.left, in, leaf) || mightMatch(n.right, in, leaf)
	case boundLeaf:
		return leaf(n.pred, in)
	}
	return false
}
