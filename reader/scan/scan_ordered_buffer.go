package scan

import (
	"context"
	"runtime"
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
//
// The consumer waits on ready, producers on room, so a batch queued for a
// task other than the head wakes no one. A producer that hands the
// waiting consumer its batch yields its core to it (runtime.Gosched):
// woken, the consumer is queued on that producer's core, and with every
// core decoding it would otherwise wait there until the scheduler
// preempts the producer, 10 ms later.
type orderedBuffer struct {
	mu     sync.Mutex
	ready  *sync.Cond
	room   *sync.Cond
	queues []taskQueue
	head   int
	used   int64
	limit  int64
	closed bool
	// popping is set while the consumer waits in pop; roomWaiters counts
	// the producers waiting in push.
	popping     bool
	roomWaiters int
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
	b.ready = sync.NewCond(&b.mu)
	b.room = sync.NewCond(&b.mu)
	return b
}

// push queues task i's result, waiting while the budget has no room for
// it; false when the buffer was closed meanwhile (the result is then the
// caller's to release).
func (b *orderedBuffer) push(i int, res taskResult) bool {
	size := recordBytes(res.rec)
	b.mu.Lock()
	for !b.closed && !b.roomLocked(i, size) {
		b.roomWaiters++
		b.room.Wait()
		b.roomWaiters--
	}
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.queues[i].items = append(b.queues[i].items, queuedBatch{res, size})
	b.used += size
	b.handOver(i)
	return true
}

// handOver unlocks b after task i got a batch or finished, waking the
// consumer and yielding to it when it waits for task i.
func (b *orderedBuffer) handOver(i int) {
	wake := i == b.head && b.popping
	if wake {
		b.ready.Signal()
	}
	b.mu.Unlock()
	if wake {
		runtime.Gosched()
	}
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
	b.handOver(i)
}

// pop waits for task i's next result; ok is false once the task is done
// and drained, or the buffer closed.
func (b *orderedBuffer) pop(i int) (res taskResult, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.head != i {
		b.head = i
		b.wakeProducers() // the new head may have room now
	}
	for !b.closed && len(b.queues[i].items) == 0 && !b.queues[i].done {
		b.popping = true
		b.ready.Wait()
		b.popping = false
	}
	q := &b.queues[i]
	if b.closed || len(q.items) == 0 {
		return taskResult{}, false
	}
	item := q.items[0]
	q.items[0] = queuedBatch{}
	q.items = q.items[1:]
	b.used -= item.bytes
	b.wakeProducers()
	return item.res, true
}

func (b *orderedBuffer) wakeProducers() {
	if b.roomWaiters > 0 {
		b.room.Broadcast()
	}
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
	b.ready.Broadcast()
	b.room.Broadcast()
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
