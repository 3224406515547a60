package reader

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// tasksAhead is how many tasks per thread an ordered scan may have
// started ahead of the one it returns.
const tasksAhead = 2

// batchesInFlight is how many decoded batches the task being returned may
// hold ahead of the consumer (and, in an unordered scan, each worker).
const batchesInFlight = 2

// parallelReader decodes up to `threads` tasks at once and returns their
// batches in task order (which is also task group order), so results are
// deterministic. Tasks after the one being returned buffer their batches
// within the scan's buffer_bytes.
type parallelReader struct {
	refs   atomic.Int64
	scan   *Scan
	cancel context.CancelFunc
	// ctx ends when the caller cancels the scan (or it is stopped); a
	// scan cut short that way reports the cancellation, not a short end.
	ctx       context.Context
	buf       *orderedBuffer
	next      int
	cur       arrow.RecordBatch
	remaining int64
	err       error
	wg        sync.WaitGroup
	slots     chan struct{}
	ahead     *openAhead
	closeOnce sync.Once
}

type taskResult struct {
	rec arrow.RecordBatch
	err error
}

func newParallelReader(ctx context.Context, s *Scan, alloc memory.Allocator, threads int) *parallelReader {
	ctx, cancel := context.WithCancel(ctx)
	r := &parallelReader{scan: s, ctx: ctx, cancel: cancel, remaining: -1, ahead: newOpenAhead(ctx, s, threads),
		buf: newOrderedBuffer(len(s.tasks), s.Options.BufferBytes)}
	if s.Options.Limit != nil {
		r.remaining = *s.Options.Limit
	}
	r.refs.Store(1)
	r.buf.closeOn(ctx)
	// A slot is taken when a task starts and given back when the consumer
	// has taken its last batch, not when it finishes decoding: at most
	// tasksAhead×threads tasks run or wait ahead of the consumer, which
	// lets filters added to the scan reach the later tasks (the buffer's
	// byte budget, not the slots, bounds memory). Only `threads` of them
	// decode at once; a worker that finishes a task early starts the next
	// one instead of waiting for the consumer to reach it.
	slots := make(chan struct{}, tasksAhead*threads)
	workers := make(chan struct{}, threads)
	r.slots = slots
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for i, task := range s.tasks {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			// Tasks start in order, so the one the consumer waits for
			// always holds a worker; the buffer never refuses its batches.
			select {
			case workers <- struct{}{}:
			case <-ctx.Done():
				return
			}
			r.wg.Add(1)
			go func(i int, task Task) {
				defer func() { <-workers; r.buf.finish(i); r.wg.Done() }()
				s.decodeTask(ctx, i, task, alloc, r.ahead, func(res taskResult) bool { return r.buf.push(i, res) })
			}(i, *task)
		}
	}()
	return r
}

// decodeTask runs the scan's task i, handing its batches to send in
// order; false when it stopped on an error or because send refused (the
// scan ended). A refused batch is released here.
func (s *Scan) decodeTask(ctx context.Context, i int, task Task, alloc memory.Allocator, ahead *openAhead, send func(taskResult) bool) bool {
	// Each task may return at most the scan's limit; the consumer trims.
	task.Limit = s.Options.Limit
	task.opened = ahead.take(i)
	ahead.after(i)
	tr, err := s.openTask(ctx, i, task, alloc)
	if err != nil {
		send(taskResult{err: err})
		return false
	}
	if tr == nil {
		return true // an added filter ruled the file out
	}
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		rec.Retain()
		if !send(taskResult{rec: rec}) {
			rec.Release()
			return false
		}
	}
	if err := tr.Err(); err != nil {
		if ctx.Err() == nil {
			send(taskResult{err: err})
		}
		return false
	}
	return true
}

func (r *parallelReader) Retain() { r.refs.Add(1) }

func (r *parallelReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.stop()
	}
}

// stop cancels the workers, waits for them and releases what they
// produced.
func (r *parallelReader) stop() {
	r.closeOnce.Do(func() {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.cancel()
		r.buf.close()
		r.wg.Wait()
		r.ahead.close()
	})
}

func (r *parallelReader) Schema() *arrow.Schema          { return r.scan.schema }
func (r *parallelReader) Err() error                     { return r.err }
func (r *parallelReader) Record() arrow.RecordBatch      { return r.cur }
func (r *parallelReader) RecordBatch() arrow.RecordBatch { return r.cur }

func (r *parallelReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for r.err == nil && r.remaining != 0 && r.next < len(r.scan.tasks) {
		res, ok := r.buf.pop(r.next)
		if !ok {
			r.next++
			select {
			case <-r.slots:
			default: // the task never started: the scan was cancelled
			}
			continue
		}
		if res.err != nil {
			r.err = res.err
			break
		}
		r.cur = trimToLimit(res.rec, &r.remaining)
		return true
	}
	if r.err == nil && r.remaining != 0 && r.ctx.Err() != nil {
		r.err = r.ctx.Err()
	}
	r.stop()
	return false
}
