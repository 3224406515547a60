package main

// #include "capi.h"
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/reader/inspect"
)

// inspectOptionsJSON is floe_inspect's options_json as include/floe.h
// documents it (and Python writes it): the scan options that make sense
// for a metadata table, under the same names.
type inspectOptionsJSON struct {
	// Columns: absent (nil) is every column, [] none.
	Columns    []string        `json:"columns"`
	Filter     json.RawMessage `json:"filter,omitempty"`
	SnapshotID *int64          `json:"snapshot_id,omitempty"`
	Ref        string          `json:"ref,omitempty"`
	Limit      *int64          `json:"limit,omitempty"`
	BatchSize  int             `json:"batch_size,omitempty"`
	// CaseInsensitive is the scans' key; CaseSensitive pyiceberg's
	// spelling of the same choice.
	CaseInsensitive *bool `json:"case_insensitive,omitempty"`
	CaseSensitive   *bool `json:"case_sensitive,omitempty"`
	// TimeoutMs bounds the stream from its opening to its end instead of
	// the table handle's timeout_ms.
	TimeoutMs *int64 `json:"timeout_ms,omitempty"`
}

// inspectRequest is options_json read: what inspect.Open takes, and what
// it cannot say (a limit of 0 rows, the stream's deadline).
type inspectRequest struct {
	opts      inspect.Options
	zeroLimit bool
	timeout   *time.Duration
}

// parseInspectOptions reads options_json strictly: unknown keys, bad
// values and a filter that does not parse are errors here, before any
// metadata is read.
func parseInspectOptions(data []byte) (inspectRequest, error) {
	var req inspectRequest
	data, err := checkJSON(data, "inspect options")
	if err != nil || data == nil {
		return req, err
	}
	var o inspectOptionsJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return req, invalidArgument("inspect options: %v", err)
	}
	filter, err := expr.ParseFilterJSON(o.Filter)
	if err != nil {
		return req, withStatus(classify(err, statusInvalidArgument), err)
	}
	if o.SnapshotID != nil && o.Ref != "" {
		return req, invalidArgument("inspect options: give snapshot_id or ref, not both")
	}
	if o.CaseSensitive != nil && o.CaseInsensitive != nil && *o.CaseSensitive == *o.CaseInsensitive {
		return req, invalidArgument("inspect options: case_sensitive %v and case_insensitive %v disagree", *o.CaseSensitive, *o.CaseInsensitive)
	}
	if o.BatchSize < 0 {
		return req, invalidArgument("inspect options: batch_size %d: give a positive number of rows, or 0 for the default", o.BatchSize)
	}
	if o.TimeoutMs != nil {
		d, err := timeoutOption("inspect options", *o.TimeoutMs)
		if err != nil {
			return req, err
		}
		req.timeout = &d
	}
	req.opts = inspect.Options{
		Columns: o.Columns, Filter: filter, SnapshotID: o.SnapshotID, Ref: o.Ref, BatchSize: o.BatchSize,
		CaseInsensitive: o.CaseInsensitive != nil && *o.CaseInsensitive || o.CaseSensitive != nil && !*o.CaseSensitive,
	}
	if o.Limit != nil {
		if *o.Limit < 0 {
			return req, invalidArgument("inspect options: limit %d: give a number of rows, 0 or more", *o.Limit)
		}
		// inspect.Options' 0 is "no limit"; here, as in scans, 0 is none.
		req.opts.Limit, req.zeroLimit = *o.Limit, *o.Limit == 0
	}
	return req, nil
}

//export capiInspect
func capiInspect(th C.uintptr_t, kind, optionsJSON *C.char, out *C.struct_ArrowArrayStream) (rc C.int) {
	const fn = "floe_inspect"
	defer recoverStatus(fn, &rc)
	t, err := lookup[*tableHandle](uintptr(th), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	k := strings.TrimSpace(C.GoString(kind))
	if k == "" {
		return fail(fn, invalidArgument("kind is empty: name a metadata table (snapshots, files, …)"), statusInvalidArgument)
	}
	req, err := parseInspectOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	rdr, cancel, err := openInspect(t, inspect.Kind(k), req)
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	exportStream(rdr, nil, cancel, out)
	return C.int(statusOK)
}

// openInspect opens the metadata table's rows under a call context (the
// request's timeout_ms, else the handle's), which the stream owns: its
// release or its deadline stops the source's reads.
func openInspect(t *tableHandle, kind inspect.Kind, req inspectRequest) (array.RecordReader, context.CancelFunc, error) {
	ctx, cancel := callContext(context.Background(), overridden(t.timeout, req.timeout))
	rdr, err := inspect.Open(ctx, t.current(), kind, req.opts, cAllocator)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if req.zeroLimit {
		// No rows, the schema still that of the columns asked for.
		schema := rdr.Schema()
		rdr.Release()
		if rdr, err = array.NewRecordReader(schema, nil); err != nil {
			cancel()
			return nil, nil, err
		}
	}
	return rdr, cancel, nil
}
