package main

// #include "capi.h"
import "C"

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// floe_catalog_commit_transaction: one action list per table handle (the
// lists floe_table_transaction takes, parsed by parseTxActions), committed
// on tables of one catalog atomically (catalog.CommitTransaction).

// catalogTxEntry is one element of transactions_json: the actions for
// the table handle at the same index, and that transaction's token.
type catalogTxEntry struct {
	Actions json.RawMessage `json:"actions"`
	Token   string          `json:"token"`
}

// catalogTxOptions is the options_json of floe_catalog_commit_transaction.
type catalogTxOptions struct {
	// TimeoutMs bounds this call instead of the catalog's timeout_ms.
	TimeoutMs *int64 `json:"timeout_ms"`
	// DiscardRefused: the snapshot actions' files were written for this
	// commit only, and are deleted when it fails with a known outcome or
	// a table finds its token (ops.DiscardNotTaken, per table).
	DiscardRefused bool `json:"discard_refused"`
}

// catalogTxResult is the result JSON: each table's floe_table_transaction
// result, in the order of the handles.
type catalogTxResult struct {
	Tables []txResult `json:"tables"`
}

//export capiCatalogCommitTransaction
func capiCatalogCommitTransaction(h C.uintptr_t, tables *C.uintptr_t, n C.size_t, transactionsJSON, optionsJSON *C.char, resultJSON **C.char) (rc C.int) {
	const fn = "floe_catalog_commit_transaction"
	defer recoverStatus(fn, &rc)
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if n == 0 {
		return fail(fn, invalidArgument("no table given"), statusInvalidArgument)
	}
	ids := slices.Clone(unsafe.Slice((*C.uintptr_t)(unsafe.Pointer(tables)), int(n)))
	handles := make([]*tableHandle, len(ids))
	for i, id := range ids {
		if handles[i], err = lookup[*tableHandle](uintptr(id), "floe_table"); err != nil {
			return fail(fn, invalidArgument("table %d: %v", i, err), statusInvalidArgument)
		}
		for j := range i {
			if ids[j] == id {
				return fail(fn, invalidArgument("tables %d and %d are the same handle: put the table's changes in one action list", j, i), statusInvalidArgument)
			}
		}
	}
	goIDs := make([]uintptr, len(ids))
	for i, id := range ids {
		goIDs[i] = uintptr(id)
	}
	data, status, err := catalogTransaction(ch, goIDs, handles, cBytes(transactionsJSON), cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, status)
	}
	*resultJSON = cString(data)
	return C.int(statusOK)
}

// catalogTransaction is floe_catalog_commit_transaction on Go values
// (ids are the handles' ids, for the locking order): the result JSON, or
// the status and error to report.
func catalogTransaction(ch *catalogHandle, ids []uintptr, handles []*tableHandle, transactionsJSON, optionsJSON []byte) ([]byte, status, error) {
	opts, timeout, err := parseCatalogTxOptions(optionsJSON)
	if err != nil {
		return nil, statusInvalidArgument, err
	}
	entries, parseErr := parseCatalogTx(transactionsJSON, len(handles))
	// Each handle commits one transaction at a time; taken in handle
	// order, two calls sharing handles wait for each other, never
	// deadlock.
	order := make([]int, len(handles))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ids[a], ids[b]) })
	for _, i := range order {
		handles[i].commitMu.Lock()
		defer handles[i].commitMu.Unlock()
	}
	ctx, cancel := callContext(context.Background(), overridden(ch.timeout, timeout))
	defer cancel()
	bases := make([]*table.Table, len(handles))
	for i, th := range handles {
		base := *th.current()
		bases[i] = &base
	}
	if parseErr != nil {
		// Refused as read: nothing commits, and every list's files go
		// when asked (each list is read to its end).
		if opts.DiscardRefused && entries != nil {
			parseErr = discardNotTakenAll(ctx, bases, entries, nil, parseErr)
		}
		return nil, statusInvalidArgument, parseErr
	}
	txs := make([]*table.Transaction, len(handles))
	for i := range handles {
		txs[i] = bases[i].TransactionWith(table.TransactionOptions{Token: entries[i].token})
		if err = entries[i].actions.addTo(ctx, txs[i]); err != nil {
			// The tables up to it took row-level steps that wrote files.
			for _, tx := range txs[:i+1] {
				tx.Discard(ctx)
			}
			err = invalidArgument("table %d: %v", i, err)
			break
		}
	}
	var results []table.TransactionResult
	if err == nil {
		results, err = catalog.CommitTransaction(ctx, ch.cat, txs...)
	}
	if opts.DiscardRefused {
		err = discardNotTakenAll(ctx, bases, entries, results, err)
	}
	if err != nil {
		return nil, commitFailureStatus(err), err
	}
	out := catalogTxResult{Tables: make([]txResult, len(handles))}
	for i, th := range handles {
		// As after floe_table_transaction: each table's statistics, when
		// kept on commit, follow in a commit of its own.
		statisticsOnCommit(ctx, bases[i])
		th.set(bases[i])
		out.Tables[i] = newTxResult(results[i], bases[i].Metadata)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, statusInternal, err
	}
	return data, statusOK, nil
}

func compareHandles(a, b C.uintptr_t) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parsedCatalogTx is one parsed element of transactions_json.
type parsedCatalogTx struct {
	actions *txActions
	token   string
}

// parseCatalogTx reads transactions_json: an array of n objects.
func parseCatalogTx(data []byte, n int) ([]parsedCatalogTx, error) {
	data, err := checkJSON(data, "transactions")
	if err != nil {
		return nil, err
	}
	if data == nil {
		return nil, invalidArgument("transactions: none given (a JSON array with an object {\"actions\": [...]} per table)")
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, invalidArgument("transactions: want a JSON array with an object {\"actions\": [...]} per table: %v", err)
	}
	if len(raw) != n {
		return nil, invalidArgument("transactions: %d given for %d tables: give one per table, in the tables' order", len(raw), n)
	}
	// Every list is read, so a refusal still knows every list's files
	// (discard_refused); the first refusal is the error.
	out := make([]parsedCatalogTx, n)
	var first error
	for i, r := range raw {
		var e catalogTxEntry
		if err := decodeStrict(r, &e, fmt.Sprintf("transaction %d", i)); err != nil {
			first = cmp.Or(first, err)
			continue
		}
		actions, err := parseTxActions(e.Actions)
		if err != nil {
			first = cmp.Or(first, invalidArgument("transaction %d: %v", i, err))
		}
		out[i] = parsedCatalogTx{actions: actions, token: e.Token}
	}
	return out, first
}

func parseCatalogTxOptions(data []byte) (catalogTxOptions, *time.Duration, error) {
	return decodeTimedOptions(data, func(o *catalogTxOptions) *int64 { return o.TimeoutMs })
}

// discardNotTakenAll deletes each table's snapshot files when the commit
// did not take them (ops.DiscardNotTaken): every table's after a failure
// of known outcome, a table's own when it found its token.
func discardNotTakenAll(ctx context.Context, bases []*table.Table, entries []parsedCatalogTx, results []table.TransactionResult, err error) error {
	var errs []error
	for i, e := range entries {
		if e.actions == nil || len(e.actions.files) == 0 || bases[i] == nil {
			continue
		}
		switch {
		case err != nil:
			// Passed on, joined with what the discard could not delete.
			_, err = ops.DiscardNotTaken(ctx, bases[i], e.actions.files)(ops.Result{}, err)
		case results[i].TokenFound:
			if _, derr := ops.DiscardNotTaken(ctx, bases[i], e.actions.files)(ops.Result{TokenFound: true}, nil); derr != nil {
				errs = append(errs, derr)
			}
		}
	}
	if err != nil {
		return err
	}
	return errors.Join(errs...)
}
