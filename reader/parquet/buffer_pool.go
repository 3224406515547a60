package parquet

import (
	"math/bits"
	"sync"
)

// Scratch memory (column chunk bytes, decompressed pages, levels, indexes)
// never leaves this package, so it lives on the Go heap and is kept by
// power-of-two size class: a scan over many row groups reuses the same
// buffers instead of allocating a chunk's worth each time.
//
// The buffers are kept in a free list of bounded size rather than in
// sync.Pools, because a sync.Pool is emptied by every second GC cycle: a
// host that scans now and then, with its own work (and collections) in
// between, found the pools empty on every scan and paid for fresh
// multi-megabyte buffers, their page faults and zeroing. Measured on
// DuckDB's lineitem files, a clustered 1 % scan took 17 ms of CPU back to
// back and 34 ms with two collections between scans (benchmarks'
// foreign section, where DuckDB's runs alternate with floe's). The list
// holds at most scratchKeep bytes; a buffer that would pass it is left to
// the GC.

const minPoolClass = 12 // 4 KiB

// scratchKeep bounds the bytes the free list holds while no scan uses
// them: enough for the chunk and page buffers of a few threads reading
// DuckDB's 122,880-row groups (about 3 MB compressed, 11 MB decoded each).
var scratchKeep = 64 << 20

// SetScratchKeep sets how many bytes of freed scratch buffers are kept for
// reuse (0 keeps none; the default is 64 MiB) and drops what is held
// beyond it. It returns the previous limit.
func SetScratchKeep(n int) int {
	scratchFree.mu.Lock()
	defer scratchFree.mu.Unlock()
	old := scratchKeep
	scratchKeep = max(n, 0)
	for c := len(scratchFree.free) - 1; c >= 0 && scratchFree.held > scratchKeep; c-- {
		for len(scratchFree.free[c]) > 0 && scratchFree.held > scratchKeep {
			last := len(scratchFree.free[c]) - 1
			scratchFree.held -= cap(scratchFree.free[c][last])
			scratchFree.free[c][last] = nil
			scratchFree.free[c] = scratchFree.free[c][:last]
		}
	}
	return old
}

var scratchFree struct {
	mu   sync.Mutex
	held int
	free [48][][]byte
}

func poolClass(n int) int {
	if n <= 1<<minPoolClass {
		return minPoolClass
	}
	return bits.Len(uint(n - 1))
}

// GetBytes returns a slice of length n; its contents are undefined.
func GetBytes(n int) []byte {
	c := poolClass(n)
	if c >= len(scratchFree.free) {
		return make([]byte, n)
	}
	scratchFree.mu.Lock()
	if k := len(scratchFree.free[c]); k > 0 {
		b := scratchFree.free[c][k-1]
		scratchFree.free[c][k-1] = nil
		scratchFree.free[c] = scratchFree.free[c][:k-1]
		scratchFree.held -= cap(b)
		scratchFree.mu.Unlock()
		return b[:n]
	}
	scratchFree.mu.Unlock()
	return make([]byte, n, 1<<c)
}

// PutBytes hands a slice from GetBytes back for reuse.
func PutBytes(b []byte) {
	c := cap(b)
	if c < 1<<minPoolClass || c&(c-1) != 0 {
		return
	}
	class := bits.Len(uint(c)) - 1
	if class >= len(scratchFree.free) {
		return
	}
	scratchFree.mu.Lock()
	if scratchFree.held+c <= scratchKeep {
		scratchFree.free[class] = append(scratchFree.free[class], b[:0])
		scratchFree.held += c
	}
	scratchFree.mu.Unlock()
}

// scratch is a reusable pooled buffer that grows by swapping for a larger
// pooled one.
type scratch struct{ b []byte }

// take returns n bytes of scratch; the old contents are not kept.
func (s *scratch) take(n int) []byte {
	if cap(s.b) < n {
		PutBytes(s.b)
		s.b = GetBytes(n)
	}
	s.b = s.b[:n]
	return s.b
}

func (s *scratch) release() {
	PutBytes(s.b)
	s.b = nil
}
