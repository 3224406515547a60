package scan

import (
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/parquet"
)

// Conjuncts evaluated by the column's reader (parquet.BatchReader's
// NextTested): a conjunct reading one flat column hands the reader a test
// that builds the values to the table's type and runs the conjunct's
// kernels on them, so a dictionary-encoded chunk is compared once per
// dictionary entry and its rows only look their entry's verdict up. The
// kernels and the casts are the ones every other path uses, so the
// semantics are the same; the reader fails null rows without asking,
// which is only right for trees of comparisons that fail a null: no
// "is null", no constant true or false.

// readerTests enables the readers' evaluation; tests turn it off to
// compare with decoding and comparing.
var readerTests = func() *atomic.Bool { var b atomic.Bool; b.Store(true); return &b }()

// mergeSameColumn joins the conjuncts that read one and the same column
// into one, so that column's reader evaluates all of them in one pass
// (Q6's date range is two predicates on l_shipdate).
func mergeSameColumn(cs []*conjunct) []*conjunct {
	out := cs[:0]
	byPlan := map[int]*conjunct{}
	for _, c := range cs {
		if len(c.plans) != 1 {
			out = append(out, c)
			continue
		}
		if first, ok := byPlan[c.plans[0]]; ok {
			first.node = &filterNode{kind: filterAnd, left: first.node, right: c.node}
			continue
		}
		byPlan[c.plans[0]] = c
		out = append(out, c)
	}
	return out
}

// failsNulls reports whether n is a tree of comparisons of one column,
// each failing a null, and so fails every null row.
func failsNulls(n *filterNode) bool {
	switch n.kind {
	case filterAnd, filterOr:
		return failsNulls(n.left) && failsNulls(n.right)
	case filterPredicate:
		return n.path == nil && n.op != kernels.CmpIsNull
	}
	return false
}

// setTests gives each conjunct that reads one flat column a test on its
// column's reader for the row group, and marks those whose values the
// window needs afterwards (an output column, or one another conjunct
// reads).
func (r *taskReader) setTests(l *lateRead) {
	for _, c := range r.conjuncts {
		c.tested, c.values = false, false
	}
	if r.filter == nil || !readerTests.Load() {
		return
	}
	for _, c := range r.conjuncts {
		if len(c.plans) != 1 || !failsNulls(c.node) {
			continue
		}
		p := c.plans[0]
		req := r.decoded[p]
		if req < 0 || r.plans[p].meta != 0 {
			continue
		}
		node, plan := c.node, r.plans[p]
		test := func(values arrow.Array, pass []byte) error {
			built, err := plan.build(values, r.mem)
			if err != nil {
				return err
			}
			defer built.Release()
			view := make([]arrow.Array, len(r.plans))
			view[p] = built
			bits, err := r.filter.eval(node, view, built.Len())
			if err != nil {
				return err
			}
			copy(pass, bits)
			return nil
		}
		if !l.readers[req].SetTest(test) {
			continue
		}
		c.tested = true
		c.values = p < r.visible || r.readElsewhere(c, p)
	}
}

// readElsewhere reports whether a conjunct other than c or the equality
// deletes read plan p.
func (r *taskReader) readElsewhere(c *conjunct, p int) bool {
	for _, o := range r.conjuncts {
		if o != c && slices.Contains(o.plans, p) {
			return true
		}
	}
	for _, cols := range r.eqColumns {
		if slices.Contains(cols, p) {
			return true
		}
	}
	return false
}

// evalTested runs a tested conjunct through its column's reader for the
// window's kept rows and narrows keep; the column's passing values, when
// wanted, become the window's decoding of it.
func (r *taskReader) evalTested(l *lateRead, c *conjunct, keep []byte, n, kept int) (int, error) {
	p := c.plans[0]
	req := r.decoded[p]
	var sel *parquet.RowSelection
	if kept < n {
		var err error
		if sel, err = l.selection(keep, n, kept); err != nil {
			return 0, err
		}
	}
	words := (kept + 7) / 8
	if cap(r.passBuf) < words {
		r.passBuf = make([]byte, words)
	}
	pass := r.passBuf[:words]
	vals, err := l.readers[req].NextTested(sel, pass, c.values)
	if err != nil {
		return 0, err
	}
	l.consumed[req] = true
	now := narrowKeep(keep, n, kept, pass)
	if vals == nil {
		return now, nil
	}
	built, err := r.plans[p].build(vals, r.mem)
	vals.Release()
	if err != nil {
		return 0, err
	}
	l.cols[p] = built
	l.remember(p, keep, n, now)
	return now, nil
}
