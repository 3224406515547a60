package scan

import (
	"errors"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/parquet"
)

// Late materialisation: with a row filter or deletes, a row group is read
// column by column. Deleted positions are dropped first, then rows whose
// equality-delete keys match, then the filter's columns are decoded one
// conjunct at a time in the order that has proved cheapest per dropped
// row; the payload columns are then decoded only for the rows that
// survive, and not at all for batches where none does.

// conjunct is one AND-ed part of the filter, with what it has cost.
type conjunct struct {
	node  *filterNode
	plans []int // plan indexes of the columns it reads
	// nanos spent decoding its columns and evaluating it, and the rows it
	// saw and dropped: its rank is the cost per dropped row.
	nanos, seen, dropped int64
	// tested: its column's reader evaluates it (filter_tested.go);
	// values: and returns the passing rows' values, which the window
	// needs afterwards.
	tested, values bool
}

// rank orders conjuncts by measured cost per dropped row (Velox's
// adaptive filter ordering); one that has dropped nothing yet ranks by
// cost alone, after those that have.
func (c *conjunct) rank() float64 {
	return float64(c.nanos+1) / float64(c.dropped+1)
}

// lateRead is one row group's column readers: one per decoded column, all
// stepping through the same batch windows.
type lateRead struct {
	readers []*parquet.BatchReader // by request index
	// consumed marks the readers that have read the current window.
	consumed []bool
	// cols holds, by plan index, the columns decoded in this window so
	// far, built to the table's types; each holds the rows that sel[p]
	// selected when it was decoded (nil sel: every row of the window),
	// selKept[p] of them. Selections only shrink within a window.
	cols    []arrow.Array
	sel     [][]byte
	selKept []int
	// rowSel is the current selection prepared for decoding, valid for
	// selFor kept rows (selections only shrink within a window).
	rowSel   parquet.RowSelection
	selFor   int
	selValid bool
}

func (l *lateRead) close() {
	for _, br := range l.readers {
		br.Close()
	}
	l.releaseWindow()
}

func (l *lateRead) releaseWindow() {
	for i, a := range l.cols {
		if a != nil {
			a.Release()
			l.cols[i] = nil
		}
	}
	clear(l.consumed)
	l.selValid = false
}

// splitConjuncts lists the filter's top-level AND-ed parts with the plans
// each reads.
func (r *taskReader) splitConjuncts() {
	r.conjuncts = r.conjuncts[:0]
	var split func(n *filterNode)
	split = func(n *filterNode) {
		if n.kind == filterAnd {
			split(n.left)
			split(n.right)
			return
		}
		r.conjuncts = append(r.conjuncts, &conjunct{node: n, plans: n.plans(nil)})
	}
	split(r.filter.root)
	r.conjuncts = mergeSameColumn(r.conjuncts)
}

// startLate opens one reader per decoded column for the row group.
func (r *taskReader) startLate(req parquet.ReadRequest) error {
	l := &lateRead{
		consumed: make([]bool, len(r.request)),
		cols:     make([]arrow.Array, len(r.plans)),
		sel:      make([][]byte, len(r.plans)),
		selKept:  make([]int, len(r.plans)),
	}
	for _, col := range r.request {
		one := req
		one.Columns = []parquet.Column{col}
		br, err := r.file.NewBatchReader(one)
		if err != nil {
			l.close()
			return err
		}
		l.readers = append(l.readers, br)
	}
	// The columns filters and deletes read are fetched now; the payload's
	// only when a window first keeps a row, so a row group the filter
	// empties costs none of its bytes.
	// Deletes alone leave most rows standing: everything is fetched now,
	// and the next row group's bytes while this one decodes.
	steps := r.filterColumns()
	for j, br := range l.readers {
		br.Prefetch(false, r.filter != nil && !steps[j])
	}
	r.late = l
	r.setTests(l)
	if r.filter == nil {
		var leaves []*parquet.LeafReader
		for _, br := range l.readers {
			leaves = append(leaves, br.Leaves...)
		}
		r.readAhead(leaves)
	}
	return nil
}

// filterColumns marks the request indexes the filter's conjuncts and the
// equality deletes read.
func (r *taskReader) filterColumns() []bool {
	steps := make([]bool, len(r.request))
	mark := func(p int) {
		if d := r.decoded[p]; d >= 0 {
			steps[d] = true
		}
	}
	for _, c := range r.conjuncts {
		for _, p := range c.plans {
			mark(p)
		}
	}
	for _, cols := range r.eqColumns {
		for _, p := range cols {
			mark(p)
		}
	}
	return steps
}

// nextLate returns the next batch of the row group with survivors; io.EOF
// when the row group has no more.
func (r *taskReader) nextLate() (arrow.RecordBatch, error) {
	l := r.late
	for {
		n, first, ok := l.readers[0].PeekRows()
		if !ok {
			return nil, io.EOF
		}
		start := r.rgStart + first
		rec, err := r.lateWindow(l, start, n)
		l.releaseWindow()
		if err != nil || rec != nil {
			return rec, err
		}
	}
}

// lateWindow filters one window and, if any row survives, decodes the
// payload for the survivors; nil when none does. Each step reads and
// evaluates only the rows the steps before it kept.
func (r *taskReader) lateWindow(l *lateRead, start int64, n int) (arrow.RecordBatch, error) {
	keep, kept := r.resetKeep(n)
	r.pos = start
	view := make([]arrow.Array, len(r.plans))
	atKeep := func(plans []int) error {
		for _, p := range plans {
			c, err := r.columnAtKeep(l, p, keep, n, kept)
			if err != nil {
				return err
			}
			view[p] = c
		}
		return nil
	}
	if ds := r.deletes; ds != nil {
		before := kept
		kept = clearDeletedPositions(ds, keep, start, n, kept)
		for e := range ds.equality {
			if kept == 0 {
				break
			}
			if err := atKeep(r.eqColumns[e]); err != nil {
				return nil, err
			}
			local, all := r.passBuffer(kept)
			left, err := r.probeEquality(e, view, local, all)
			if err != nil {
				return nil, err
			}
			if left < all {
				kept = narrowKeep(keep, n, kept, local)
			}
		}
		r.counters.rowsDeleted.Add(int64(before - kept))
	}
	before := kept
	for _, c := range r.conjuncts {
		if kept == 0 {
			break
		}
		t0 := time.Now()
		var now int
		if p := c.plans; c.tested && l.cols[p[0]] == nil && !l.consumed[r.decoded[p[0]]] {
			var err error
			if now, err = r.evalTested(l, c, keep, n, kept); err != nil {
				return nil, err
			}
		} else {
			if err := atKeep(c.plans); err != nil {
				return nil, err
			}
			pass, err := r.filter.eval(c.node, view, kept)
			if err != nil {
				return nil, err
			}
			now = narrowKeep(keep, n, kept, pass)
		}
		c.nanos += time.Since(t0).Nanoseconds()
		c.seen += int64(kept)
		c.dropped += int64(kept - now)
		kept = now
	}
	r.counters.rowsFiltered.Add(int64(before - kept))
	slices.SortStableFunc(r.conjuncts, func(a, b *conjunct) int {
		ra, rb := a.rank(), b.rank()
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	if kept == 0 {
		return nil, r.skipUnread(l)
	}
	return r.materialise(l, keep, start, n, kept)
}

// passBuffer is an all-set bitmap of n bits, reused.
func (r *taskReader) passBuffer(n int) ([]byte, int) {
	words := (n + 7) / 8
	if cap(r.passBuf) < words {
		r.passBuf = make([]byte, words)
	}
	b := r.passBuf[:words]
	for i := range b {
		b[i] = 0xff
	}
	return b, n
}

// narrowKeep clears the bits of keep (n rows, kept of them set) whose
// rank among the set bits is clear in pass, and returns how many stay set.
func narrowKeep(keep []byte, n, kept int, pass []byte) int {
	if kept == n {
		// every row was kept: pass is the new keep, word for word
		copy(keep, pass[:(n+7)/8])
		return kernels.CountBits(keep, 0, n)
	}
	return kernels.DepositBits(keep, n, kept, pass)
}

// columnAtKeep returns plan p's column holding exactly the window's rows
// keep selects (kept of n): decoded for them alone the first time, cut
// down from an earlier, wider decoding after that.
func (r *taskReader) columnAtKeep(l *lateRead, p int, keep []byte, n, kept int) (arrow.Array, error) {
	if c := l.cols[p]; c != nil {
		if l.selKept[p] == kept {
			return c, nil
		}
		var narrowed arrow.Array
		if l.selKept[p] == n {
			// The column holds the whole window: the window's selection,
			// which the payload's decoding shares, cuts it down.
			sel, err := l.selection(keep, n, kept)
			if err != nil {
				return nil, err
			}
			if narrowed, err = kernels.Select(c, sel.Selection(), r.mem); err != nil {
				return nil, err
			}
		} else {
			var err error
			sub := subSelection(l.sel[p], n, keep, l.selKept[p])
			if narrowed, err = kernels.Filter(c, sub, r.mem); err != nil {
				return nil, err
			}
		}
		c.Release()
		l.cols[p] = narrowed
		l.remember(p, keep, n, kept)
		return narrowed, nil
	}
	stored, err := r.decodeAtKeep(l, p, keep, n, kept)
	if err != nil {
		return nil, err
	}
	var built arrow.Array
	if stored == nil {
		built, err = r.plans[p].missing(kept, r.mem)
	} else {
		built, err = r.plans[p].build(stored, r.mem)
		stored.Release()
	}
	if err != nil {
		return nil, err
	}
	l.cols[p] = built
	l.remember(p, keep, n, kept)
	return built, nil
}

// decodeAtKeep decodes plan p's file column for the rows keep selects;
// nil when the file lacks the column.
func (r *taskReader) decodeAtKeep(l *lateRead, p int, keep []byte, n, kept int) (arrow.Array, error) {
	req := r.decoded[p]
	if req < 0 {
		return nil, nil
	}
	var b *parquet.Batch
	var err error
	if kept == n {
		b, err = l.readers[req].Next()
	} else {
		var sel *parquet.RowSelection
		if sel, err = l.selection(keep, n, kept); err == nil {
			b, err = l.readers[req].NextSelected(sel)
		}
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("a column ended before its row group")
		}
		return nil, err
	}
	l.consumed[req] = true
	col := b.Columns[0]
	col.Retain()
	b.Release()
	return col, nil
}

// selection is keep prepared for decoding, once per window and selection
// and shared by every column decoded for it.
func (l *lateRead) selection(keep []byte, n, kept int) (*parquet.RowSelection, error) {
	if l.selFor == kept && l.selValid {
		return &l.rowSel, nil
	}
	if err := l.rowSel.Set(keep, n); err != nil {
		return nil, err
	}
	l.selFor, l.selValid = kept, true
	return &l.rowSel, nil
}

func (l *lateRead) remember(p int, keep []byte, n, kept int) {
	l.selKept[p] = kept
	if kept == n {
		l.sel[p] = l.sel[p][:0]
		return
	}
	l.sel[p] = append(l.sel[p][:0], keep[:(n+7)/8]...)
}

// subSelection is, for the rows outer selected (outerKept of n; empty
// outer: all n), the bitmap of those inner still selects.
func subSelection(outer []byte, n int, inner []byte, outerKept int) []byte {
	return kernels.ExtractBits(outer, n, inner, outerKept)
}

// skipUnread steps every reader that has not read the window past it.
func (r *taskReader) skipUnread(l *lateRead) error {
	for req, br := range l.readers {
		if !l.consumed[req] {
			if _, err := br.Skip(); err != nil {
				return err
			}
		}
	}
	return nil
}

// materialise builds the output batch of the window's survivors: payload
// columns decoded for them alone, filter columns cut down to them.
func (r *taskReader) materialise(l *lateRead, keep []byte, start int64, n, kept int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, r.visible)
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	sel := keep
	if kept == n {
		sel = nil
	}
	for i, p := range r.plans[:r.visible] {
		var err error
		if p.meta == FieldIDPos || p.meta == FieldIDRowID || p.meta == FieldIDLastUpdatedSequenceNumber {
			var stored arrow.Array
			if stored, err = r.decodeAtKeep(l, i, keep, n, kept); err == nil {
				cols[i], err = r.lineageSelected(p, stored, start, n, sel)
				if stored != nil {
					stored.Release()
				}
			}
		} else {
			var c arrow.Array
			if c, err = r.columnAtKeep(l, i, keep, n, kept); err == nil {
				c.Retain()
				cols[i] = c
			}
		}
		if err != nil {
			release()
			return nil, err
		}
	}
	if err := r.skipUnread(l); err != nil {
		release()
		return nil, err
	}
	rec := array.NewRecordBatch(r.schema, cols, int64(kept))
	release()
	return rec, nil
}

// lineageSelected is lineage for the rows of a window that sel keeps (nil:
// every row); stored, when given, holds just those rows.
func (r *taskReader) lineageSelected(p *columnPlan, stored arrow.Array, start int64, n int, sel []byte) (arrow.Array, error) {
	if sel == nil {
		return r.lineage(p, stored, start, n)
	}
	// Computed for the whole window, then cut down to the survivors; a
	// stored column's values win over them.
	whole, err := r.lineage(p, nil, start, n)
	if err != nil {
		return nil, err
	}
	defer whole.Release()
	computed, err := kernels.Filter(whole, sel, r.mem)
	if err != nil || stored == nil {
		return computed, err
	}
	defer computed.Release()
	s, err := p.build(stored, r.mem)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	if computed.NullN() == computed.Len() {
		s.Retain()
		return s, nil
	}
	return kernels.CoalesceInt64(s.(*array.Int64), computed.(*array.Int64), r.mem)
}
