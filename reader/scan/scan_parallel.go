package scan

import (
	"context"
	"sync"

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
//
// Its `threads` workers live for the whole scan and each claims the next
// task itself when it finishes one. An earlier design started a goroutine
// per task from a dispatcher goroutine: with every core busy decoding, the
// dispatcher and the consumer, once woken, waited for the Go scheduler to
// preempt a worker (10 ms) before they ran, so on files of a few tens of
// milliseconds of work a second thread bought nothing (issue 32: DuckDB's
// 3 M rows in six files, 0.081 → 0.114 s for two columns).
type parallelReader struct {
	workerStream
	buf  *orderedBuffer
	next int
	wg   sync.WaitGroup
	// Under mu: claimed is the next task a worker takes, reached the one
	// the consumer reads (a mirror of next), left the rows the limit
	// still allows; idle counts the workers waiting in claim for moved.
	mu      sync.Mutex
	moved   *sync.Cond
	claimed int
	reached int
	left    int64
	idle    int
	// window is how many tasks may be claimed from reached on.
	window int
}

func newParallelReader(ctx context.Context, s *Scan, alloc memory.Allocator, o StreamOptions, threads int) *parallelReader {
	// At most tasksAhead×threads tasks run or wait ahead of the consumer
	// (a task counts until the consumer has taken its last batch, not
	// until it is decoded), which lets filters added to the scan reach
	// the later tasks; the buffer's byte budget, not this window, bounds
	// memory. Only `threads` of them decode at once; a worker that
	// finishes a task early claims the next one instead of waiting for
	// the consumer to reach it.
	r := &parallelReader{buf: newOrderedBuffer(len(s.tasks), s.Options.BufferBytes), window: tasksAhead * threads}
	r.moved = sync.NewCond(&r.mu)
	r.pull, r.halt = r.pop, r.waitWorkers
	if s.Options.Limit != nil {
		r.left = *s.Options.Limit
		r.delivered = func(remaining int64) { r.move(func() { r.left = remaining }) }
	}
	ctx = r.start(ctx, s, threads)
	r.buf.closeOn(ctx)
	// Workers waiting for the consumer must see the scan end.
	context.AfterFunc(ctx, func() { r.move(nil) })
	sureBefore := s.sureBefore()
	for range min(threads, len(s.tasks)) {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for {
				i, ok := r.claim(ctx, s, sureBefore)
				if !ok {
					return
				}
				ok = s.decodeTask(ctx, i, *s.tasks[i], alloc, o, r.ahead, func(res taskResult) bool { return r.buf.push(i, res) })
				r.buf.finish(i)
				if !ok {
					// An error (the consumer stops at it) or the scan ended;
					// the tasks claimed before it have workers of their own.
					return
				}
			}
		}()
	}
	return r
}

// claim hands a worker the next task, in plan order: the task the
// consumer waits for is then always claimed, so the buffer never refuses
// its batches. It waits while the task is a window past the consumer, or
// (with a limit) while the tasks between the consumer and it are sure to
// give the rows the limit still allows: a limit 1000 scan then decodes
// one file, not one per thread and more ahead. The window moves as the
// consumer does, so tasks that give fewer rows than counted on (a filter
// added since; a wrong record count) let the next ones start again at
// full parallelism. False when the tasks or the scan ended first.
func (r *parallelReader) claim(ctx context.Context, s *Scan, sureBefore []int64) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		i := r.claimed
		if ctx.Err() != nil || i >= len(s.tasks) {
			return 0, false
		}
		if i < r.reached+r.window && (s.Options.Limit == nil || s.runtime.any() || sureBefore[i]-sureBefore[min(r.reached, i)] < r.left) {
			r.claimed++
			return i, true
		}
		r.idle++
		r.moved.Wait()
		r.idle--
	}
}

// move changes what claim waits on (nil: nothing, the scan ended) and
// wakes the workers waiting.
func (r *parallelReader) move(change func()) {
	r.mu.Lock()
	if change != nil {
		change()
	}
	if r.idle > 0 {
		r.moved.Broadcast()
	}
	r.mu.Unlock()
}

// decodeTask runs the scan's task i, handing its batches to send in
// order; false when it stopped on an error or because send refused (the
// scan ended). A refused batch is released here.
func (s *Scan) decodeTask(ctx context.Context, i int, task Task, alloc memory.Allocator, o StreamOptions, ahead *openAhead, send func(taskResult) bool) bool {
	// Each task may return at most the scan's limit; the consumer trims.
	opened := ahead.take(i)
	ahead.after(i)
	tr, err := s.openTask(ctx, i, &task, alloc, o, opened, s.Options.Limit)
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

// waitWorkers unblocks the workers (the context is cancelled), waits
// for them and releases what they buffered.
func (r *parallelReader) waitWorkers() {
	r.buf.close()
	r.wg.Wait()
}

// pop returns the next batch in task order, moving past finished tasks
// and letting workers claim the tasks that makes room for; false after
// the last task.
func (r *parallelReader) pop() (taskResult, bool) {
	for r.next < len(r.scan.tasks) {
		res, ok := r.buf.pop(r.next)
		if ok {
			return res, true
		}
		r.next++
		r.move(func() { r.reached = r.next })
	}
	return taskResult{}, false
}

// sureBefore[i] sums the sure rows of the tasks before i (len(tasks)+1
// entries), computed once.
func (s *Scan) sureBefore() []int64 {
	s.sureOnce.Do(func() {
		s.surePrefix = make([]int64, len(s.tasks)+1)
		for i, n := range s.sure {
			s.surePrefix[i+1] = s.surePrefix[i] + n
		}
	})
	return s.surePrefix
}

// limitCoveredBefore tells whether the tasks before i are sure to give the
// scan's limit, so that task i will likely never run: its file is not
// opened ahead (if the consumer does reach it, it opens then).
func (s *Scan) limitCoveredBefore(i int) bool {
	return s.Options.Limit != nil && !s.runtime.any() && s.sureBefore()[i] >= *s.Options.Limit
}
