package main

// #include "capi.h"
// void capi_call_progress(floe_progress_fn fn, const char* progress_json, void* user_data);
import "C"

import (
	"context"
	"time"
	"unsafe"

	"github.com/floedb/floe/internal/maintenance"
)

// floe_table_maintain runs one table-maintenance action; its options,
// result and progress JSON are internal/maintenance's, which the CLI
// shares.

// maintainRequest is a parsed call and its timeout_ms (nil: the
// handle's).
type maintainRequest struct {
	maintenance.Request
	timeout *time.Duration
}

// parseMaintain reads the action and options_json (NUL characters
// refused as every options_json refuses them).
func parseMaintain(action string, data []byte) (maintainRequest, error) {
	data, err := checkJSON(data, action+" options")
	if err != nil {
		return maintainRequest{}, err
	}
	req, err := maintenance.Parse(action, data)
	if err != nil {
		return maintainRequest{}, err
	}
	out := maintainRequest{Request: req}
	if req.TimeoutMs != nil {
		d, err := timeoutOption(action+" options", *req.TimeoutMs)
		if err != nil {
			return maintainRequest{}, err
		}
		out.timeout = &d
	}
	return out, nil
}

// runMaintain runs a parsed request on the handle's table version, one
// commit at a time per handle, and keeps the version it leaves.
func runMaintain(th *tableHandle, req maintainRequest, progress maintenance.Progress) ([]byte, error) {
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	ctx, cancel := callContext(th.metered(context.Background()), overridden(th.timeout, req.timeout))
	defer cancel()
	res, err := req.Run(ctx, &base, progress)
	if err != nil {
		return nil, err
	}
	th.set(&base)
	return res, nil
}

//export capiTableMaintain
func capiTableMaintain(h C.uintptr_t, action, optionsJSON *C.char, progress C.floe_progress_fn, userData unsafe.Pointer, resultJSON **C.char) (rc C.int) {
	const fn = "floe_table_maintain"
	defer recoverStatus(fn, &rc)
	req, err := parseMaintain(C.GoString(action), cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	var report maintenance.Progress
	if progress != nil {
		report = func(data []byte) {
			s := C.CString(string(data))
			defer C.free(unsafe.Pointer(s))
			C.capi_call_progress(progress, s, userData)
		}
	}
	out, err := runMaintain(th, req, report)
	if err != nil {
		return fail(fn+" "+req.Action, err, commitFailureStatus(err))
	}
	*resultJSON = cString(out)
	return C.int(statusOK)
}
