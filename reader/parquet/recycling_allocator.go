package parquet

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RecyclingAllocator keeps freed output buffers for reuse. Every batch
// needs fresh buffers, and a C allocator serves large ones with new pages
// that the kernel must fault in and zero: measured, that was about a third
// of a full scan's time. Recycled buffers skip it. They are cleared before
// reuse, so callers see the zeroed memory Allocate usually gives.
//
// Buffers of at least 64 KiB are rounded up to a power of two and pooled
// per size, up to maxPooled bytes in all; smaller ones go straight to the
// inner allocator. Safe for concurrent use, including Free from the threads
// of C consumers releasing exported arrays.
type RecyclingAllocator struct {
	inner     memory.Allocator
	maxPooled int
	mu        sync.Mutex
	pooled    int
	free      [48][][]byte
}

const minRecycledClass = 16 // 64 KiB

// NewRecyclingAllocator wraps inner (mallocator for exported batches).
// maxPooled <= 0 means 256 MiB.
func NewRecyclingAllocator(inner memory.Allocator, maxPooled int) *RecyclingAllocator {
	if maxPooled <= 0 {
		maxPooled = 256 << 20
	}
	return &RecyclingAllocator{inner: inner, maxPooled: maxPooled}
}

func recycledClass(size int) int {
	if size < 1<<minRecycledClass {
		return -1
	}
	return bits.Len(uint(size - 1))
}

func (a *RecyclingAllocator) Allocate(size int) []byte {
	b, recycled := a.allocate(size)
	if recycled {
		clear(b)
	}
	return b
}

// AllocateUninitialized is Allocate without clearing a recycled buffer,
// for callers that write every byte (the kernels' value buffers): the
// clear was a tenth of a filtered scan's time.
func (a *RecyclingAllocator) AllocateUninitialized(size int) []byte {
	b, _ := a.allocate(size)
	return b
}

func (a *RecyclingAllocator) allocate(size int) (b []byte, recycled bool) {
	c := recycledClass(size)
	if c < 0 || c >= len(a.free) {
		return a.inner.Allocate(size), false
	}
	a.mu.Lock()
	if n := len(a.free[c]); n > 0 {
		b := a.free[c][n-1]
		a.free[c] = a.free[c][:n-1]
		a.pooled -= cap(b)
		a.mu.Unlock()
		return b[:size], true
	}
	a.mu.Unlock()
	// The slice keeps the whole class as capacity, so Free finds its class.
	return a.inner.Allocate(1 << c)[:size], false
}

func (a *RecyclingAllocator) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size && recycledClass(cap(b)) >= 0 {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *RecyclingAllocator) Free(b []byte) {
	c := cap(b)
	class := recycledClass(c)
	if class < 0 || class >= len(a.free) || c != 1<<class {
		a.inner.Free(b)
		return
	}
	b = b[:c]
	a.mu.Lock()
	if a.pooled+c <= a.maxPooled {
		a.free[class] = append(a.free[class], b)
		a.pooled += c
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	a.inner.Free(b)
}

// PooledBytes is what the pool keeps for reuse now.
func (a *RecyclingAllocator) PooledBytes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pooled
}

// Release returns every pooled buffer to the inner allocator.
func (a *RecyclingAllocator) Release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for c := range a.free {
		for _, b := range a.free[c] {
			a.inner.Free(b)
		}
		a.free[c] = nil
	}
	a.pooled = 0
}

var _ memory.Allocator = (*RecyclingAllocator)(nil)
