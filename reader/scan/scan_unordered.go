package scan

// The unordered parallel scan: workers take tasks in plan order and hand
// each batch over as soon as it is decoded, so a slow task holds up only
// its own worker, not every batch behind it.

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// unorderedReader returns batches in the order workers produce them.
// Memory is bounded as in parallelReader: `threads` tasks decode at once
// and at most batchesInFlight batches per thread wait for the consumer.
type unorderedReader struct {
	workerStream
	out chan taskResult
	// With a limit, promised sums over the tasks taken the rows each is
	// sure to give (Scan.sure) while it runs and the rows it gave once
	// done; a worker takes no task while promised covers the limit (take).
	mu       sync.Mutex
	moved    *sync.Cond
	promised int64
}

func newUnorderedReader(ctx context.Context, s *Scan, alloc memory.Allocator, o StreamOptions, threads int) *unorderedReader {
	r := &unorderedReader{out: make(chan taskResult, threads*batchesInFlight)}
	r.pull, r.halt = r.receive, r.drain
	r.moved = sync.NewCond(&r.mu)
	ctx = r.start(ctx, s, threads)
	if s.Options.Limit != nil {
		// Waiting workers must see the scan end.
		context.AfterFunc(ctx, func() { r.settle(0, 0) })
	}
	next := 0 // the next task to take, under r.mu
	var wg sync.WaitGroup
	for range min(threads, len(s.tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i, ok := r.take(ctx, s, &next)
				if !ok {
					return
				}
				send, gave := r.send(ctx), int64(0)
				ok = s.decodeTask(ctx, i, *s.tasks[i], alloc, o, r.ahead, func(res taskResult) bool {
					if res.rec != nil {
						gave += res.rec.NumRows()
					}
					return send(res)
				})
				r.settle(s.sure[i], gave)
				if !ok {
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

// take hands a worker the next task. With a limit it waits while the
// tasks taken are sure to give it, or gave it (a limited scan then
// decodes the files it needs, not one per thread); a task that ends short
// wakes it. Checking and taking
// under one lock keeps two workers from both seeing room for one task.
// False when the tasks or the scan ended first.
func (r *unorderedReader) take(ctx context.Context, s *Scan, next *int) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for s.Options.Limit != nil && ctx.Err() == nil && !s.runtime.any() && r.promised > 0 && r.promised >= *s.Options.Limit {
		r.moved.Wait()
	}
	if ctx.Err() != nil || *next >= len(s.tasks) {
		return 0, false
	}
	i := *next
	*next++
	r.promised += s.sure[i]
	return i, true
}

// settle replaces a finished task's sure rows in promised by the rows it
// gave (a task that gave fewer makes room for the next), and wakes the
// waiting workers.
func (r *unorderedReader) settle(sure, gave int64) {
	r.mu.Lock()
	r.promised += gave - sure
	r.mu.Unlock()
	r.moved.Broadcast()
}

// receive returns the next batch any worker produced; false when every
// worker is done.
func (r *unorderedReader) receive() (taskResult, bool) {
	res, ok := <-r.out
	return res, ok
}

// drain releases what the workers produce until the last one is done
// (the context is cancelled, so they stop soon); the channel closes then.
func (r *unorderedReader) drain() {
	for res := range r.out {
		if res.rec != nil {
			res.rec.Release()
		}
	}
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
