package parquet

import (
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestRecyclingAllocator(t *testing.T) {
	inner := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a := NewRecyclingAllocator(inner, 1<<20)
	b := a.Allocate(100 << 10)
	if len(b) != 100<<10 {
		t.Fatalf("len %d", len(b))
	}
	for i := range b {
		b[i] = 0xaa
	}
	a.Free(b)
	c := a.Allocate(70 << 10) // same 128 KiB class: reused, and cleared
	if &c[0] != &b[0] {
		t.Error("buffer not reused")
	}
	for i, v := range c {
		if v != 0 {
			t.Fatalf("byte %d of a recycled buffer is %#x", i, v)
		}
	}
	c = a.Reallocate(120<<10, c) // fits the class: same memory
	if &c[0] != &b[0] || len(c) != 120<<10 {
		t.Error("in-class reallocation moved")
	}
	c = a.Reallocate(300<<10, c)
	a.Free(c)
	small := a.Allocate(100) // below the pooled sizes: straight through
	a.Free(small)

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				a.Free(a.Allocate(64 << 10))
			}
		})
	}
	wg.Wait()
	// More than maxPooled freed at once: the excess goes back to inner.
	var bufs [][]byte
	for range 20 {
		bufs = append(bufs, a.Allocate(128<<10))
	}
	for _, b := range bufs {
		a.Free(b)
	}
	if a.pooled > 1<<20 {
		t.Errorf("pooled %d bytes, cap 1 MiB", a.pooled)
	}
	a.Release()
	inner.AssertSize(t, 0)
}
