package main

// #include "capi.h"
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/inspect"
)

// planInspectOptions splits floe_inspect_plan's options_json into
// floe_inspect's options and the one key of its own, task_size (manifest
// bytes per task; 0 or absent: inspect.DefaultTaskSize).
func planInspectOptions(data []byte) (inspectRequest, int64, error) {
	data, err := checkJSON(data, "inspect options")
	if err != nil || data == nil {
		return inspectRequest{}, 0, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return inspectRequest{}, 0, invalidArgument("inspect options: %v", err)
	}
	var size int64
	if raw, ok := keys["task_size"]; ok {
		if err := json.Unmarshal(raw, &size); err != nil || size < 0 {
			return inspectRequest{}, 0, invalidArgument("inspect options: task_size %s: give a number of bytes, 0 or more", raw)
		}
		delete(keys, "task_size")
		if data, err = json.Marshal(keys); err != nil {
			return inspectRequest{}, 0, invalidArgument("inspect options: %v", err)
		}
	}
	req, err := parseInspectOptions(data)
	return req, size, err
}

// planInspect is floe_inspect_plan's answer: a JSON array of the
// serialised tasks (each element, as its own JSON text, is what
// floe_task_stream reads). A limit of 0 rows has no task.
func planInspect(t *tableHandle, kind inspect.Kind, optionsJSON []byte) ([]byte, error) {
	req, size, err := planInspectOptions(optionsJSON)
	if err != nil {
		return nil, err
	}
	if req.zeroLimit {
		return []byte("[]"), nil
	}
	ctx, cancel := callContext(context.Background(), overridden(t.timeout, req.timeout))
	defer cancel()
	tasks, err := inspect.PlanTasks(ctx, t.current(), kind, req.opts, size)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('[')
	for i, task := range tasks {
		b, err := task.MarshalBinary()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(b)
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}

//export capiInspectPlan
func capiInspectPlan(th C.uintptr_t, kind, optionsJSON *C.char, out **C.char) (rc C.int) {
	const fn = "floe_inspect_plan"
	defer recoverStatus(fn, &rc)
	t, err := lookup[*tableHandle](uintptr(th), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	k := strings.TrimSpace(C.GoString(kind))
	if k == "" {
		return fail(fn, invalidArgument("kind is empty: name a metadata table of manifest entries (files, entries, …)"), statusInvalidArgument)
	}
	data, err := planInspect(t, inspect.Kind(k), cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	*out = cString(data)
	return C.int(statusOK)
}

// openInspectTask reads a serialised inspect task (floe_task_stream
// hands it here when inspect.IsTask says the bytes are one): its
// manifests reached through the options' location map and storage
// properties, under a call context the stream owns. A limit or batch
// size the caller gives (nil, 0: none) replaces the task's.
func openInspectTask(data []byte, opts tableOptions, limit *int64, batchSize int) (array.RecordReader, context.CancelFunc, error) {
	task, err := inspect.UnmarshalTask(data)
	if err != nil {
		return nil, nil, err
	}
	if limit != nil {
		task.Limit = *limit
	}
	if batchSize > 0 {
		task.BatchSize = batchSize
	}
	locations, err := fileio.NewLocationMap(opts.LocationMap)
	if err != nil {
		return nil, nil, withStatus(statusInvalidArgument, err)
	}
	// A router: each manifest's path finds its own file system.
	files, err := fileio.ForLocation(task.Manifests[0].Path, fileio.Options{LocationMap: locations, S3: opts.S3, GCS: opts.GCS, Azure: opts.Azure})
	if err != nil {
		return nil, nil, withStatus(statusUnsupported, err)
	}
	ctx, cancel := callContext(context.Background(), opts.timeout())
	rdr, err := task.Reader(ctx, files, cAllocator)
	if err == nil && limit != nil && *limit == 0 {
		// No rows (the task's 0 is no limit), the schema still the task's.
		schema := rdr.Schema()
		rdr.Release()
		rdr, err = array.NewRecordReader(schema, nil)
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return rdr, cancel, nil
}
