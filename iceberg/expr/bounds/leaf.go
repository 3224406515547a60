package bounds

import (
	"bytes"
	"slices"
	"sort"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
)

// Leaf is one bound predicate prepared for summaries: its literals in its
// field's domain, sorted. Callers that keep state per predicate (a decoder
// per column) index it by Index, the leaf's position in its Evaluator.
type Leaf struct {
	Op      expr.Op
	FieldID int
	Type    iceberg.Type
	Domain  Domain
	Index   int
	// lits are the literals in domain order (one for comparisons; the
	// prefix for starts-with); judged is false when they do not convert,
	// and bounds then decide nothing.
	lits   []Value
	judged bool
}

// NewLeaf prepares p.
func NewLeaf(p *expr.BoundPredicate) *Leaf {
	l := &Leaf{Op: p.Op, FieldID: p.FieldID, Type: p.Field.Type, Domain: DomainOf(p.Field.Type), judged: true}
	for _, v := range p.Values {
		lit, ok := ValueOf(l.Type, v)
		if !ok || l.Domain == DomainNone {
			l.lits, l.judged = nil, false
			break
		}
		l.lits = append(l.lits, lit)
	}
	if !p.Op.IsUnary() && len(l.lits) == 0 {
		l.judged = false
	}
	if (p.Op == expr.OpStartsWith || p.Op == expr.OpNotStartsWith) && l.Domain != DomainBytes {
		l.judged = false
	}
	slices.SortFunc(l.lits, func(a, b Value) int { return l.Domain.Compare(&a, &b) })
	l.lits = slices.CompactFunc(l.lits, func(a, b Value) bool { return l.Domain.Compare(&a, &b) == 0 })
	return l
}

// Literals are the leaf's literals in domain order, distinct (for bloom
// filters, which probe each).
func (l *Leaf) Literals() []Value { return l.lits }

// MightMatch reports whether a value s describes may satisfy the
// predicate; false means none does. "is not nan" is taken to hold for a
// null (Iceberg's reading) so that either reading of it is covered.
func (l *Leaf) MightMatch(s *Summary) bool {
	f := s.facts(l.Domain)
	switch l.Op {
	case expr.OpIsNull:
		return !f.noNulls
	case expr.OpNotNull:
		return !f.allNull
	case expr.OpIsNaN:
		return !f.noNaNs && !f.allNull
	case expr.OpNotNaN:
		return !f.allNaN
	}
	if f.allNull {
		return false // a null fails every comparison, != and not like too
	}
	if !l.judged {
		return true
	}
	switch l.Op {
	case expr.OpNotEq, expr.OpNotIn:
		// A NaN passes these: a float column must be known to hold none
		// for its bounds to decide.
		if !f.noNaNs {
			return true
		}
		if v, ok := l.pinned(s, &f); ok {
			return !l.contains(v)
		}
		return true
	case expr.OpNotStartsWith:
		return !l.allStartWith(&f)
	}
	if f.noPlain {
		return false // nulls and NaNs fail the rest
	}
	lit := &l.lits[0]
	switch l.Op {
	case expr.OpEq, expr.OpIn:
		return l.anyWithin(&f)
	case expr.OpLt:
		return f.lower == nil || l.Domain.Compare(f.lower, lit) < 0
	case expr.OpLtEq:
		return f.lower == nil || l.Domain.Compare(f.lower, lit) <= 0
	case expr.OpGt:
		return f.upper == nil || l.Domain.Compare(f.upper, lit) > 0
	case expr.OpGtEq:
		return f.upper == nil || l.Domain.Compare(f.upper, lit) >= 0
	case expr.OpStartsWith:
		// Truncating a bound to the prefix's length keeps its order, and a
		// truncated bound is still a bound.
		p := lit.Bytes
		if f.lower != nil && bytes.Compare(f.lower.Bytes[:min(len(p), len(f.lower.Bytes))], p) > 0 {
			return false
		}
		if f.upper != nil && bytes.Compare(f.upper.Bytes[:min(len(p), len(f.upper.Bytes))], p) < 0 {
			return false
		}
	}
	return true
}

// AllMatch reports whether every value s describes satisfies the
// predicate. A null fails every comparison and a NaN every one but "!="
// and "not in", so a column must be known to hold neither; "is not nan"
// must hold under either reading of a null, so it needs no null either.
func (l *Leaf) AllMatch(s *Summary) bool {
	f := s.facts(l.Domain)
	switch l.Op {
	case expr.OpIsNull:
		return f.allNull
	case expr.OpNotNull:
		return f.noNulls
	case expr.OpIsNaN:
		return f.allNaN
	case expr.OpNotNaN:
		return f.noNulls && f.noNaNs
	}
	if !f.noNulls || !f.noNaNs || !l.judged {
		return false
	}
	lit := &l.lits[0]
	switch l.Op {
	case expr.OpLt:
		return f.upper != nil && l.Domain.Compare(f.upper, lit) < 0
	case expr.OpLtEq:
		return f.upper != nil && l.Domain.Compare(f.upper, lit) <= 0
	case expr.OpGt:
		return f.lower != nil && l.Domain.Compare(f.lower, lit) > 0
	case expr.OpGtEq:
		return f.lower != nil && l.Domain.Compare(f.lower, lit) >= 0
	case expr.OpEq, expr.OpIn:
		v, ok := l.pinned(s, &f)
		return ok && l.contains(v)
	case expr.OpNotEq, expr.OpNotIn:
		return !l.anyWithin(&f)
	case expr.OpStartsWith:
		return l.allStartWith(&f)
	case expr.OpNotStartsWith:
		p := lit.Bytes
		return f.lower != nil && bytes.Compare(f.lower.Bytes[:min(len(p), len(f.lower.Bytes))], p) > 0 ||
			f.upper != nil && bytes.Compare(f.upper.Bytes[:min(len(p), len(f.upper.Bytes))], p) < 0
	}
	return false
}

// pinned gives the one value every value that is neither null nor NaN
// has: exact, equal bounds.
func (l *Leaf) pinned(s *Summary, f *facts) (*Value, bool) {
	if !s.Exact || f.lower == nil || f.upper == nil || l.Domain.Compare(f.lower, f.upper) != 0 {
		return nil, false
	}
	return f.lower, true
}

// anyWithin reports whether a literal lies within the bounds.
func (l *Leaf) anyWithin(f *facts) bool {
	i := 0
	if f.lower != nil {
		i = sort.Search(len(l.lits), func(k int) bool { return l.Domain.Compare(&l.lits[k], f.lower) >= 0 })
	}
	return i < len(l.lits) && (f.upper == nil || l.Domain.Compare(&l.lits[i], f.upper) <= 0)
}

func (l *Leaf) contains(v *Value) bool {
	i := sort.Search(len(l.lits), func(k int) bool { return l.Domain.Compare(&l.lits[k], v) >= 0 })
	return i < len(l.lits) && l.Domain.Compare(&l.lits[i], v) == 0
}

// allStartWith reports whether every value between the bounds starts with
// the prefix: values with a prefix are an interval in byte order, so both
// bounds starting with it is enough, truncated or not.
func (l *Leaf) allStartWith(f *facts) bool {
	p := l.lits[0].Bytes
	return f.lower != nil && f.upper != nil && bytes.HasPrefix(f.lower.Bytes, p) && bytes.HasPrefix(f.upper.Bytes, p)
}
