package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"

	"github.com/floedb/floe/writer/ops"
)

// upsertOptions is the options_json of floe_upsert: a commit's options,
// and pyiceberg's upsert arguments (both when-clauses default to true,
// case_sensitive too).
type upsertOptions struct {
	commitOptions
	JoinCols                []string `json:"join_cols"`
	Mode                    string   `json:"mode"`
	WhenMatchedUpdateAll    *bool    `json:"when_matched_update_all"`
	WhenNotMatchedInsertAll *bool    `json:"when_not_matched_insert_all"`
	CaseSensitive           *bool    `json:"case_sensitive"`
}

// parseUpsertOptions reads options_json into ops.UpsertOptions; a mode
// other than the three is refused here, before the input is read.
func parseUpsertOptions(data []byte) (ops.UpsertOptions, *upsertOptions, error) {
	var o upsertOptions
	if err := decodeStrict(data, &o, "upsert options"); err != nil {
		return ops.UpsertOptions{}, nil, err
	}
	orTrue := func(b *bool) bool { return b == nil || *b }
	mode := ops.UpsertMode(o.Mode)
	switch mode {
	case "", ops.UpsertMergeOnRead, ops.UpsertCopyOnWrite, ops.UpsertEqualityDeletes:
	default:
		return ops.UpsertOptions{}, nil, invalidArgument("upsert options: mode %q: want %s, %s or %s", o.Mode, ops.UpsertMergeOnRead, ops.UpsertCopyOnWrite, ops.UpsertEqualityDeletes)
	}
	return ops.UpsertOptions{
		JoinCols:                o.JoinCols,
		CaseInsensitive:         !orTrue(o.CaseSensitive),
		Mode:                    mode,
		WhenMatchedUpdateAll:    orTrue(o.WhenMatchedUpdateAll),
		WhenNotMatchedInsertAll: orTrue(o.WhenNotMatchedInsertAll),
		Commit:                  o.table(),
	}, &o, nil
}

// upsertResult is the JSON floe_upsert returns.
type upsertResult struct {
	SnapshotID   int64 `json:"snapshot_id"`
	Committed    bool  `json:"committed"`
	TokenFound   bool  `json:"token_found"`
	RowsUpdated  int64 `json:"rows_updated"`
	RowsInserted int64 `json:"rows_inserted"`
	RowsDeleted  int64 `json:"rows_deleted"`
}

func newUpsertResult(r ops.UpsertResult) upsertResult {
	return upsertResult{
		SnapshotID: r.SnapshotID, Committed: r.Committed, TokenFound: r.TokenFound,
		RowsUpdated: r.RowsUpdated, RowsInserted: r.RowsInserted, RowsDeleted: r.DeletedRows,
	}
}

//export capiUpsert
func capiUpsert(h C.uintptr_t, data *C.struct_ArrowArrayStream, optionsJSON *C.char, resultJSON **C.char) (rc C.int) {
	const fn = "floe_upsert"
	defer recoverStatus(fn, &rc)
	rdr, err := importStream(data)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	defer rdr.Release()
	opts, raw, err := parseUpsertOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	timeout, err := raw.timeout()
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	ctx, cancel := callContext(th.metered(context.Background()), overridden(th.timeout, timeout))
	defer cancel()
	res, err := ops.Upsert(ctx, &base, countRows(ctx, rdr), opts)
	if err != nil {
		return fail(fn, err, commitFailureStatus(err))
	}
	statisticsOnCommit(ctx, &base)
	th.set(&base)
	out, err := json.Marshal(newUpsertResult(res))
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*resultJSON = cString(out)
	return C.int(statusOK)
}
