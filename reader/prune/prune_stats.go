package prune

import (
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
)

// chunkSummary describes a column chunk from its statistics. Only the
// min_value/max_value fields are taken for every type; the deprecated
// min/max only where old writers' signed order is the column's. NaN
// counts are not in Parquet's statistics: a float chunk may hold NaNs.
func chunkSummary(c *pruneColumn, rows int64) bounds.Summary {
	s := bounds.Summary{Values: rows, HasValues: true}
	if c.required() {
		s.HasNulls = true
	}
	st := c.chunk.Statistics
	if st == nil {
		return s
	}
	if st.HasNullCount && st.NullCount >= 0 {
		s.Nulls, s.HasNulls = st.NullCount, true
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
	s.Exact = c.dec.domain != bounds.DomainBytes || (!legacy && st.IsMinExact && st.IsMaxExact)
	return s
}

// setBounds decodes stored bounds into s, unless the writer is known to
// get them wrong. A bound that does not decode is no bound; the bounds
// package distrusts NaN and inverted bounds.
func (c *pruneColumn) setBounds(s *bounds.Summary, minRaw, maxRaw []byte, hasMin, hasMax bool) {
	if c.boundsUntrusted {
		return
	}
	if hasMin {
		s.Lower, s.HasLower = c.dec.decode(minRaw)
	}
	if hasMax {
		s.Upper, s.HasUpper = c.dec.decode(maxRaw)
	}
}

// noNulls and allNull read a summary's null count.
func noNulls(s *bounds.Summary) bool { return s.HasNulls && s.Nulls == 0 }
func allNull(s *bounds.Summary) bool { return s.HasValues && s.HasNulls && s.Nulls >= s.Values }

// ChunkIntRange returns a row group's bounds on column n as values of t,
// an integer-like Iceberg type, when its statistics give both.
func ChunkIntRange(f *parquet.File, rowGroup int, n *parquet.Node, t iceberg.Type) (lo, hi int64, ok bool) {
	s, ok := ChunkSummary(f, rowGroup, n, t)
	if !ok || bounds.DomainOf(t) != bounds.DomainInt {
		return 0, 0, false
	}
	return s.Lower.Int, s.Upper.Int, s.HasLower && s.HasUpper && s.Lower.Int <= s.Upper.Int
}

// ChunkSummary describes a row group's chunk of leaf n as values of the
// Iceberg type t, from its statistics, under the rules the pruner trusts
// them by (legacy min/max, unsigned and unknown orders, writers known to
// get float bounds wrong). ok is false when the leaf's values cannot be
// read as t, or its chunk lives in another file. Leaves below a repeated
// field are left out, and unsigned 32-bit ones: their statistics are
// unsigned but the reader widens their values with the sign (a known gap
// for a type Iceberg writers never produce), so bounds and values would
// differ.
func ChunkSummary(f *parquet.File, rowGroup int, n *parquet.Node, t iceberg.Type) (bounds.Summary, bool) {
	dec, ok := newValueDecoder(n, t)
	if !ok || dec.kind == decUint32 || n.RepLevel > 0 || rowGroup < 0 || rowGroup >= len(f.RowGroups) {
		return bounds.Summary{}, false
	}
	rg := &f.RowGroups[rowGroup]
	c := &pruneColumn{fileColumn: &fileColumn{node: n, dec: dec}, chunk: &rg.Columns[n.Leaf], usable: true}
	if c.chunk.FilePath != "" {
		return bounds.Summary{}, false
	}
	c.boundsUntrusted = knownBadFloatBounds(f.CreatedBy, c.chunk)
	return chunkSummary(c, rg.NumRows), true
}
