package scan

// The unordered parallel scan: workers take tasks in plan order and hand
// each batch over as soon as it is decoded, so a slow task holds up only
// its own worker, not every batch behind it.

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// unorderedReader returns batches in the order workers produce them.
// Memory is bounded as in parallelReader: `threads` tasks decode at once
// and at most batchesInFlight batches per thread wait for the consumer.
type unorderedReader struct {
	workerStream
	out chan taskResult
}

func newUnorderedReader(ctx context.Context, s *Scan, alloc memory.Allocator, threads int) *unorderedReader {
	r := &unorderedReader{out: make(chan taskResult, threads*batchesInFlight)}
	r.pull, r.halt = r.receive, r.drain
	ctx = r.start(ctx, s, threads)
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
