package main

// #include <stdlib.h>
import "C"

import (
	"encoding/json"
	"runtime"
)

// runtimeStats is floe_runtime_stats's JSON: what a long-running host
// watches to see that floe holds nothing it should have let go.
type runtimeStats struct {
	Goroutines int   `json:"goroutines"`
	Handles    int64 `json:"handles"`
	Batches    int64 `json:"batches"`
	// Go's heap: bytes in live objects, and what the heap holds from the
	// OS (idle spans included).
	HeapAllocBytes uint64 `json:"heap_alloc_bytes"`
	HeapSysBytes   uint64 `json:"heap_sys_bytes"`
	// ExportBytes is what the C allocator behind exported batches holds
	// (in batches or pooled), PooledBytes the part kept for reuse.
	ExportBytes int64 `json:"export_bytes"`
	PooledBytes int64 `json:"pooled_bytes"`
}

//export capiRuntimeStats
func capiRuntimeStats(out **C.char) (rc C.int) {
	const fn = "floe_runtime_stats"
	defer recoverStatus(fn, &rc)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	data, err := json.Marshal(runtimeStats{
		Goroutines: runtime.NumGoroutine(), Handles: liveHandles.Load(), Batches: liveBatches.Load(),
		HeapAllocBytes: ms.HeapAlloc, HeapSysBytes: ms.HeapSys, ExportBytes: int64(cMalloc.AllocatedBytes()), PooledBytes: int64(cAllocator.PooledBytes()),
	})
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*out = cString(data)
	return C.int(statusOK)
}
