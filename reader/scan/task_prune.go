package scan

import (
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/prune"
)

// Row-group and page pruning of a task's data file: before a row group is
// decoded, its statistics, dictionaries, bloom filters and page index are
// asked which of its rows the filter could accept.

// pruneOptions consults everything the file offers: statistics cost
// nothing (they are in the footer), the rest one read each and only when
// the cheaper structures could not decide.
var pruneOptions = prune.Options{Statistics: true, Dictionary: true, BloomFilter: true, PageIndex: true}

// pruneColumns maps each field the filter reads to the file's leaf for
// it, from the columns the filter compiled to. A field inside a struct
// has the statistics of its leaf, which count the rows where a struct
// above it is null as nulls: what the filter sees there too.
func (r *taskReader) pruneColumns(byField map[int]*filterNode) map[int]*parquet.Node {
	columns := make(map[int]*parquet.Node, len(byField))
	for id, n := range byField {
		p := r.plans[n.column]
		for _, c := range n.path {
			if p.node == nil || c >= len(p.children) {
				p = nil
				break
			}
			p = p.children[c]
		}
		if p == nil {
			continue
		}
		if n := p.node; n != nil && n.Kind == parquet.KindPrimitive && len(n.Children) == 0 {
			columns[id] = n
		}
	}
	return columns
}

// pruneRowGroup asks the file which rows of the current row group the
// filter may accept; skip means none.
func (r *taskReader) pruneRowGroup() (skip bool, ranges []parquet.RowRange, err error) {
	if r.filter == nil {
		return false, nil, nil
	}
	res, err := r.filter.pruner.RowGroup(r.rowGroup, pruneOptions)
	if err != nil {
		return false, nil, err
	}
	if res.Skip {
		r.counters.rowGroupsSkipped.Add(1)
		r.counters.bytesSkipped.Add(r.requestedBytes())
		r.counters.pagesSkipped.Add(res.PagesSkipped)
		return true, nil, nil
	}
	r.counters.pagesSkipped.Add(res.PagesSkipped)
	r.counters.bytesSkipped.Add(res.BytesSkipped)
	return false, res.Ranges, nil
}

// requestedBytes is the compressed size of the current row group's chunks
// that the task would have read.
func (r *taskReader) requestedBytes() int64 {
	rg := &r.file.RowGroups[r.rowGroup]
	var total int64
	var add func(n *parquet.Node)
	add = func(n *parquet.Node) {
		if len(n.Children) == 0 {
			total += rg.Columns[n.Leaf].TotalCompressedSize
			return
		}
		for _, c := range n.Children {
			add(c)
		}
	}
	for _, c := range r.request {
		add(c.Node)
	}
	return total
}

// intersectRanges keeps the rows both range lists hold; nil stands for
// every row of the row group, so nil with nil is nil.
func intersectRanges(a, b []parquet.RowRange) []parquet.RowRange {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	if out := prune.IntersectRowRanges(a, b); out != nil {
		return out
	}
	return []parquet.RowRange{} // no row at all, which nil would not say
}
