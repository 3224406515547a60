package prune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/parquet"
)

// PruneOptions chooses the structures PruneRowGroup may consult.
type PruneOptions struct {
	// Statistics: the column chunks' min/max/null counts (in the footer,
	// free).
	Statistics bool
	// Dictionary: read and decode the dictionary page of a column whose
	// data pages are all dictionary-encoded.
	Dictionary bool
	// BloomFilter: read the split-block bloom filter of a column, for =
	// and in.
	BloomFilter bool
	// PageIndex: read the column and offset indexes and narrow the rows to
	// the pages that may match.
	PageIndex bool
}

// RowGroupPrune is what PruneRowGroup found out about a row group.
type RowGroupPrune struct {
	// Skip: no row of the row group can match.
	Skip bool
	// Ranges, when the page index narrows the rows that may match:
	// ascending, disjoint, relative to the row group, for
	// ReadRequest.Ranges. Nil means every row.
	Ranges []parquet.RowRange
	// PagesSkipped counts the data pages of the filter's columns that hold
	// no row of Ranges (all of them when Skip; known from the offset index
	// or the chunk's encoding stats, else 0).
	PagesSkipped int64
	// BytesSkipped is the compressed size of those pages (of the filter's
	// whole column chunks when Skip).
	BytesSkipped int64
	// Reason names the structure that ruled rows out: "statistics",
	// "dictionary", "bloom_filter", "page_index", or "" when none did.
	Reason string
}

// The reasons PruneRowGroup gives.
const (
	ReasonStatistics  = "statistics"
	ReasonDictionary  = "dictionary"
	ReasonBloomFilter = "bloom_filter"
	ReasonPageIndex   = "page_index"
)

// RowGroup decides which rows of a row group may satisfy filter, a
// bound expression (see expr.Bind; Not is allowed). It never rules out a
// row the filter accepts: anything it cannot decide might match.
//
// columns maps each Iceberg field id the filter names to the file's leaf
// for it (resolved by field id or name mapping); a field missing from the
// map is unknown, never a reason to skip. Statistics are converted from the
// file's type to the predicate's, following type promotion (int to long,
// float to double, wider decimals, date to timestamp).
//
// The structures are consulted in the order of PruneOptions, each only
// while the previous ones could not skip the row group, and each read with
// one ReadAt. A structure that is corrupt is ignored; an error is returned
// only when reading the file fails.
func RowGroup(f *parquet.File, rowGroup int, filter expr.Expr, columns map[int]*parquet.Node, opts PruneOptions) (res RowGroupPrune, err error) {
	defer parquet.RecoverAsError(&err, "parquet: pruning")
	if rowGroup < 0 || rowGroup >= len(f.RowGroups) {
		return res, fmt.Errorf("row group %d out of range (file has %d)", rowGroup, len(f.RowGroups))
	}
	if filter == nil {
		return res, nil
	}
	p := &rowGroupPruner{f: f, rg: &f.RowGroups[rowGroup], cols: map[*parquet.Node]*pruneColumn{}}
	defer p.release()
	root, err := p.build(expr.RewriteNot(filter), columns)
	if err != nil {
		return res, err
	}
	switch root.kind {
	case pruneTrue:
		return res, nil
	case pruneFalse:
		return p.skipAll(""), nil
	}
	levels := []struct {
		on     bool
		level  pruneLevel
		reason string
	}{
		{opts.Statistics, levelStatistics, ReasonStatistics},
		{opts.Dictionary, levelDictionary, ReasonDictionary},
		{opts.BloomFilter, levelBloom, ReasonBloomFilter},
	}
	enabled := pruneLevel(0)
	for _, l := range levels {
		if !l.on {
			continue
		}
		enabled |= l.level
		ok, err := p.eval(root, enabled)
		if err != nil {
			return res, err
		}
		if !ok {
			return p.skipAll(l.reason), nil
		}
	}
	if !opts.PageIndex || p.rg.NumRows == 0 {
		return res, nil
	}
	ranges, err := p.pageRanges(root, enabled)
	if err != nil {
		return res, err
	}
	if len(ranges) == 0 {
		return p.skipAll(ReasonPageIndex), nil
	}
	if len(ranges) == 1 && ranges[0] == (parquet.RowRange{Start: 0, End: p.rg.NumRows}) {
		return res, nil
	}
	res.Ranges, res.Reason = ranges, ReasonPageIndex
	res.PagesSkipped, res.BytesSkipped = p.pagesOutside(ranges)
	return res, nil
}

// pruneLevel is a set of mechanisms a predicate's verdict may draw on.
type pruneLevel uint8

const (
	levelStatistics pruneLevel = 1 << iota
	levelDictionary
	levelBloom
)

type pruneKind uint8

const (
	pruneTrue pruneKind = iota
	pruneFalse
	pruneAnd
	pruneOr
	pruneLeaf
)

// pruneNode is the filter with negations pushed into the predicates.
type pruneNode struct {
	kind        pruneKind
	left, right *pruneNode
	pred        *prunePredicate
}

// pruneColumn is one filter column of the row group, with the structures
// read for it so far.
type pruneColumn struct {
	node  *parquet.Node
	chunk *parquet.ColumnChunk
	dec   valueDecoder
	// usable is false when the column's values cannot be compared (nested
	// in a list, or not convertible to the predicate's type).
	usable bool
	// boundsUntrusted: the writer is known to store wrong min/max for this
	// chunk, so only null counts are used.
	boundsUntrusted bool

	dictRead  bool
	dict      *pruneDictionary
	bloomRead bool
	bloom     *parquet.SplitBlockBloom
	pagesRead bool
	pages     *pruneColumnPages
}

// required reports whether the column cannot hold nulls.
func (c *pruneColumn) required() bool { return c.node.DefLevel == 0 }

type rowGroupPruner struct {
	f    *parquet.File
	rg   *parquet.RowGroup
	cols map[*parquet.Node]*pruneColumn
}

func (p *rowGroupPruner) build(e expr.Expr, columns map[int]*parquet.Node) (*pruneNode, error) {
	switch e := e.(type) {
	case expr.AlwaysTrue:
		return &pruneNode{kind: pruneTrue}, nil
	case expr.AlwaysFalse:
		return &pruneNode{kind: pruneFalse}, nil
	case *expr.And, *expr.Or:
		var l, r expr.Expr
		kind := pruneAnd
		if a, ok := e.(*expr.And); ok {
			l, r = a.Left, a.Right
		} else {
			o := e.(*expr.Or)
			l, r, kind = o.Left, o.Right, pruneOr
		}
		left, err := p.build(l, columns)
		if err != nil {
			return nil, err
		}
		right, err := p.build(r, columns)
		if err != nil {
			return nil, err
		}
		switch {
		case kind == pruneAnd && (left.kind == pruneFalse || right.kind == pruneFalse):
			return &pruneNode{kind: pruneFalse}, nil
		case kind == pruneOr && (left.kind == pruneTrue || right.kind == pruneTrue):
			return &pruneNode{kind: pruneTrue}, nil
		case left.kind == pruneTrue || left.kind == pruneFalse:
			return right, nil
		case right.kind == pruneTrue || right.kind == pruneFalse:
			return left, nil
		}
		return &pruneNode{kind: kind, left: left, right: right}, nil
	case *expr.BoundPredicate:
		pred := p.predicate(e, columns[e.FieldID])
		if pred == nil {
			return &pruneNode{kind: pruneTrue}, nil
		}
		return &pruneNode{kind: pruneLeaf, pred: pred}, nil
	case nil:
		return nil, fmt.Errorf("prune: nil expression")
	}
	return nil, fmt.Errorf("prune: the filter must be bound; got %T (%s)", e, e)
}

// predicate prepares one predicate, or returns nil when nothing about the
// file can rule it out.
func (p *rowGroupPruner) predicate(bp *expr.BoundPredicate, n *parquet.Node) *prunePredicate {
	if n == nil || !n.IsLeaf() || n.Leaf < 0 || n.Leaf >= len(p.rg.Columns) || p.f.Leaves[n.Leaf] != n {
		return nil
	}
	col := p.column(n, bp)
	if !col.usable {
		return nil
	}
	pred := &prunePredicate{op: bp.Op, domain: col.dec.domain, col: col}
	switch bp.Op {
	case expr.OpIsNull, expr.OpNotNull, expr.OpIsNaN, expr.OpNotNaN:
		return pred
	case expr.OpStartsWith, expr.OpNotStartsWith:
		if col.dec.domain != domainBytes || len(bp.Values) != 1 {
			return nil
		}
	}
	for _, v := range bp.Values {
		lit, ok := literalValue(bp.Field.Type, v)
		if !ok {
			return nil
		}
		pred.lits = append(pred.lits, lit)
	}
	if len(pred.lits) == 0 {
		return nil
	}
	d := pred.domain
	slices.SortFunc(pred.lits, func(a, b pruneValue) int { return d.compare(&a, &b) })
	pred.lits = slices.CompactFunc(pred.lits, func(a, b pruneValue) bool { return d.compare(&a, &b) == 0 })
	return pred
}

// column returns the row group's state for leaf n, read as bp's type. A
// column named by predicates of different types (which binding does not
// produce) keeps the first type and refuses the others.
func (p *rowGroupPruner) column(n *parquet.Node, bp *expr.BoundPredicate) *pruneColumn {
	if c, ok := p.cols[n]; ok {
		if d, ok := newValueDecoder(n, bp.Field.Type); !ok || d != c.dec {
			return &pruneColumn{node: n}
		}
		return c
	}
	c := &pruneColumn{node: n, chunk: &p.rg.Columns[n.Leaf]}
	c.dec, c.usable = newValueDecoder(n, bp.Field.Type)
	if n.RepLevel > 0 || c.chunk.FilePath != "" {
		c.usable = false
	}
	c.boundsUntrusted = knownBadFloatBounds(p.f.CreatedBy, c.chunk)
	p.cols[n] = c
	return c
}

// knownBadFloatBounds reports chunks whose min/max a writer bug makes
// wrong: parquet-go (through v0.32 at least) computes the bounds of
// dictionary-encoded FLOAT and DOUBLE pages with SIMD min/max on amd64,
// which a NaN poisons, so the page and chunk bounds can exclude real
// values. floe's writer, built on it, wrote such chunks until it stopped
// dictionary-encoding floats (created_by "floe version 0.1.0"); its later
// files have none, so the encoding test alone tells them apart.
func knownBadFloatBounds(createdBy string, c *parquet.ColumnChunk) bool {
	if c.Physical != parquet.Float && c.Physical != parquet.Double {
		return false
	}
	if !strings.Contains(createdBy, "parquet-go") && !strings.HasPrefix(createdBy, "floe ") {
		return false
	}
	return c.DictionaryPageOffset > 0 || slices.Contains(c.Encodings, parquet.EncPlainDictionary) || slices.Contains(c.Encodings, parquet.EncRLEDictionary)
}

// eval reports whether the filter may hold for some row, using the
// mechanisms in level.
func (p *rowGroupPruner) eval(n *pruneNode, level pruneLevel) (bool, error) {
	switch n.kind {
	case pruneTrue:
		return true, nil
	case pruneFalse:
		return false, nil
	case pruneAnd, pruneOr:
		l, err := p.eval(n.left, level)
		if err != nil || l == (n.kind == pruneOr) {
			return l, err
		}
		return p.eval(n.right, level)
	}
	return p.leafMayMatch(n.pred, level)
}

func (p *rowGroupPruner) leafMayMatch(pred *prunePredicate, level pruneLevel) (bool, error) {
	if level&levelStatistics != 0 {
		if pred.stats == notChecked {
			s := chunkSummary(pred.col, p.rg.NumRows)
			pred.stats = verdictOf(pred.mightMatch(&s))
		}
		if pred.stats == noMatch {
			return false, nil
		}
	}
	if level&levelDictionary != 0 {
		if pred.dict == notChecked {
			ok, err := p.dictionaryMayMatch(pred)
			if err != nil {
				return false, err
			}
			pred.dict = verdictOf(ok)
		}
		if pred.dict == noMatch {
			return false, nil
		}
	}
	if level&levelBloom != 0 {
		if pred.bloom == notChecked {
			ok, err := p.bloomMayMatch(pred)
			if err != nil {
				return false, err
			}
			pred.bloom = verdictOf(ok)
		}
		if pred.bloom == noMatch {
			return false, nil
		}
	}
	return true, nil
}

func verdictOf(may bool) verdict {
	if may {
		return mayMatch
	}
	return noMatch
}

// release gives back the buffers of dictionaries and bloom filters.
func (p *rowGroupPruner) release() {
	for _, c := range p.cols {
		if c.dict != nil {
			c.dict.release()
		}
		if c.bloom != nil {
			c.bloom.Release()
		}
	}
}

// skipAll reports the whole row group as skipped, counting the filter
// columns' chunks.
func (p *rowGroupPruner) skipAll(reason string) RowGroupPrune {
	res := RowGroupPrune{Skip: true, Reason: reason}
	for _, c := range p.cols {
		if c.chunk == nil {
			continue
		}
		res.BytesSkipped += c.chunk.TotalCompressedSize
		if c.pages != nil {
			res.PagesSkipped += int64(len(c.pages.locs))
		} else {
			res.PagesSkipped += dataPageCount(c.chunk)
		}
	}
	return res
}

// dataPageCount counts a chunk's data pages from its encoding stats (0
// when the writer stored none).
func dataPageCount(c *parquet.ColumnChunk) int64 {
	n := int64(0)
	for _, e := range c.EncodingStats {
		if (e.PageType == int32(parquet.PageData) || e.PageType == int32(parquet.PageDataV2)) && e.Count > 0 {
			n += int64(e.Count)
		}
	}
	return n
}
