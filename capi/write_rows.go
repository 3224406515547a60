package main

// #include "capi.h"
import "C"

import (
	"context"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/scan"
	"github.com/floedb/floe/writer"
)

// parseFilterArg reads a filter given as a C string (see reader.FilterArg).
func parseFilterArg(filter *C.char) (expr.Expr, error) {
	if filter == nil {
		return nil, invalidArgument("no filter (use \"true\" for every row)")
	}
	e, err := scan.ParseFilter(scan.FilterArg(C.GoString(filter)))
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
func parseRowArgs(filter, commitJSON *C.char) (expr.Expr, writer.RowOptions, error) {
	where, err := parseFilterArg(filter)
	if err != nil {
		return nil, writer.RowOptions{}, err
	}
	opts, err := parseRowCommitOptions(cBytes(commitJSON))
	return where, opts, err
}

//export capiDeleteRows
func capiDeleteRows(h C.uintptr_t, filter, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	const fn = "floe_delete_rows"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	where, opts, err := parseRowArgs(filter, commitJSON)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	res, err := writer.DeleteRows(context.Background(), &base, where, opts)
	if err != nil {
		return fail(fn, err, commitFailureStatus(err))
	}
	th.set(&base)
	*snapshotID = C.int64_t(res.SnapshotID)
	return C.int(statusOK)
}

//export capiOverwrite
func capiOverwrite(h C.uintptr_t, filter *C.char, data *C.struct_ArrowArrayStream, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	const fn = "floe_overwrite"
	defer recoverStatus(fn, &rc)
	where, opts, err := parseRowArgs(filter, commitJSON)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return writeAndCommitWith(fn, h, data, opts.Commit, snapshotID,
		func(t *table.Table, ctx context.Context, files []manifest.DataFile, commit table.CommitOptions) (table.CommitResult, error) {
			opts.Commit = commit
			return writer.OverwriteRows(ctx, t, where, files, opts)
		})
}
