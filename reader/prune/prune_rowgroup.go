package prune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
)

// Options chooses the structures RowGroup may consult.
type Options struct {
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

// Result is what RowGroup found out about a row group.
type Result struct {
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

// The reasons RowGroup gives.
const (
	ReasonStatistics  = "statistics"
	ReasonDictionary  = "dictionary"
	ReasonBloomFilter = "bloom_filter"
	ReasonPageIndex   = "page_index"
)

// RowGroup decides which rows of a row group may satisfy filter: it
// compiles the filter for f (Compile) and judges the one row group. A
// caller judging several row groups of a file compiles once instead.
func RowGroup(f *parquet.File, rowGroup int, filter expr.Expr, columns map[int]*parquet.Node, opts Options) (Result, error) {
	ff, err := Compile(f, filter, columns)
	if err != nil {
		return Result{}, err
	}
	return ff.RowGroup(rowGroup, opts)
}

// RowGroup decides which rows of a row group may satisfy the filter. It
// never rules out a row the filter accepts: anything it cannot decide
// might match.
//
// The structures are consulted in the order of Options, each only while
// the previous ones could not skip the row group, and each read with one
// ReadAt. A structure that is corrupt is ignored; an error is returned
// only when reading the file fails.
func (ff *Filter) RowGroup(rowGroup int, opts Options) (res Result, err error) {
	defer parquet.RecoverAsError(&err, "parquet: pruning")
	f := ff.f
	if rowGroup < 0 || rowGroup >= len(f.RowGroups) {
		return res, fmt.Errorf("row group %d out of range (file has %d)", rowGroup, len(f.RowGroups))
	}
	root := ff.root
	if root.kind == pruneTrue {
		return res, nil
	}
	p := ff.newRowGroupPruner(&f.RowGroups[rowGroup])
	defer p.release()
	if root.kind == pruneFalse {
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

// pruneColumn is one filter column in one row group, with the structures
// read for it so far.
type pruneColumn struct {
	*fileColumn
	chunk *parquet.ColumnChunk
	// usable is false when the row group has no chunk for the column here
	// (a corrupt footer, or one stored in another file).
	usable bool
	// boundsUntrusted: the writer is known to store wrong min/max for this
	// chunk, so only null counts are used.
	boundsUntrusted bool

	statsDone bool
	stats     bounds.Summary
	dictRead  bool
	dict      *pruneDictionary
	bloomRead bool
	bloom     *parquet.SplitBlockBloom
	pagesRead bool
	pages     *pruneColumnPages
}

// required reports whether the column cannot hold nulls.
func (c *pruneColumn) required() bool { return c.node.DefLevel == 0 }

// verdicts are one predicate's answers in one row group, cached per
// mechanism: a false one rules the predicate out in the whole row group.
type verdicts struct{ stats, dict, bloom verdict }

type verdict uint8

const (
	notChecked verdict = iota
	mayMatch
	noMatch
)

type rowGroupPruner struct {
	f        *parquet.File
	rg       *parquet.RowGroup
	cols     []pruneColumn // by fileColumn.index
	verdicts []verdicts    // by prunePredicate.index
}

func (ff *Filter) newRowGroupPruner(rg *parquet.RowGroup) *rowGroupPruner {
	p := &rowGroupPruner{f: ff.f, rg: rg, cols: make([]pruneColumn, len(ff.cols)), verdicts: make([]verdicts, len(ff.preds))}
	for i, fc := range ff.cols {
		c := &p.cols[i]
		c.fileColumn = fc
		if fc.node.Leaf < len(rg.Columns) {
			c.chunk = &rg.Columns[fc.node.Leaf]
			c.usable = c.chunk.FilePath == ""
			c.boundsUntrusted = knownBadFloatBounds(ff.f.CreatedBy, c.chunk)
		}
	}
	return p
}

// column is the row group's state for a predicate's column.
func (p *rowGroupPruner) column(pred *prunePredicate) *pruneColumn { return &p.cols[pred.col.index] }

// summary is what the chunk's statistics say of the column, read once.
func (c *pruneColumn) summary(rows int64) *bounds.Summary {
	if !c.statsDone {
		c.stats, c.statsDone = chunkSummary(c, rows), true
	}
	return &c.stats
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
	c := p.column(pred)
	if !c.usable {
		return true, nil
	}
	v := &p.verdicts[pred.index]
	if level&levelStatistics != 0 {
		if v.stats == notChecked {
			v.stats = verdictOf(pred.leaf.MightMatch(c.summary(p.rg.NumRows)))
		}
		if v.stats == noMatch {
			return false, nil
		}
	}
	if level&levelDictionary != 0 {
		if v.dict == notChecked {
			ok, err := p.dictionaryMayMatch(pred, c)
			if err != nil {
				return false, err
			}
			v.dict = verdictOf(ok)
		}
		if v.dict == noMatch {
			return false, nil
		}
	}
	if level&levelBloom != 0 {
		if v.bloom == notChecked {
			ok, err := p.bloomMayMatch(pred, c)
			if err != nil {
				return false, err
			}
			v.bloom = verdictOf(ok)
		}
		if v.bloom == noMatch {
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
	for i := range p.cols {
		c := &p.cols[i]
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
func (p *rowGroupPruner) skipAll(reason string) Result {
	res := Result{Skip: true, Reason: reason}
	for i := range p.cols {
		c := &p.cols[i]
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
