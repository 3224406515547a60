package scan

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// MinMemoryLimit is the smallest memory limit a scan takes: below it a
// batch of an ordinary table does not fit.
const MinMemoryLimit = 16 << 20

// budget turns MemoryLimit into the settings that bound what a scan holds
// (leaves: the projected primitive columns). A quarter goes to decoded
// batches an ordered parallel scan keeps waiting; the rest is split
// between the threads, each reading one file at a time: a quarter of its
// share for read-ahead, half for its columns' chunk windows (two windows
// a column: the one walked and the one before), and a page at most a
// quarter. What is left covers the batch being decoded.
func (o *Options) budget(leaves int) {
	limit := o.MemoryLimit
	if limit <= 0 {
		return
	}
	lower := func(v *int64, to int64) {
		if *v <= 0 || *v > to {
			*v = max(to, 1)
		}
	}
	lower(&o.BufferBytes, limit/4)
	share := (limit - limit/4) / int64(o.threads())
	lower(&o.PrefetchBytes, share/4)
	lower(&o.MaxRequest, max(share/8, 1<<20))
	window := min(max(share/(4*int64(max(leaves, 1))), 64<<10), 8<<20)
	lower(&o.ChunkWindow, window)
	lower(&o.MaxPageBytes, share/4)
}

func leafCount(fields []arrow.Field) int {
	n := 0
	for _, f := range fields {
		if nested, ok := f.Type.(arrow.NestedType); ok {
			n += leafCount(nested.Fields())
		} else {
			n++
		}
	}
	return n
}
