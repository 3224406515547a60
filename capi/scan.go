package main

// #include "capi.h"
import "C"

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/floedb/floe/reader/scan"
)

// scanHandle is what a floe_scan* stands for.
type scanHandle struct {
	scan *scan.Scan
	// changelog is set instead of scan for a changelog scan ("changelog":
	// true): scan_changelog.go says which calls it answers.
	changelog *scan.ChangelogScan
	// ctx is the parent of every call on the scan; cancel
	// (floe_scan_cancel) stops them all, streams open or to come.
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
}

//export capiScanOpen
func capiScanOpen(th C.uintptr_t, scanJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_scan_open"
	defer recoverStatus(fn, &rc)
	t, err := lookup[*tableHandle](uintptr(th), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	h, err := openScan(t, cBytes(scanJSON))
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	*out = C.uintptr_t(newHandle(h))
	return C.int(statusOK)
}

// openScan plans a scan of the table handle's version with the options
// scanJSON gives; errors about the options carry their status.
func openScan(t *tableHandle, scanJSON []byte) (*scanHandle, error) {
	opts, timeout, err := parseScanRequest(scanJSON)
	if err != nil {
		return nil, withStatus(classify(err, statusInvalidArgument), err)
	}
	if err := checkScanTarget(opts); err != nil {
		return nil, withStatus(statusInvalidArgument, err)
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = t.memoryLimit
	}
	h := &scanHandle{timeout: overridden(t.timeout, timeout)}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	planning, done := callContext(h.ctx, h.timeout)
	defer done()
	if opts.Changelog {
		h.changelog, err = scan.NewChangelog(planning, t.current(), opts)
	} else {
		h.scan, err = scan.New(planning, t.current(), opts)
	}
	if err != nil {
		h.cancel()
		return nil, err
	}
	return h, nil
}

// streamOptions is floe_scan_stream_options' JSON.
type streamOptions struct {
	BatchSize int `json:"batch_size"`
}

// stream opens a read of every row with the stream's own settings o:
// under the scan's context (so that floe_scan_cancel stops it) and its
// timeout. The caller owns the reader and the cancel function.
func (s *scanHandle) stream(o scan.StreamOptions) (array.RecordReader, context.CancelFunc, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, nil, err // a cancelled scan opens no stream
	}
	ctx, cancel := callContext(s.ctx, s.timeout)
	var rdr array.RecordReader
	var err error
	if s.changelog != nil {
		if o.BatchSize != 0 {
			// The scan's reader refuses a bad size itself; a changelog's
			// takes none.
			cancel()
			return nil, nil, invalidArgument("stream options: a changelog scan's stream takes no batch_size")
		}
		rdr, err = s.changelog.Reader(ctx, cAllocator)
	} else {
		rdr, err = s.scan.ReaderWith(ctx, cAllocator, o)
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return rdr, cancel, nil
}

// parseScanOptions reads scan_json: syntax first (the JSON decoder
// accepts trailing garbage), then the keys and values.
func parseScanOptions(data []byte) (scan.Options, error) {
	opts, _, err := parseScanRequest(data)
	return opts, err
}

// parseScanRequest is parseScanOptions with the scan's timeout_ms.
func parseScanRequest(data []byte) (scan.Options, *time.Duration, error) {
	data, err := checkJSON(data, "scan options")
	if err != nil || data == nil {
		return scan.Options{}, nil, err
	}
	opts, timeout, err := decodeScanRequest(data)
	if err != nil {
		return opts, nil, withStatus(classify(err, statusInvalidArgument), err)
	}
	return opts, timeout, nil
}

// checkScanTarget refuses scan options that choose a snapshot in several
// ways. What the options name (snapshot, ref, columns) is resolved once,
// by scan.New, whose errors carry their kinds.
func checkScanTarget(opts scan.Options) error {
	set := 0
	for _, given := range []bool{opts.SnapshotID != nil, opts.AsOfTimestamp != nil, opts.Ref != ""} {
		if given {
			set++
		}
	}
	if set > 1 {
		return invalidArgument("scan options: give at most one of snapshot_id, as_of_timestamp and ref")
	}
	return nil
}

//export capiScanSchema
func capiScanSchema(h C.uintptr_t, out *C.struct_ArrowSchema) (rc C.int) {
	const fn = "floe_scan_schema"
	defer recoverStatus(fn, &rc)
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	cdata.ExportArrowSchema(s.schema(), (*cdata.CArrowSchema)(unsafe.Pointer(out)))
	return C.int(statusOK)
}

//export capiScanPlan
func capiScanPlan(h C.uintptr_t, count *C.int64_t) (rc C.int) {
	const fn = "floe_scan_plan"
	defer recoverStatus(fn, &rc)
	s, err := liveScan(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	// A task of the C API is a task group: one file, a byte range of a
	// large one, or several small ones.
	*count = C.int64_t(s.numTasks())
	return C.int(statusOK)
}

//export capiScanCount
func capiScanCount(h C.uintptr_t, rows *C.int64_t) (rc C.int) {
	const fn = "floe_scan_count"
	defer recoverStatus(fn, &rc)
	s, err := liveScan(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	n, err := s.count()
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	*rows = C.int64_t(n)
	return C.int(statusOK)
}

//export capiScanTask
func capiScanTask(h C.uintptr_t, i C.int64_t, bytes **C.uint8_t, n *C.size_t) (rc C.int) {
	const fn = "floe_scan_task"
	defer recoverStatus(fn, &rc)
	s, err := liveScan(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	groups := s.numTasks()
	if i < 0 || int64(i) >= int64(groups) {
		return fail(fn, invalidArgument("task index %d is out of range: the scan has %d tasks", int64(i), groups), statusInvalidArgument)
	}
	data, err := s.task(int(i))
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*bytes = (*C.uint8_t)(C.CBytes(data))
	*n = C.size_t(len(data))
	return C.int(statusOK)
}

//export capiScanStream
func capiScanStream(h C.uintptr_t, optionsJSON *C.char, out *C.struct_ArrowArrayStream) (rc C.int) {
	fn := "floe_scan_stream"
	if optionsJSON != nil {
		fn = "floe_scan_stream_options"
	}
	defer recoverStatus(fn, &rc)
	s, err := liveScan(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	var opts streamOptions
	if err := decodeStrict(cBytes(optionsJSON), &opts, "stream options"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	rdr, cancel, err := s.stream(scan.StreamOptions{BatchSize: opts.BatchSize})
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	exportStream(rdr, s.schema(), cancel, out)
	return C.int(statusOK)
}

// liveScan looks up a scan handle that floe_scan_cancel has not stopped:
// a cancelled scan plans, reads and counts nothing more (its schema and
// metrics still answer).
func liveScan(h C.uintptr_t) (*scanHandle, error) {
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return nil, err
	}
	if err := s.ctx.Err(); err != nil {
		return nil, fmt.Errorf("the scan was cancelled: %w", err)
	}
	return s, nil
}

//export capiScanCancel
func capiScanCancel(h C.uintptr_t) (rc C.int) {
	const fn = "floe_scan_cancel"
	defer recoverStatus(fn, &rc)
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	s.cancel()
	return C.int(statusOK)
}

//export capiScanFree
func capiScanFree(h C.uintptr_t) (rc C.int) {
	const fn = "floe_scan_free"
	defer recoverStatus(fn, &rc)
	// Streams opened from the scan outlive it (floe.h), so freeing does
	// not cancel them.
	if err := release[*scanHandle](uintptr(h), "floe_scan"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return C.int(statusOK)
}
