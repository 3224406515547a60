package reader

// The unordered parallel scan: workers take tasks in plan order and hand
// each batch over as soon as it is decoded, so a slow task holds up only
// its own worker, not every batch behind it.

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// unorderedReader returns batches in the order workers produce them.
// Memory is bounded as in parallelReader: `threads` tasks decode at once
// and at most batchesInFlight batches per thread wait for the consumer.
type unorderedReader struct {
	refs   atomic.Int64
	scan   *Scan
	cancel context.CancelFunc
	// ctx ends when the caller cancels the scan (or it is stopped); a
	// scan cut short that way reports the cancellation, not a short end.
	ctx       context.Context
	out       chan taskResult
	cur       arrow.RecordBatch
	remaining int64
	err       error
	ahead     *openAhead
	closeOnce sync.Once
}

func newUnorderedReader(ctx context.Context, s *Scan, alloc memory.Allocator, threads int) *unorderedReader {
	ctx, cancel := context.WithCancel(ctx)
	r := &unorderedReader{scan: s, ctx: ctx, cancel: cancel, remaining: -1, out: make(chan taskResult, threads*batchesInFlight),
		ahead: newOpenAhead(ctx, s, threads)}
	if s.Options.Limit != nil {
		r.remaining = *s.Options.Limit
	}
	r.refs.Store(1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(threads, len(s.tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(s.tasks) || !s.decodeTask(ctx, i, *s.tasks[i], alloc, r.ahead, r.send(ctx)) {
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(r.out)
	}()
	return r
}

func (r *unorderedReader) Retain() { r.refs.Add(1) }

func (r *unorderedReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.stop()
	}
}

// stop cancels the workers, then drains and releases what they produced
// until the last one is done.
func (r *unorderedReader) stop() {
	r.closeOnce.Do(func() {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.cancel()
		for res := range r.out {
			if res.rec != nil {
				res.rec.Release()
			}
		}
		// The channel closes when the last worker is done.
		r.ahead.close()
	})
}

func (r *unorderedReader) Schema() *arrow.Schema          { return r.scan.schema }
func (r *unorderedReader) Err() error                     { return r.err }
func (r *unorderedReader) Record() arrow.RecordBatch      { return r.cur }
func (r *unorderedReader) RecordBatch() arrow.RecordBatch { return r.cur }

func (r *unorderedReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for r.err == nil && r.remaining != 0 {
		res, ok := <-r.out
		if !ok {
			break
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

// send hands a worker's result to the consumer, giving up when the scan
// ends. Errors wait for room like batches do: the consumer drains until
// every worker is done.
func (r *unorderedReader) send(ctx context.Context) func(taskResult) bool {
	return func(res taskResult) bool {
		if res.err != nil {
			r.out <- res
			return true
		}
		select {
		case r.out <- res:
			return true
		case <-ctx.Done():
			return false
		}
	}
}
