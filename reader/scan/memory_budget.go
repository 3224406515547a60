package scan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/reader/parquet"
)

// MinMemoryLimit is the smallest memory limit a scan takes: below it a
// batch of an ordinary table does not fit.
const MinMemoryLimit = 16 << 20

func checkMemoryLimit(limit int64) error {
	if limit < 0 || limit > 0 && limit < MinMemoryLimit {
		return errkind.Errorf(errkind.InvalidArgument, "scan options: memory_limit %d: give at least %d bytes, or 0 for none", limit, MinMemoryLimit)
	}
	return nil
}

// memoryBudget turns a memory limit into the settings that bound what a
// read holds (threads reading at once, leaves the projected primitive
// columns), lowering fetch and bufferBytes where they ask for more. A
// quarter goes to decoded batches an ordered parallel scan keeps waiting;
// the rest is split between the threads, each reading one file at a time:
// a quarter of its share for read-ahead, half for its columns' chunk
// windows (two windows a column: the one walked and the one before), and
// a page at most a quarter. What is left covers the batch being decoded.
func memoryBudget(limit int64, threads, leaves int, fetch parquet.FetchOptions, bufferBytes int64) (parquet.FetchOptions, int64) {
	if limit <= 0 {
		return fetch, bufferBytes
	}
	lower := func(v *int64, to int64) {
		if *v <= 0 || *v > to {
			*v = max(to, 1)
		}
	}
	lower(&bufferBytes, limit/4)
	share := (limit - limit/4) / int64(max(threads, 1))
	lower(&fetch.PrefetchBytes, share/4)
	lower(&fetch.MaxRequest, max(share/8, 1<<20))
	lower(&fetch.ChunkWindow, min(max(share/(4*int64(max(leaves, 1))), 64<<10), 8<<20))
	lower(&fetch.MaxPageBytes, share/4)
	return fetch, bufferBytes
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
