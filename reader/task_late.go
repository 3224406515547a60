package reader

import (
	"errors"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/kernels"
)

// Late materialisation: with a row filter, a row group is read column by
// column. The filter's columns are decoded first, one conjunct at a time
// in the order that has proved cheapest per dropped row; the payload
// columns are then decoded only for the rows that survive, and not at all
// for batches where none does.

// conjunct is one AND-ed part of the filter, with what it has cost.
type conjunct struct {
	expr  expr.Expr
	plans []int // plan indexes of the columns it reads
	// nanos spent decoding its columns and evaluating it, and the rows it
	// saw and dropped: its rank is the cost per dropped row.
	nanos, seen, dropped int64
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
	readers []*BatchReader // by request index
	// consumed marks the readers that have read the current window.
	consumed []bool
	// full holds, by plan index, columns built over the whole window in
	// the filter phase.
	full []arrow.Array
}

func (l *lateRead) close() {
	for _, br := range l.readers {
		br.Close()
	}
	l.releaseWindow()
}

func (l *lateRead) releaseWindow() {
	for i, a := range l.full {
		if a != nil {
			a.Release()
			l.full[i] = nil
		}
	}
	clear(l.consumed)
}

// splitConjuncts lists the filter's top-level AND-ed parts with the plans
// each reads.
func (r *taskReader) splitConjuncts() {
	var parts []expr.Expr
	var split func(e expr.Expr)
	split = func(e expr.Expr) {
		if a, ok := e.(*expr.And); ok {
			split(a.Left)
			split(a.Right)
			return
		}
		parts = append(parts, e)
	}
	split(r.filter.expr)
	r.conjuncts = r.conjuncts[:0]
	for _, p := range parts {
		c := &conjunct{expr: p}
		expr.WalkPredicates(p, func(pe expr.Expr) {
			if bp, ok := pe.(*expr.BoundPredicate); ok {
				if idx, ok := r.filter.column[bp.FieldID]; ok && !slices.Contains(c.plans, idx) {
					c.plans = append(c.plans, idx)
				}
			}
		})
		r.conjuncts = append(r.conjuncts, c)
	}
}

// startLate opens one reader per decoded column for the row group.
func (r *taskReader) startLate(req ReadRequest) error {
	l := &lateRead{consumed: make([]bool, len(r.request)), full: make([]arrow.Array, len(r.plans))}
	for _, col := range r.request {
		one := req
		one.Columns = []Column{col}
		br, err := r.file.NewBatchReader(one)
		if err != nil {
			l.close()
			return err
		}
		l.readers = append(l.readers, br)
	}
	r.late = l
	return nil
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
// payload for the survivors; nil when none does.
func (r *taskReader) lateWindow(l *lateRead, start int64, n int) (arrow.RecordBatch, error) {
	keep, kept := r.resetKeep(n)
	r.pos = start
	ds := r.deletes
	if ds != nil {
		before := kept
		kept = clearDeletedPositions(ds, keep, start, n, kept)
		for e := range ds.equality {
			if kept == 0 {
				break
			}
			for _, p := range r.eqColumns[e] {
				if err := r.decodeFull(l, p, n); err != nil {
					return nil, err
				}
			}
			var err error
			if kept, err = r.probeEquality(e, l.full, keep, kept); err != nil {
				return nil, err
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
		for _, p := range c.plans {
			if err := r.decodeFull(l, p, n); err != nil {
				return nil, err
			}
		}
		pass, err := r.filter.eval(c.expr, l.full, n)
		if err != nil {
			return nil, err
		}
		for i := range keep {
			keep[i] &= pass[i]
		}
		now := kernels.CountBits(keep, 0, n)
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
		for i, br := range l.readers {
			if !l.consumed[i] {
				if _, err := br.Skip(); err != nil {
					return nil, err
				}
			}
		}
		return nil, nil
	}
	return r.materialise(l, keep, start, n, kept)
}

// decodeFull decodes plan p's column over the whole window of n rows,
// once; a column the file lacks is its constant.
func (r *taskReader) decodeFull(l *lateRead, p, n int) error {
	if l.full[p] != nil {
		return nil
	}
	req := r.decoded[p]
	if req < 0 {
		c, err := r.plans[p].missing(n, r.mem)
		l.full[p] = c
		return err
	}
	b, err := l.readers[req].Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("a column ended before the row group")
		}
		return err
	}
	defer b.Release()
	l.consumed[req] = true
	built, err := r.plans[p].build(b.Columns[0], r.mem)
	if err != nil {
		return err
	}
	l.full[p] = built
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
		var stored arrow.Array
		if req := r.decoded[i]; req >= 0 {
			switch {
			case l.full[i] != nil:
				// decoded and built in the filter phase
			case sel == nil:
				b, err := l.readers[req].Next()
				if err != nil {
					release()
					return nil, err
				}
				stored = b.Columns[0]
				stored.Retain()
				b.Release()
				l.consumed[req] = true
			default:
				b, err := l.readers[req].NextSelected(keep, kept)
				if err != nil {
					release()
					return nil, err
				}
				stored = b.Columns[0]
				stored.Retain()
				b.Release()
				l.consumed[req] = true
			}
		}
		var err error
		switch {
		case p.meta == FieldIDPos || p.meta == FieldIDRowID || p.meta == FieldIDLastUpdatedSequenceNumber:
			if stored == nil && l.full[i] != nil {
				stored, err = kernels.Filter(l.full[i], sel, r.mem)
				if err != nil {
					break
				}
			}
			cols[i], err = r.lineageSelected(p, stored, start, n, sel)
		case l.full[i] != nil:
			if sel == nil {
				cols[i] = l.full[i]
				cols[i].Retain()
			} else {
				cols[i], err = kernels.Filter(l.full[i], sel, r.mem)
			}
		case stored != nil:
			cols[i], err = p.build(stored, r.mem)
		default:
			cols[i], err = p.missing(kept, r.mem)
		}
		if stored != nil {
			stored.Release()
		}
		if err != nil {
			release()
			return nil, err
		}
	}
	// Hidden columns no conjunct needed this window still step past it.
	for req, br := range l.readers {
		if !l.consumed[req] {
			if _, err := br.Skip(); err != nil {
				release()
				return nil, err
			}
		}
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
	var whole arrow.Array
	var err error
	if stored == nil {
		whole, err = r.lineage(p, nil, start, n)
		if err != nil {
			return nil, err
		}
		defer whole.Release()
		return kernels.Filter(whole, sel, r.mem)
	}
	// Computed values only fill a stored column's nulls: compute them for
	// the whole window, cut them down, then coalesce.
	whole, err = r.lineage(p, nil, start, n)
	if err != nil {
		return nil, err
	}
	defer whole.Release()
	computed, err := kernels.Filter(whole, sel, r.mem)
	if err != nil {
		return nil, err
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
