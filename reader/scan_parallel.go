package reader

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchesInFlight is how many decoded batches a task may hold ahead of the
// consumer: with `threads` tasks decoding at once, it bounds memory.
const batchesInFlight = 2

// parallelReader decodes up to `threads` tasks at once and returns their
// batches in task order (which is also task group order), so results are
// deterministic.
type parallelReader struct {
	refs      atomic.Int64
	scan      *Scan
	cancel    context.CancelFunc
	results   []chan taskResult
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
	r := &parallelReader{scan: s, cancel: cancel, remaining: -1, ahead: newOpenAhead(ctx, s, threads)}
	if s.Options.Limit != nil {
		r.remaining = *s.Options.Limit
	}
	r.refs.Store(1)
	r.results = make([]chan taskResult, len(s.tasks))
	for i := range r.results {
		r.results[i] = make(chan taskResult, batchesInFlight)
	}
	// A slot is taken when a task starts and given back when the consumer
	// has taken its last batch, not when it finishes decoding: at most
	// `threads` tasks run or wait ahead of the consumer, which bounds
	// memory and lets filters added to the scan reach every later task.
	slots := make(chan struct{}, threads)
	r.slots = slots
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for i, task := range s.tasks {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				for _, ch := range r.results[i:] {
					close(ch)
				}
				return
			}
			r.wg.Add(1)
			go func(i int, task Task, out chan<- taskResult) {
				defer func() { r.wg.Done(); close(out) }()
				s.decodeTask(ctx, i, task, alloc, r.ahead, out)
			}(i, *task, r.results[i])
		}
	}()
	return r
}

// decodeTask runs the scan's task i, sending its batches in order; false
// when it stopped on an error or because ctx ended. The consumer drains
// out until every worker is done, so a send only waits for room.
func (s *Scan) decodeTask(ctx context.Context, i int, task Task, alloc memory.Allocator, ahead *openAhead, out chan<- taskResult) bool {
	// Each task may return at most the scan's limit; the consumer trims.
	task.Limit = s.Options.Limit
	task.opened = ahead.take(i)
	ahead.after(i)
	tr, err := s.openTask(ctx, i, task, alloc)
	if err != nil {
		out <- taskResult{err: err}
		return false
	}
	if tr == nil {
		return true // an added filter ruled the file out
	}
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		rec.Retain()
		select {
		case out <- taskResult{rec: rec}:
		case <-ctx.Done():
			rec.Release()
			return false
		}
	}
	if err := tr.Err(); err != nil {
		if ctx.Err() == nil {
			out <- taskResult{err: err}
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

// stop cancels the workers, then drains and releases what they produced.
func (r *parallelReader) stop() {
	r.closeOnce.Do(func() {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.cancel()
		for _, ch := range r.results {
			for res := range ch {
				if res.rec != nil {
					res.rec.Release()
				}
			}
		}
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
	for r.err == nil && r.remaining != 0 && r.next < len(r.results) {
		res, ok := <-r.results[r.next]
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
		rec := res.rec
		r.cur = trimToLimit(rec, &r.remaining)
		return true
	}
	r.stop()
	return false
}
