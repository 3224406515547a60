package main

// #include "capi.h"
import "C"

import (
	"context"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/floedb/floe/reader/scan"
)

// scanHandle is what a floe_scan* stands for.
type scanHandle struct {
	scan *scan.Scan
}

//export capiScanOpen
func capiScanOpen(th C.uintptr_t, scanJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_scan_open"
	defer recoverStatus(fn, &rc)
	t, err := lookup[*tableHandle](uintptr(th), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	opts, err := parseScanOptions(cBytes(scanJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if err := checkScanTarget(opts); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	s, err := scan.New(context.Background(), t.current(), opts)
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	*out = C.uintptr_t(newHandle(&scanHandle{scan: s}))
	return C.int(statusOK)
}

// parseScanOptions reads scan_json: syntax first (the JSON decoder
// accepts trailing garbage), then the keys and values.
func parseScanOptions(data []byte) (scan.Options, error) {
	data, err := checkJSON(data, "scan options")
	if err != nil || data == nil {
		return scan.Options{}, err
	}
	opts, err := decodeScanOptions(data)
	if err != nil {
		return opts, withStatus(classify(err, statusInvalidArgument), err)
	}
	return opts, nil
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
	cdata.ExportArrowSchema(s.scan.Schema(), (*cdata.CArrowSchema)(unsafe.Pointer(out)))
	return C.int(statusOK)
}

//export capiScanPlan
func capiScanPlan(h C.uintptr_t, count *C.int64_t) (rc C.int) {
	const fn = "floe_scan_plan"
	defer recoverStatus(fn, &rc)
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	// A task of the C API is a task group: one file, a byte range of a
	// large one, or several small ones.
	*count = C.int64_t(s.scan.NumTaskGroups())
	return C.int(statusOK)
}

//export capiScanCount
func capiScanCount(h C.uintptr_t, rows *C.int64_t) (rc C.int) {
	const fn = "floe_scan_count"
	defer recoverStatus(fn, &rc)
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	n, err := s.scan.Count(context.Background())
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
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	groups := s.scan.NumTaskGroups()
	if i < 0 || int64(i) >= int64(groups) {
		return fail(fn, invalidArgument("task index %d is out of range: the scan has %d tasks", int64(i), groups), statusInvalidArgument)
	}
	data, err := s.scan.TaskGroup(int(i)).MarshalBinary()
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*bytes = (*C.uint8_t)(C.CBytes(data))
	*n = C.size_t(len(data))
	return C.int(statusOK)
}

//export capiScanStream
func capiScanStream(h C.uintptr_t, out *C.struct_ArrowArrayStream) (rc C.int) {
	const fn = "floe_scan_stream"
	defer recoverStatus(fn, &rc)
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rdr, err := s.scan.Reader(ctx, cAllocator)
	if err != nil {
		cancel()
		return fail(fn, err, statusFormat)
	}
	exportStream(rdr, s.scan.Schema(), cancel, out)
	return C.int(statusOK)
}

//export capiScanFree
func capiScanFree(h C.uintptr_t) (rc C.int) {
	const fn = "floe_scan_free"
	defer recoverStatus(fn, &rc)
	if err := release[*scanHandle](uintptr(h), "floe_scan"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return C.int(statusOK)
}
