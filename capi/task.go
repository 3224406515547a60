package main

// #include "capi.h"
import "C"

import (
	"context"
	"unsafe"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader"
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
	t, err := reader.UnmarshalTask(unsafe.Slice((*byte)(unsafe.Pointer(task)), int(n)))
	if err != nil {
		// The caller handed us these bytes: bad ones are a bad argument.
		return fail(fn, withStatus(statusInvalidArgument, err), statusInvalidArgument)
	}
	locations, err := fileio.NewLocationMap(opts.LocationMap)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	files, err := fileio.ForLocation(t.Path, fileio.Options{LocationMap: locations})
	if err != nil {
		return fail(fn, err, statusUnsupported)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rdr, err := t.Reader(ctx, files, cAllocator)
	if err != nil {
		cancel()
		return fail(fn, err, statusFormat)
	}
	exportStream(rdr, nil, cancel, out)
	return C.int(statusOK)
}
