package main

// #include "capi.h"
import "C"

import (
	"context"
	"time"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// parseFilterArg reads a filter given as a C string (expr.ParseFilter).
func parseFilterArg(filter *C.char) (expr.Expr, error) {
	if filter == nil {
		return nil, invalidArgument("no filter (use \"true\" for every row)")
	}
	e, err := expr.ParseFilter(C.GoString(filter))
	if err != nil {
		return nil, withStatus(statusInvalidArgument, err)
	}
	if e == nil {
		return nil, invalidArgument("empty filter (use \"true\" for every row)")
	}
	return e, nil
}

// parseRowArgs reads the filter and the commit options of a row-level
// delete or overwrite.
func parseRowArgs(filter, commitJSON *C.char) (expr.Expr, ops.RowOptions, *time.Duration, error) {
	where, err := parseFilterArg(filter)
	if err != nil {
		return nil, ops.RowOptions{}, nil, err
	}
	opts, timeout, err := parseRowCommitOptions(cBytes(commitJSON))
	return where, opts, timeout, err
}

//export capiDeleteRows
func capiDeleteRows(h C.uintptr_t, filter, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	const fn = "floe_delete_rows"
	defer recoverStatus(fn, &rc)
	where, opts, timeout, err := parseRowArgs(filter, commitJSON)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return runOnHandle(fn, h, snapshotID, timeout, func(t *table.Table, ctx context.Context) (ops.Result, error) {
		return ops.DeleteRows(ctx, t, where, opts)
	})
}

//export capiOverwrite
func capiOverwrite(h C.uintptr_t, filter *C.char, data *C.struct_ArrowArrayStream, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	const fn = "floe_overwrite"
	defer recoverStatus(fn, &rc)
	rdr, err := importStream(data)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	defer rdr.Release()
	where, opts, timeout, err := parseRowArgs(filter, commitJSON)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return runOnHandle(fn, h, snapshotID, timeout, func(t *table.Table, ctx context.Context) (ops.Result, error) {
		return ops.OverwriteRows(ctx, t, where, countRows(ctx, rdr), opts)
	})
}
