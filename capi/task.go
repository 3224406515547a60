package main

// #include "capi.h"
import "C"

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/inspect"
	"github.com/floedb/floe/reader/scan"
)

// taskReadOptions are the read settings a caller gives with a serialised
// task (scan.ReadOptions): floe_task_stream's and floe_task_io_open's
// options. A task no longer carries them (an older floe's task still
// does: its values apply where these are not given).
type taskReadOptions struct {
	BatchSize int    `json:"batch_size"`
	Limit     *int64 `json:"limit"`
	VerifyCRC bool   `json:"verify_crc"`
}

// read is the scan.ReadOptions of o, checked.
func (o taskReadOptions) read(memoryLimit int64) (scan.ReadOptions, error) {
	r := scan.ReadOptions{BatchSize: o.BatchSize, Limit: o.Limit, VerifyCRC: o.VerifyCRC, MemoryLimit: memoryLimit}
	if err := r.Validate(); err != nil {
		return r, withStatus(statusInvalidArgument, fmt.Errorf("task options: %w", err))
	}
	return r, nil
}

// taskOptions is floe_task_stream's options_json: the table options that
// say how to reach the files from here, and the read settings.
type taskOptions struct {
	tableOptions
	taskReadOptions
}

func parseTaskOptions(data []byte) (taskOptions, scan.ReadOptions, error) {
	var o taskOptions
	if err := decodeStrict(data, &o, "task options"); err != nil {
		return o, scan.ReadOptions{}, err
	}
	if err := o.tableOptions.check(); err != nil {
		return o, scan.ReadOptions{}, err
	}
	if o.Warehouse != "" {
		return o, scan.ReadOptions{}, invalidArgument("task options: warehouse does not apply to a task")
	}
	read, err := o.taskReadOptions.read(o.MemoryLimit)
	return o, read, err
}

//export capiTaskStream
func capiTaskStream(task *C.uint8_t, n C.size_t, optionsJSON *C.char, out *C.struct_ArrowArrayStream) (rc C.int) {
	const fn = "floe_task_stream"
	defer recoverStatus(fn, &rc)
	opts, read, err := parseTaskOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	// The task is parsed before this call returns, so the caller's buffer
	// is read in place.
	data := unsafe.Slice((*byte)(unsafe.Pointer(task)), int(n))
	if inspect.IsTask(data) {
		// A task of a metadata table (floe_inspect_plan).
		rdr, cancel, err := openInspectTask(data, opts.tableOptions, read.Limit, read.BatchSize)
		if err != nil {
			return fail(fn, err, statusInvalidArgument)
		}
		exportStream(rdr, nil, cancel, out)
		return C.int(statusOK)
	}
	if isChangeGroup(data) {
		// A task of a changelog scan (scan_changelog.go).
		rdr, cancel, err := openChangeGroup(data, opts, read)
		if err != nil {
			return fail(fn, err, statusFormat)
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
	files, err := fileio.ForLocation(g.Tasks[0].Path, fileio.Options{LocationMap: locations, S3: opts.S3, GCS: opts.GCS, Azure: opts.Azure})
	if err != nil {
		return fail(fn, err, statusUnsupported)
	}
	ctx, cancel := callContext(context.Background(), opts.timeout())
	rdr, err := g.Reader(ctx, files, cAllocator, read)
	if err != nil {
		cancel()
		return fail(fn, err, statusFormat)
	}
	exportStream(rdr, nil, cancel, out)
	return C.int(statusOK)
}
