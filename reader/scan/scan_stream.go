package scan

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// workerStream is the consumer's side of a parallel scan, shared by the
// ordered and the unordered reader: the reference count, the batch being
// returned, the limit left, the error, and stopping once. The reader
// supplies pull (the next result in its order; false when its workers are
// done) and halt (stop the workers, after the context is cancelled, and
// release what they produced).
type workerStream struct {
	refs   atomic.Int64
	scan   *Scan
	cancel context.CancelFunc
	// ctx ends when the caller cancels the scan (or it is stopped); a
	// scan cut short that way reports the cancellation, not a short end.
	ctx       context.Context
	ahead     *openAhead
	cur       arrow.RecordBatch
	remaining int64
	err       error
	closeOnce sync.Once
	pull      func() (taskResult, bool)
	halt      func()
	// delivered, when set, hears the rows the limit still allows after
	// each batch is handed out.
	delivered func(remaining int64)
}

type taskResult struct {
	rec arrow.RecordBatch
	err error
}

// start readies the stream for a scan decoded by `threads` workers and
// returns the context the workers run under.
func (w *workerStream) start(ctx context.Context, s *Scan, threads int) context.Context {
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.scan, w.remaining, w.ahead = s, -1, newOpenAhead(w.ctx, s, threads)
	if s.Options.Limit != nil {
		w.remaining = *s.Options.Limit
	}
	w.refs.Store(1)
	return w.ctx
}

func (w *workerStream) Retain() { w.refs.Add(1) }

func (w *workerStream) Release() {
	if w.refs.Add(-1) == 0 {
		w.stop()
	}
}

// stop cancels the workers, lets the reader halt them and release what
// they produced, and closes the files opened ahead.
func (w *workerStream) stop() {
	w.closeOnce.Do(func() {
		if w.cur != nil {
			w.cur.Release()
			w.cur = nil
		}
		w.cancel()
		w.halt()
		w.ahead.close()
	})
}

func (w *workerStream) Schema() *arrow.Schema          { return w.scan.schema }
func (w *workerStream) Err() error                     { return w.err }
func (w *workerStream) Record() arrow.RecordBatch      { return w.cur }
func (w *workerStream) RecordBatch() arrow.RecordBatch { return w.cur }

func (w *workerStream) Next() bool {
	if w.cur != nil {
		w.cur.Release()
		w.cur = nil
	}
	for w.err == nil && w.remaining != 0 {
		res, ok := w.pull()
		if !ok {
			break
		}
		if res.err != nil {
			w.err = res.err
			break
		}
		w.cur = trimToLimit(res.rec, &w.remaining)
		if w.delivered != nil {
			w.delivered(w.remaining)
		}
		return true
	}
	if w.err == nil && w.remaining != 0 && w.ctx.Err() != nil {
		w.err = w.ctx.Err()
	}
	w.stop()
	return false
}
