package reader

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Reader streams the scan's batches: every task in order, at most
// Options.Limit rows, batches allocated from alloc (pass C memory, e.g.
// mallocator, when batches leave Go through the C Data Interface).
//
// With Options.Threads > 1 (the default is every core), several tasks
// decode at once; batches still come in task order unless Options.Ordered
// is false.
func (s *Scan) Reader(ctx context.Context, alloc memory.Allocator) (array.RecordReader, error) {
	if threads := s.Options.threads(); threads > 1 && len(s.tasks) > 1 {
		if !s.Options.ordered() {
			return newUnorderedReader(ctx, s, alloc, threads), nil
		}
		return newParallelReader(ctx, s, alloc, threads), nil
	}
	r := &scanReader{ctx: ctx, scan: s, mem: alloc, remaining: -1, ahead: newOpenAhead(ctx, s, 1)}
	if s.Options.Limit != nil {
		r.remaining = *s.Options.Limit
	}
	r.refs.Store(1)
	return r, nil
}

// scanReader chains the tasks' readers, carrying the limit across them.
type scanReader struct {
	refs      atomic.Int64
	ctx       context.Context
	scan      *Scan
	mem       memory.Allocator
	next      int
	cur       *taskReader
	remaining int64
	err       error
	// ahead opens the next task's file while this one decodes.
	ahead *openAhead
}

func (r *scanReader) Retain() { r.refs.Add(1) }

func (r *scanReader) Release() {
	if r.refs.Add(-1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.ahead.close()
	}
}

func (r *scanReader) Schema() *arrow.Schema { return r.scan.schema }
func (r *scanReader) Err() error            { return r.err }

func (r *scanReader) Record() arrow.RecordBatch { return r.RecordBatch() }

func (r *scanReader) RecordBatch() arrow.RecordBatch {
	if r.cur == nil {
		return nil
	}
	return r.cur.RecordBatch()
}

func (r *scanReader) Next() bool {
	for r.err == nil && r.remaining != 0 {
		if r.cur != nil {
			if r.cur.Next() {
				if r.remaining > 0 {
					r.remaining -= r.cur.RecordBatch().NumRows()
				}
				return true
			}
			r.err = r.cur.Err()
			r.cur.Release()
			r.cur = nil
			continue
		}
		if r.next >= len(r.scan.tasks) {
			return false
		}
		i := r.next
		task := *r.scan.tasks[i]
		r.next++
		if r.remaining >= 0 {
			limit := r.remaining
			task.Limit = &limit
		}
		task.opened = r.ahead.take(i)
		r.ahead.after(i)
		tr, err := r.scan.openTask(r.ctx, i, task, r.mem)
		if err != nil {
			r.err = err
			return false
		}
		r.cur = tr // nil when an added filter ruled the file out
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	return false
}
