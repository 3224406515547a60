package main

// #include "capi.h"
import "C"

import (
	"bytes"
	"context"
	"sync"
	"unsafe"

	"github.com/floedb/floe/reader/scan"
)

// taskIOHandle is a task group read whose bytes the host fetches. Its
// mutex makes the handle safe to share between threads; the ranges last
// returned stay valid until the next call that returns ranges, or free.
type taskIOHandle struct {
	mu     sync.Mutex
	io     *scan.HostIO
	ranges *C.floe_byte_range
	paths  []*C.char
}

func (h *taskIOHandle) freeRanges() {
	for _, p := range h.paths {
		C.free(unsafe.Pointer(p))
	}
	h.paths = nil
	if h.ranges != nil {
		C.free(unsafe.Pointer(h.ranges))
		h.ranges = nil
	}
}

// parseTaskIOOptions reads floe_task_io_open's options_json: the read
// settings alone, since the host reaches the files itself.
func parseTaskIOOptions(data []byte) (scan.ReadOptions, error) {
	var o taskReadOptions
	if err := decodeStrict(data, &o, "task I/O options"); err != nil {
		return scan.ReadOptions{}, err
	}
	return o.read(0)
}

//export capiTaskIOOpen
func capiTaskIOOpen(task *C.uint8_t, n C.size_t, optionsJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_task_io_open"
	defer recoverStatus(fn, &rc)
	read, err := parseTaskIOOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	data := unsafe.Slice((*byte)(unsafe.Pointer(task)), int(n))
	if isChangeGroup(data) {
		return fail(fn, errChangelogHostIO, statusUnsupported)
	}
	g, err := scan.UnmarshalTaskGroup(data)
	if err != nil {
		return fail(fn, withStatus(statusInvalidArgument, err), statusInvalidArgument)
	}
	io, err := g.HostIO(read)
	if err != nil {
		return fail(fn, withStatus(statusInvalidArgument, err), statusInvalidArgument)
	}
	*out = C.uintptr_t(newHandle(&taskIOHandle{io: io}))
	return C.int(statusOK)
}

//export capiTaskNeededRanges
func capiTaskNeededRanges(h C.uintptr_t, ranges **C.floe_byte_range, count *C.size_t) (rc C.int) {
	const fn = "floe_task_needed_ranges"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*taskIOHandle](uintptr(h), "floe_task_io")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.mu.Lock()
	defer th.mu.Unlock()
	th.freeRanges()
	need, err := th.io.Needed(context.Background())
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	if len(need) > 0 {
		size := C.size_t(unsafe.Sizeof(C.floe_byte_range{}))
		th.ranges = (*C.floe_byte_range)(C.malloc(size * C.size_t(len(need))))
		if th.ranges == nil {
			panic("out of memory")
		}
		out := unsafe.Slice(th.ranges, len(need))
		for i, r := range need {
			p := cString([]byte(r.Path))
			th.paths = append(th.paths, p)
			out[i] = C.floe_byte_range{path: p, offset: C.int64_t(r.Offset), length: C.int64_t(r.Length)}
		}
	}
	*ranges, *count = th.ranges, C.size_t(len(need))
	return C.int(statusOK)
}

//export capiTaskFill
func capiTaskFill(h C.uintptr_t, path *C.char, offset C.int64_t, buf *C.uint8_t, n C.size_t) (rc C.int) {
	const fn = "floe_task_fill"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*taskIOHandle](uintptr(h), "floe_task_io")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	// The host's buffer is only borrowed for the call.
	data := bytes.Clone(unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n)))
	th.mu.Lock()
	defer th.mu.Unlock()
	if err := th.io.Fill(C.GoString(path), int64(offset), data); err != nil {
		return fail(fn, withStatus(statusInvalidArgument, err), statusInvalidArgument)
	}
	return C.int(statusOK)
}

//export capiTaskIOStream
func capiTaskIOStream(h C.uintptr_t, out *C.struct_ArrowArrayStream) (rc C.int) {
	const fn = "floe_task_io_stream"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*taskIOHandle](uintptr(h), "floe_task_io")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.mu.Lock()
	defer th.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	rdr, err := th.io.Reader(ctx, cAllocator)
	if err != nil {
		cancel()
		return fail(fn, err, statusFormat)
	}
	exportStream(rdr, nil, cancel, out)
	return C.int(statusOK)
}

//export capiTaskIOFree
func capiTaskIOFree(h C.uintptr_t) (rc C.int) {
	const fn = "floe_task_io_free"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*taskIOHandle](uintptr(h), "floe_task_io")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if err := release[*taskIOHandle](uintptr(h), "floe_task_io"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.mu.Lock()
	th.freeRanges()
	th.mu.Unlock()
	return C.int(statusOK)
}
