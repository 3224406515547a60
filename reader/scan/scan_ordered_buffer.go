package scan

import (
	"context"
	"sync"
)

// DefaultBufferBytes bounds the decoded batches an ordered parallel scan
// holds for tasks after the one being returned.
const DefaultBufferBytes = 256 << 20

// ExportPoolBytes is the idle memory a host-facing allocator of scan
// batches (the C API's) keeps for reuse: what an ordered parallel scan may
// hold decoded and the batches in flight around it, so a scan in its
// steady state reuses all it frees. At 128 MiB a two-thread all-column
// scan of DuckDB's lineitem held more than the pool, and page faults on
// fresh memory left it at 0.92× DuckDB's wall time (benchmarks, -foreign).
const ExportPoolBytes = DefaultBufferBytes + 64<<20

// orderedBuffer holds the batches of an ordered parallel scan's tasks
// until the consumer reaches them. Tasks after the one being returned (the
// head) decode ahead while their batches fit in a byte budget: with a
// fixed number of batches per task, as before, the second thread decoded
// only two batches ahead of the first and a two-thread scan ran barely
// faster than one. The head itself may always hold batchesInFlight
// batches, so the scan never waits on the budget for the batches it needs
// next.
type orderedBuffer struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queues []taskQueue
	head   int
	used   int64
	limit  int64
	closed bool
}

type taskQueue struct {
	items []queuedBatch
	done  bool
}

type queuedBatch struct {
	res   taskResult
	bytes int64
}

func newOrderedBuffer(tasks int, limit int64) *orderedBuffer {
	if limit <= 0 {
		limit = DefaultBufferBytes
	}
	b := &orderedBuffer{queues: make([]taskQueue, tasks), limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// push queues task i's result, waiting while the budget has no room for
// it; false when the buffer was closed meanwhile (the result is then the
// caller's to release).
func (b *orderedBuffer) push(i int, res taskResult) bool {
	size := recordBytes(res.rec)
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && !b.roomLocked(i, size) {
		b.cond.Wait()
	}
	if b.closed {
		return false
	}
	b.queues[i].items = append(b.queues[i].items, queuedBatch{res, size})
	b.used += size
	b.cond.Broadcast()
	return true
}

func (b *orderedBuffer) roomLocked(i int, size int64) bool {
	if i == b.head && len(b.queues[i].items) < batchesInFlight {
		return true
	}
	return b.used == 0 || b.used+size <= b.limit
}

// finish marks task i as having sent everything.
func (b *orderedBuffer) finish(i int) {
	b.mu.Lock()
	b.queues[i].done = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// pop waits for task i's next result; ok is false once the task is done
// and drained, or the buffer closed.
func (b *orderedBuffer) pop(i int) (res taskResult, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.head != i {
		b.head = i
		b.cond.Broadcast()
	}
	for !b.closed && len(b.queues[i].items) == 0 && !b.queues[i].done {
		b.cond.Wait()
	}
	q := &b.queues[i]
	if b.closed || len(q.items) == 0 {
		return taskResult{}, false
	}
	item := q.items[0]
	q.items[0] = queuedBatch{}
	q.items = q.items[1:]
	b.used -= item.bytes
	b.cond.Broadcast()
	return item.res, true
}

// close wakes every waiter and releases the batches still queued.
func (b *orderedBuffer) close() {
	b.mu.Lock()
	b.closed = true
	for i := range b.queues {
		for _, item := range b.queues[i].items {
			if item.res.rec != nil {
				item.res.rec.Release()
			}
		}
		b.queues[i].items = nil
	}
	b.used = 0
	b.cond.Broadcast()
	b.mu.Unlock()
}

// closeOn closes the buffer when ctx ends, so no push waits
// for room that will never come.
func (b *orderedBuffer) closeOn(ctx context.Context) {
	go func() {
		<-ctx.Done()
		b.close()
	}()
}
