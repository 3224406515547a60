package parquet

import (
	"math/bits"
	"sync"
)

// Scratch memory (column chunk bytes, decompressed pages, levels, indexes)
// never leaves this package, so it lives on the Go heap and is pooled by
// power-of-two size class: a scan over many row groups reuses the same
// buffers instead of allocating a chunk's worth each time.

const minPoolClass = 12 // 4 KiB

var bytePools [48]sync.Pool

func poolClass(n int) int {
	if n <= 1<<minPoolClass {
		return minPoolClass
	}
	return bits.Len(uint(n - 1))
}

// GetBytes returns a slice of length n; its contents are undefined.
func GetBytes(n int) []byte {
	c := poolClass(n)
	if c >= len(bytePools) {
		return make([]byte, n)
	}
	if p, ok := bytePools[c].Get().(*[]byte); ok {
		return (*p)[:n]
	}
	return make([]byte, n, 1<<c)
}

// PutBytes returns a slice from getBytes to its pool.
func PutBytes(b []byte) {
	c := cap(b)
	if c < 1<<minPoolClass || c&(c-1) != 0 {
		return
	}
	class := bits.Len(uint(c)) - 1
	if class >= len(bytePools) {
		return
	}
	b = b[:0]
	bytePools[class].Put(&b)
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
