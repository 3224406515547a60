package prune

import (
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
)

// Page-level pruning: the column index gives each data page's bounds and
// null count, the offset index the rows it holds. A predicate keeps the
// rows of the pages that may match; AND intersects and OR unites those
// rows, whose page boundaries differ between columns.

// pruneColumnPages is a column chunk's page index, checked against its row
// group: locs has one entry per page of ci, the first page starts at row 0
// and pages start at ascending rows within the row group.
type pruneColumnPages struct {
	ci   *parquet.ColumnIndex
	locs []parquet.PageLocation
}

// pageRows returns the rows of page i.
func (pp *pruneColumnPages) pageRows(i int, rowGroupRows int64) parquet.RowRange {
	end := rowGroupRows
	if i+1 < len(pp.locs) {
		end = pp.locs[i+1].FirstRowIndex
	}
	return parquet.RowRange{Start: pp.locs[i].FirstRowIndex, End: end}
}

// columnPages reads the column's column and offset indexes, one ReadAt
// each, or returns nil when either is missing or inconsistent.
func (p *rowGroupPruner) columnPages(c *pruneColumn) (*pruneColumnPages, error) {
	if c.pagesRead {
		return c.pages, nil
	}
	c.pagesRead = true
	ch := c.chunk
	if ch.ColumnIndexLength <= 0 || ch.OffsetIndexLength <= 0 || ch.UnknownColumnOrder ||
		!p.f.SpanInFile(ch.ColumnIndexOffset, int64(ch.ColumnIndexLength)) || !p.f.SpanInFile(ch.OffsetIndexOffset, int64(ch.OffsetIndexLength)) {
		return nil, nil
	}
	ciBuf := make([]byte, ch.ColumnIndexLength)
	if ok, err := p.f.ReadFull(ciBuf, ch.ColumnIndexOffset, "column index"); !ok {
		return nil, err
	}
	ci, err := parquet.ParseColumnIndex(ciBuf)
	if err != nil {
		return nil, nil
	}
	oiBuf := parquet.GetBytes(int(ch.OffsetIndexLength))
	defer parquet.PutBytes(oiBuf)
	if ok, err := p.f.ReadFull(oiBuf, ch.OffsetIndexOffset, "offset index"); !ok {
		return nil, err
	}
	locs, err := parquet.ParseOffsetIndex(oiBuf)
	if err != nil || len(locs) == 0 || len(locs) != len(ci.NullPages) || locs[0].FirstRowIndex != 0 {
		return nil, nil
	}
	for i := 1; i < len(locs); i++ {
		if locs[i].FirstRowIndex <= locs[i-1].FirstRowIndex || locs[i].FirstRowIndex >= p.rg.NumRows {
			return nil, nil
		}
	}
	c.pages = &pruneColumnPages{ci: ci, locs: locs}
	return c.pages, nil
}

// pageSummary describes page i of a column from its column index.
func (c *pruneColumn) pageSummary(pp *pruneColumnPages, i int, rows int64) bounds.Summary {
	s := bounds.Summary{Values: rows, HasValues: true, Exact: c.dec.domain != bounds.DomainBytes}
	if c.required() {
		s.HasNulls = true
	}
	ci := pp.ci
	if ci.NullCounts != nil && ci.NullCounts[i] >= 0 && ci.NullCounts[i] <= rows {
		s.Nulls, s.HasNulls = ci.NullCounts[i], true
	}
	if ci.NullPages[i] {
		s.Nulls, s.HasNulls = rows, true
		return s
	}
	c.setBounds(&s, ci.MinValues[i], ci.MaxValues[i], true, true)
	return s
}

// pageRanges evaluates the filter to the rows that may match. Predicates
// that the chunk-level mechanisms in level ruled out keep no rows; those
// without a page index keep them all.
func (p *rowGroupPruner) pageRanges(n *pruneNode, level pruneLevel) ([]parquet.RowRange, error) {
	all := []parquet.RowRange{{Start: 0, End: p.rg.NumRows}}
	switch n.kind {
	case pruneTrue:
		return all, nil
	case pruneFalse:
		return nil, nil
	case pruneAnd, pruneOr:
		l, err := p.pageRanges(n.left, level)
		if err != nil {
			return nil, err
		}
		if n.kind == pruneAnd && len(l) == 0 {
			return nil, nil
		}
		r, err := p.pageRanges(n.right, level)
		if err != nil {
			return nil, err
		}
		if n.kind == pruneAnd {
			return IntersectRowRanges(l, r), nil
		}
		return unionRowRanges(l, r), nil
	}
	may, err := p.leafMayMatch(n.pred, level)
	if err != nil || !may {
		return nil, err
	}
	c := p.column(n.pred)
	if !c.usable {
		return all, nil
	}
	pp, err := p.columnPages(c)
	if err != nil || pp == nil {
		return all, err
	}
	var out []parquet.RowRange
	for i := range pp.locs {
		rows := pp.pageRows(i, p.rg.NumRows)
		s := c.pageSummary(pp, i, rows.End-rows.Start)
		if !n.pred.leaf.MightMatch(&s) {
			continue
		}
		if k := len(out) - 1; k >= 0 && out[k].End == rows.Start {
			out[k].End = rows.End
		} else {
			out = append(out, rows)
		}
	}
	return out, nil
}

// IntersectRowRanges intersects two ascending, disjoint range lists.
func IntersectRowRanges(a, b []parquet.RowRange) []parquet.RowRange {
	var out []parquet.RowRange
	for i, j := 0, 0; i < len(a) && j < len(b); {
		start, end := max(a[i].Start, b[j].Start), min(a[i].End, b[j].End)
		if start < end {
			out = append(out, parquet.RowRange{Start: start, End: end})
		}
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// unionRowRanges unites two ascending, disjoint range lists, merging ranges
// that touch.
func unionRowRanges(a, b []parquet.RowRange) []parquet.RowRange {
	out := make([]parquet.RowRange, 0, len(a)+len(b))
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var r parquet.RowRange
		if j >= len(b) || (i < len(a) && a[i].Start <= b[j].Start) {
			r, i = a[i], i+1
		} else {
			r, j = b[j], j+1
		}
		if k := len(out) - 1; k >= 0 && r.Start <= out[k].End {
			out[k].End = max(out[k].End, r.End)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// pagesOutside counts the pages of the filter's columns (those whose
// offset index was read) that hold no row of ranges, and their bytes.
func (p *rowGroupPruner) pagesOutside(ranges []parquet.RowRange) (pages, bytes int64) {
	for i := range p.cols {
		pp := p.cols[i].pages
		if pp == nil {
			continue
		}
		k := 0
		for i := range pp.locs {
			rows := pp.pageRows(i, p.rg.NumRows)
			for k < len(ranges) && ranges[k].End <= rows.Start {
				k++
			}
			if k < len(ranges) && ranges[k].Start < rows.End {
				continue
			}
			pages++
			bytes += int64(max(pp.locs[i].CompressedPageSize, 0))
		}
	}
	return pages, bytes
}
