package scan

import (
	"context"
	"sync"
	"sync/atomic"

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
	workerStream
	buf   *orderedBuffer
	next  int
	wg    sync.WaitGroup
	slots chan struct{}
	// reached mirrors next, and left the rows the limit still allows, for
	// the dispatcher, which progress wakes when either moves: each is
	// stored before the non-blocking send, and the one receiver checks
	// again after every wake, so no move is missed (awaitConsumer).
	reached  atomic.Int64
	left     atomic.Int64
	progress chan struct{}
}

func newParallelReader(ctx context.Context, s *Scan, alloc memory.Allocator, threads int) *parallelReader {
	r := &parallelReader{buf: newOrderedBuffer(len(s.tasks), s.Options.BufferBytes), progress: make(chan struct{}, 1)}
	r.pull, r.halt = r.pop, r.waitWorkers
	r.delivered = func(remaining int64) { r.left.Store(remaining); r.wake() }
	ctx = r.start(ctx, s, threads)
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
		if s.Options.Limit != nil {
			r.left.Store(*s.Options.Limit)
		}
		sureBefore := s.sureBefore()
		for i, task := range s.tasks {
			if s.Options.Limit != nil && !r.awaitConsumer(ctx, s, i, sureBefore) {
				return
			}
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

// awaitConsumer holds task i back while the tasks between the one the
// consumer reads and i are sure to give the rows the limit still allows
// (a limit 1000 scan then decodes one file, not one per thread and more
// ahead). The window shrinks as the consumer moves on, so tasks that give
// fewer rows than counted on (a filter added since; a wrong record count)
// let the next ones start again at full parallelism. False when the scan
// ended first.
func (r *parallelReader) awaitConsumer(ctx context.Context, s *Scan, i int, sureBefore []int64) bool {
	for {
		reached := min(int(r.reached.Load()), i)
		if s.runtime.any() || sureBefore[i]-sureBefore[reached] < r.left.Load() {
			return true
		}
		select {
		case <-r.progress:
		case <-ctx.Done():
			return false
		}
	}
}

// wake tells a waiting dispatcher that the consumer moved.
func (r *parallelReader) wake() {
	select {
	case r.progress <- struct{}{}:
	default:
	}
}

// decodeTask runs the scan's task i, handing its batches to send in
// order; false when it stopped on an error or because send refused (the
// scan ended). A refused batch is released here.
func (s *Scan) decodeTask(ctx context.Context, i int, task Task, alloc memory.Allocator, ahead *openAhead, send func(taskResult) bool) bool {
	// Each task may return at most the scan's limit; the consumer trims.
	opened := ahead.take(i)
	ahead.after(i)
	tr, err := s.openTask(ctx, i, &task, alloc, opened, s.Options.Limit)
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
// and giving their slots back; false after the last task.
func (r *parallelReader) pop() (taskResult, bool) {
	for r.next < len(r.scan.tasks) {
		res, ok := r.buf.pop(r.next)
		if ok {
			return res, true
		}
		r.next++
		r.reached.Store(int64(r.next))
		r.wake()
		select {
		case <-r.slots:
		default: // the task never started: the scan was cancelled
		}
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
