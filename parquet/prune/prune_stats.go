package prune

import (
	"bytes"
	"sort"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/parquet"
)

// valueSummary is what is known about a set of values: a column chunk (from
// its statistics), a page (from the column index) or one dictionary entry.
// Every non-null, non-NaN value v satisfies min <= v <= max for the bounds
// that are set.
type valueSummary struct {
	min, max       pruneValue
	hasMin, hasMax bool
	// exact: min and max are not truncated, so min == max means every
	// non-null, non-NaN value equals it.
	exact bool
	// rows is the number of values, nulls included; nullCount counts the
	// nulls when nullsKnown.
	rows, nullCount int64
	nullsKnown      bool
	// mayNaN: a value may be NaN (float columns, unless known otherwise);
	// onlyNaN: every non-null value is NaN.
	mayNaN, onlyNaN bool
}

func (s *valueSummary) noNulls() bool { return s.nullsKnown && s.nullCount == 0 }
func (s *valueSummary) allNull() bool { return s.nullsKnown && s.nullCount >= s.rows }

// prunePredicate is a bound predicate with its literals in the domain of
// its column, checked against summaries.
type prunePredicate struct {
	op     expr.Op
	domain pruneDomain
	// lits are sorted and distinct in the domain's order (one for
	// comparisons; the prefix for starts with).
	lits []pruneValue
	col  *pruneColumn
	// verdicts cached per mechanism: a false one rules the predicate out
	// in the whole row group.
	stats, dict, bloom verdict
}

type verdict uint8

const (
	notChecked verdict = iota
	mayMatch
	noMatch
)

// mightMatch reports whether a value the summary describes may satisfy the
// predicate. The row filter's rules are SQL's: null satisfies only "is
// null"; NaN satisfies "!=", "not in" and "is nan" and fails every other
// comparison. "not nan" is taken to hold for nulls too, the Iceberg
// reading, so that either reading of it is covered.
func (p *prunePredicate) mightMatch(s *valueSummary) bool {
	switch p.op {
	case expr.OpIsNull:
		return !s.noNulls()
	case expr.OpNotNull:
		return !s.allNull()
	case expr.OpIsNaN:
		return !s.allNull() && s.mayNaN
	case expr.OpNotNaN:
		return !(s.noNulls() && s.onlyNaN)
	}
	if s.allNull() {
		return false
	}
	switch p.op {
	case expr.OpNotEq, expr.OpNotIn:
		if s.mayNaN {
			return true
		}
		if s.exact && s.hasMin && s.hasMax && p.domain.compare(&s.min, &s.max) == 0 {
			return !p.contains(&s.min)
		}
		return true
	case expr.OpNotStartsWith:
		prefix := p.lits[0].b
		return !(s.hasMin && s.hasMax && bytes.HasPrefix(s.min.b, prefix) && bytes.HasPrefix(s.max.b, prefix))
	}
	if s.onlyNaN {
		return false
	}
	switch p.op {
	case expr.OpEq, expr.OpIn:
		return p.anyWithin(s)
	case expr.OpLt:
		return !s.hasMin || p.domain.compare(&s.min, &p.lits[0]) < 0
	case expr.OpLtEq:
		return !s.hasMin || p.domain.compare(&s.min, &p.lits[0]) <= 0
	case expr.OpGt:
		return !s.hasMax || p.domain.compare(&s.max, &p.lits[0]) > 0
	case expr.OpGtEq:
		return !s.hasMax || p.domain.compare(&s.max, &p.lits[0]) >= 0
	case expr.OpStartsWith:
		prefix := p.lits[0].b
		if s.hasMax && bytes.Compare(s.max.b[:min(len(s.max.b), len(prefix))], prefix) < 0 {
			return false
		}
		if s.hasMin && bytes.Compare(s.min.b[:min(len(s.min.b), len(prefix))], prefix) > 0 {
			return false
		}
		return true
	}
	return true
}

// anyWithin reports whether a literal lies within the summary's bounds.
func (p *prunePredicate) anyWithin(s *valueSummary) bool {
	i := 0
	if s.hasMin {
		i = sort.Search(len(p.lits), func(k int) bool { return p.domain.compare(&p.lits[k], &s.min) >= 0 })
	}
	return i < len(p.lits) && (!s.hasMax || p.domain.compare(&p.lits[i], &s.max) <= 0)
}

func (p *prunePredicate) contains(v *pruneValue) bool {
	i := sort.Search(len(p.lits), func(k int) bool { return p.domain.compare(&p.lits[k], v) >= 0 })
	return i < len(p.lits) && p.domain.compare(&p.lits[i], v) == 0
}

// chunkSummary describes a column chunk from its statistics. Only the
// min_value/max_value fields are taken for every type; the deprecated
// min/max only where old writers' signed order is the column's order.
func chunkSummary(c *pruneColumn, rows int64) valueSummary {
	s := valueSummary{rows: rows, mayNaN: c.dec.domain == domainFloat}
	if c.required() {
		s.nullsKnown = true
	}
	st := c.chunk.Statistics
	if st == nil {
		return s
	}
	if st.HasNullCount && st.NullCount >= 0 {
		s.nullCount, s.nullsKnown = st.NullCount, true
	}
	minRaw, maxRaw, hasMin, hasMax := st.Min, st.Max, st.HasMin, st.HasMax
	if c.chunk.UnknownColumnOrder {
		hasMin, hasMax = false, false
	}
	legacy := false
	if !hasMin && !hasMax && c.dec.legacyStats {
		minRaw, maxRaw, hasMin, hasMax = st.LegacyMin, st.LegacyMax, st.HasLegacyMin, st.HasLegacyMax
		legacy = true
	}
	c.setBounds(&s, minRaw, maxRaw, hasMin, hasMax)
	s.exact = c.dec.domain != domainBytes || (!legacy && st.IsMinExact && st.IsMaxExact)
	return s
}

// setBounds decodes stored bounds into s. A NaN bound (which writers
// should not store) says nothing about the other values, so both are
// dropped.
func (c *pruneColumn) setBounds(s *valueSummary, minRaw, maxRaw []byte, hasMin, hasMax bool) {
	if c.boundsUntrusted {
		return
	}
	if hasMin {
		s.min, s.hasMin = c.dec.decode(minRaw)
	}
	if hasMax {
		s.max, s.hasMax = c.dec.decode(maxRaw)
	}
	d := c.dec.domain
	if (s.hasMin && d.isNaN(&s.min)) || (s.hasMax && d.isNaN(&s.max)) {
		s.hasMin, s.hasMax = false, false
	}
	if s.hasMin && s.hasMax && d.compare(&s.min, &s.max) > 0 {
		// inverted bounds come from a writer we cannot trust
		s.hasMin, s.hasMax = false, false
	}
}

// ChunkIntRange returns a row group's bounds on column n as values of t,
// an integer-like Iceberg type, when its statistics give both.
func ChunkIntRange(f *parquet.File, rowGroup int, n *parquet.Node, t iceberg.Type) (lo, hi int64, ok bool) {
	dec, ok := newValueDecoder(n, t)
	// Unsigned 32-bit leaves are left out: their statistics are unsigned
	// but the reader widens their values with the sign (a known gap for a
	// type Iceberg writers never produce), so bounds and keys would differ.
	if !ok || dec.domain != domainInt || dec.kind == decUint32 || n.RepLevel > 0 {
		return 0, 0, false
	}
	rg := &f.RowGroups[rowGroup]
	c := &pruneColumn{node: n, chunk: &rg.Columns[n.Leaf], dec: dec, usable: true}
	if c.chunk.FilePath != "" {
		return 0, 0, false
	}
	c.boundsUntrusted = knownBadFloatBounds(f.CreatedBy, c.chunk)
	s := chunkSummary(c, rg.NumRows)
	return s.min.i, s.max.i, s.hasMin && s.hasMax
}
