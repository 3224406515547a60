package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// floe_table_transaction: a list of actions (transaction_actions.go)
// committed on the handle's table as one table.Transaction, one new
// metadata version. The action list's parsing (parseTxActions) and the
// result's form (newTxResult) are shared with the multi-table entry.

// txOptions is the options_json of floe_table_transaction.
type txOptions struct {
	// Token makes the transaction idempotent (table.TransactionOptions).
	Token string `json:"token"`
	// TimeoutMs bounds this call instead of the handle's timeout_ms.
	TimeoutMs *int64 `json:"timeout_ms"`
	// DiscardRefused: the files the snapshot steps commit were written
	// for this transaction only, and are deleted (ops.DiscardNotTaken)
	// when it fails with a known outcome or finds its token committed.
	DiscardRefused bool `json:"discard_refused"`
}

func parseTxOptions(data []byte) (txOptions, *time.Duration, error) {
	return decodeTimedOptions(data, func(o *txOptions) *int64 { return o.TimeoutMs })
}

// decodeTimedOptions reads a transaction entry's options (strictly) and
// the timeout_ms that bounds the call, nil when not given.
func decodeTimedOptions[T any](data []byte, timeoutMs func(*T) *int64) (T, *time.Duration, error) {
	var o T
	if err := decodeStrict(data, &o, "transaction options"); err != nil {
		return o, nil, err
	}
	ms := timeoutMs(&o)
	if ms == nil {
		return o, nil, nil
	}
	d, err := timeoutOption("transaction options", *ms)
	return o, &d, err
}

// txResult is the result JSON of floe_table_transaction (and, per table,
// of the multi-table entry): what was committed and what the table's
// metadata now makes current.
type txResult struct {
	Committed         bool    `json:"committed"`
	TokenFound        bool    `json:"token_found"`
	SnapshotIDs       []int64 `json:"snapshot_ids"`
	MetadataLocation  string  `json:"metadata_location"`
	FormatVersion     int     `json:"format_version"`
	CurrentSnapshotID *int64  `json:"current_snapshot_id"`
	CurrentSchemaID   int     `json:"current_schema_id"`
	DefaultSpecID     int     `json:"default_spec_id"`
	DefaultSortOrder  int     `json:"default_sort_order_id"`
	// Refs are the table's branches and tags after the commit, in the
	// metadata JSON's form.
	Refs map[string]txRef `json:"refs"`
	// Expire is what an expire-snapshots action did, when there is one.
	Expire *expireResult `json:"expire,omitempty"`
}

type txRef struct {
	SnapshotID         int64  `json:"snapshot-id"`
	Type               string `json:"type"`
	MinSnapshotsToKeep *int   `json:"min-snapshots-to-keep,omitempty"`
	MaxSnapshotAgeMs   *int64 `json:"max-snapshot-age-ms,omitempty"`
	MaxRefAgeMs        *int64 `json:"max-ref-age-ms,omitempty"`
}

// newTxResult describes a committed transaction on t, the table as the
// commit left it.
func newTxResult(res table.TransactionResult, md *metadata.Metadata) txResult {
	out := txResult{
		Committed: res.Committed, TokenFound: res.TokenFound, SnapshotIDs: nonNil(slices.Clone(res.SnapshotIDs)),
		MetadataLocation: res.MetadataLocation, FormatVersion: md.FormatVersion,
		CurrentSnapshotID: md.CurrentSnapshotID, CurrentSchemaID: md.CurrentSchemaID,
		DefaultSpecID: md.DefaultSpecID, DefaultSortOrder: md.DefaultSortOrderID,
		Refs: map[string]txRef{},
	}
	if e := res.Expire; e != nil {
		expire := newExpireResult(*e)
		out.Expire = &expire
	}
	for name, r := range md.Refs {
		out.Refs[name] = txRef{SnapshotID: r.SnapshotID, Type: r.Type, MinSnapshotsToKeep: r.MinSnapshotsToKeep,
			MaxSnapshotAgeMs: r.MaxSnapshotAgeMs, MaxRefAgeMs: r.MaxRefAgeMs}
	}
	return out
}

//export capiTableTransaction
func capiTableTransaction(h C.uintptr_t, actionsJSON, optionsJSON *C.char, resultJSON **C.char) (rc C.int) {
	const fn = "floe_table_transaction"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	data, status, err := tableTransaction(th, cBytes(actionsJSON), cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, status)
	}
	*resultJSON = cString(data)
	return C.int(statusOK)
}

// tableTransaction is floe_table_transaction on Go values: the result
// JSON, or the status and error to report.
func tableTransaction(th *tableHandle, actionsJSON, optionsJSON []byte) ([]byte, status, error) {
	opts, timeout, err := parseTxOptions(optionsJSON)
	if err != nil {
		return nil, statusInvalidArgument, err
	}
	actions, parseErr := parseTxActions(actionsJSON)
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	ctx, cancel := callContext(context.Background(), overridden(th.timeout, timeout))
	defer cancel()
	if parseErr != nil {
		// A list refused as it is read commits nothing: its files go too
		// when asked.
		if opts.DiscardRefused && actions != nil && len(actions.files) > 0 {
			_, parseErr = ops.DiscardNotTaken(ctx, &base, actions.files)(ops.Result{}, parseErr)
		}
		return nil, statusInvalidArgument, parseErr
	}
	res, err := commitTxActions(ctx, &base, actions, opts)
	if err != nil {
		return nil, commitFailureStatus(err), err
	}
	statisticsOnCommit(ctx, &base)
	th.set(&base)
	data, err := json.Marshal(newTxResult(res, base.Metadata))
	if err != nil {
		return nil, statusInternal, err
	}
	return data, statusOK, nil
}

// commitTxActions commits actions on t as one transaction; t holds the
// committed version on success. With opts.DiscardRefused, the files its
// snapshot steps were given go when the commit does not take them.
func commitTxActions(ctx context.Context, t *table.Table, actions *txActions, opts txOptions) (table.TransactionResult, error) {
	tx := t.TransactionWith(table.TransactionOptions{Token: opts.Token})
	var res table.TransactionResult
	err := actions.addTo(ctx, tx)
	if err == nil {
		res, err = tx.Commit(ctx)
	}
	// A step refused as it was added takes no file either.
	if opts.DiscardRefused && len(actions.files) > 0 {
		_, err = ops.DiscardNotTaken(ctx, t, actions.files)(ops.Result{TokenFound: res.TokenFound}, err)
	}
	if err != nil {
		return table.TransactionResult{}, err
	}
	return res, nil
}
