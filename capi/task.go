package main

// #include "capi.h"
import "C"

import (
	"context"
	"unsafe"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/inspect"
	"github.com/floedb/floe/reader/scan"
)

//export capiTaskStream
func capiTaskStream(task *C.uint8_t, n C.size_t, optionsJSON *C.char, out *C.struct_ArrowArrayStream) (rc C.int) {
	const fn = "floe_task_stream"
	defer recoverStatus(fn, &rc)
	opts, err := parseTableOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if opts.Warehouse != "" {
		return fail(fn, invalidArgument("task options: warehouse does not apply to a task"), statusInvalidArgument)
	}
	// The task is parsed before this call returns, so the caller's buffer
	// is read in place.
	data := unsafe.Slice((*byte)(unsafe.Pointer(task)), int(n))
	if inspect.IsTask(data) {
		// A task of a metadata table (floe_inspect_plan).
		rdr, cancel, err := openInspectTask(data, opts, nil, 0)
		if err != nil {
			return fail(fn, err, statusInvalidArgument)
		}
		exportStream(rdr, nil, cancel, out)
		return C.int(statusOK)
	}
	// A serialised task group, or a bare task from an older floe_scan_task.
	g, err := scan.UnmarshalTaskGroup(data)
	if err != nil {
		// The caller handed us these bytes: bad ones are a bad argument.
		return fail(fn, withStatus(statusInvalidArgument, err), statusInvalidArgument)
	}
	locations, err := fileio.NewLocationMap(opts.LocationMap)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	// A router: each task's path finds its own file system.
	files, err := fileio.ForLocation(g.Tasks[0].Path, fileio.Options{LocationMap: locations, S3: opts.S3})
	if err != nil {
		return fail(fn, err, statusUnsupported)
	}
	ctx, cancel := callContext(context.Background(), opts.timeout())
	rdr, err := g.ReaderWithin(ctx, files, cAllocator, opts.MemoryLimit)
	if err != nil {
		cancel()
		return fail(fn, err, statusFormat)
	}
	exportStream(rdr, nil, cancel, out)
	return C.int(statusOK)
}
