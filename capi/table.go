package main

// #include "capi.h"
import "C"

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/progress"
)

// tableHandle is what a floe_table* stands for. Commits replace the table
// version it holds, so every use reads it through current(); commits on one
// handle take commitMu for their whole run, one at a time (writers on other
// handles or processes are ordered by the table's optimistic commit loop).
type tableHandle struct {
	mu       sync.RWMutex
	table    *table.Table
	commitMu sync.Mutex
	// timeout bounds each call on the handle (table options' timeout_ms);
	// memoryLimit is its scans' default memory_limit.
	timeout     time.Duration
	memoryLimit int64
	// onFree runs when the handle is freed: a table loaded from a catalog
	// lets go of the catalog it commits through.
	onFree func()
	// meter counts the work of the handle's latest long call
	// (floe_table_progress); see table_progress.go.
	meter     atomic.Pointer[progress.Meter]
	meterCall atomic.Int64
}

// current is the table version the handle holds now.
func (h *tableHandle) current() *table.Table {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.table
}

// set makes t the version the handle holds.
func (h *tableHandle) set(t *table.Table) {
	h.mu.Lock()
	h.table = t
	h.mu.Unlock()
}

//export capiTableOpen
func capiTableOpen(location, optionsJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_table_open"
	defer recoverStatus(fn, &rc)
	opts, err := parseTableOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	where := C.GoString(location)
	if where == "" {
		return fail(fn, invalidArgument("location is empty"), statusInvalidArgument)
	}
	ctx, cancel := callContext(context.Background(), opts.timeout())
	defer cancel()
	t, err := table.Open(ctx, where, opts.table())
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	*out = C.uintptr_t(newHandle(&tableHandle{table: t, timeout: opts.timeout(), memoryLimit: opts.MemoryLimit}))
	return C.int(statusOK)
}

//export capiTableMetadataJSON
func capiTableMetadataJSON(h C.uintptr_t, out **C.char) (rc C.int) {
	const fn = "floe_table_metadata_json"
	defer recoverStatus(fn, &rc)
	t, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	data, err := t.current().Metadata.MarshalJSON()
	if err != nil {
		return fail(fn, fmt.Errorf("encode table metadata: %w", err), statusInternal)
	}
	*out = cString(data)
	return C.int(statusOK)
}

//export capiTableMetadataLocation
func capiTableMetadataLocation(h C.uintptr_t, out **C.char) (rc C.int) {
	const fn = "floe_table_metadata_location"
	defer recoverStatus(fn, &rc)
	t, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	*out = cString([]byte(t.current().MetadataLocation))
	return C.int(statusOK)
}

//export capiTableFree
func capiTableFree(h C.uintptr_t) (rc C.int) {
	const fn = "floe_table_free"
	defer recoverStatus(fn, &rc)
	t, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if err := release[*tableHandle](uintptr(h), "floe_table"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if t.onFree != nil {
		t.onFree()
	}
	return C.int(statusOK)
}

// cBytes views a NUL-terminated C string as bytes without copying; nil for
// NULL. The view must not outlive the call that received the string.
func cBytes(s *C.char) []byte {
	if s == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(s)), C.strlen(s))
}

// cString copies b into a new NUL-terminated malloc'd string (freed by
// floe_string_free).
func cString(b []byte) *C.char {
	p := (*C.char)(C.malloc(C.size_t(len(b) + 1)))
	if p == nil {
		panic("out of memory")
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(p)), len(b)+1)
	copy(dst, b)
	dst[len(b)] = 0
	return p
}
