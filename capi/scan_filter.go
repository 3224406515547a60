package main

// #include "capi.h"
import "C"

import (
	"encoding/json"
	"strings"

	"github.com/floedb/floe/iceberg/expr"
)

// A running scan can be tightened (floe_scan_add_filter) and asked what it
// pruned and read (floe_scan_metrics), from any thread, while its streams
// are being read: both go through scan.Scan, which locks what it shares.

//export capiScanAddFilter
func capiScanAddFilter(h C.uintptr_t, filter *C.char) (rc C.int) {
	const fn = "floe_scan_add_filter"
	defer recoverStatus(fn, &rc)
	s, err := liveScan(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	e, err := filterArgument(C.GoString(filter))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if s.changelog != nil {
		return fail(fn, errChangelogFilter, statusUnsupported)
	}
	if err := s.scan.AddFilter(e); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return C.int(statusOK)
}

// filterArgument reads floe_scan_add_filter's argument: a JSON object is
// the REST JSON expression, anything else row_filter text.
func filterArgument(text string) (expr.Expr, error) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return nil, invalidArgument("filter is empty")
	}
	if trimmed[0] == '{' && !json.Valid([]byte(trimmed)) {
		return nil, invalidArgument("filter starts with '{' but is not a valid JSON expression: %s", jsonSyntaxError([]byte(trimmed)))
	}
	return expr.ParseFilter(trimmed)
}

//export capiScanMetrics
func capiScanMetrics(h C.uintptr_t, out **C.char) (rc C.int) {
	const fn = "floe_scan_metrics"
	defer recoverStatus(fn, &rc)
	s, err := lookup[*scanHandle](uintptr(h), "floe_scan")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if s.changelog != nil {
		return fail(fn, errChangelogMetrics, statusUnsupported)
	}
	data, err := json.Marshal(s.scan.Metrics())
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*out = cString(data)
	return C.int(statusOK)
}
