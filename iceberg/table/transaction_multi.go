package table

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// MultiPublisher publishes commits to several tables of one catalog as
// one: every table moves to its new version, or none does. A SQL catalog
// swaps every table's row in one database transaction; a REST catalog
// sends the protocol's CommitTransactionRequest.
type MultiPublisher interface {
	// PublishTables commits changes[i], built on bases[i], for every i,
	// all or none, and returns the tables at the versions published, in
	// order. ErrStale: some table moved on since its base (or a
	// requirement failed) and nothing was published; an error of kind
	// CommitStateUnknown: whether they were published is not known (then
	// all were, or none). Bases are tables this catalog loaded; a base of
	// another catalog is refused (InvalidArgument).
	PublishTables(ctx context.Context, bases []*Table, changes []*metadata.Changes) ([]*Table, error)
}

// CommitTransactions commits transactions on several tables of one
// catalog atomically through pub: after it, every table holds its
// transaction's changes, or none does. It is Transaction.Commit for many:
// each transaction is built on its table's current version (its metadata
// actions' requirements on the first version fixed, as for one), all are
// published at once, and when any table moved on every table is
// refreshed and every transaction built again, under the tables' retry
// policy (the fewest retries and shortest total timeout of the tables'
// commit.retry.* settings, the longest waits). A transaction that finds
// nothing to change (or its token already committed) is left out of the
// publish. On an error nothing was committed (of kind
// CommitStateUnknown: not known) and the files the steps wrote are
// deleted (left alone when the outcome is unknown).
//
// Tables opened by path (no catalog: each its own metadata directory)
// have no common point to swap atomically and are refused
// (errkind.Unsupported); so is a table given twice (InvalidArgument).
// The results are in the order of txs; each table moves to its
// committed version as Transaction.Commit moves it.
func CommitTransactions(ctx context.Context, pub MultiPublisher, txs ...*Transaction) ([]TransactionResult, error) {
	if err := checkMulti(pub, txs); err != nil {
		discardAll(ctx, txs)
		return nil, err
	}
	for _, tx := range txs {
		tx.done = true
	}
	for _, tx := range txs {
		if err := tx.prepare(); err != nil {
			for _, tx := range txs {
				tx.deleteUnused(ctx, false)
			}
			return nil, multiErr(tx, err)
		}
	}
	committed, tables, err := commitMulti(ctx, pub, txs)
	if err != nil {
		if !errors.Is(err, ErrCommitStateUnknown) {
			for _, tx := range txs {
				tx.deleteUnused(ctx, false)
			}
		}
		return nil, err
	}
	out := make([]TransactionResult, len(txs))
	var afterErr error
	for i, tx := range txs {
		*tx.t = *tables[i]
		// Expiry steps delete their files once all tables committed.
		if out[i], err = tx.afterCommit(ctx, tx.finish(ctx, committed[i])); err != nil && afterErr == nil {
			afterErr = multiErr(tx, err)
		}
	}
	return out, afterErr
}

// discardAll deletes the files written for the steps of transactions
// refused before any was built (a row-level change's files), leaving
// those already committed or holding nothing alone.
func discardAll(ctx context.Context, txs []*Transaction) {
	for _, tx := range txs {
		if tx != nil {
			tx.Discard(ctx)
		}
	}
}

// checkMulti refuses what cannot be committed together, before anything
// is built: a transaction already committed or holding an error, a path
// table, a table given twice.
func checkMulti(pub MultiPublisher, txs []*Transaction) error {
	if pub == nil {
		return errkind.New(errkind.InvalidArgument, "multi-table transaction: no catalog to commit through")
	}
	if len(txs) == 0 {
		return errkind.New(errkind.InvalidArgument, "multi-table transaction: no transaction to commit")
	}
	seen := map[string]bool{}
	for _, tx := range txs {
		if tx == nil {
			return errkind.New(errkind.InvalidArgument, "multi-table transaction: a nil transaction")
		}
		if tx.done {
			return multiErr(tx, errkind.New(errkind.InvalidArgument, "transaction: already committed"))
		}
		if tx.err != nil {
			return multiErr(tx, tx.err)
		}
		if tx.t.Publisher == nil {
			return errkind.Errorf(errkind.Unsupported, "multi-table transaction: table %s was opened by path: only tables of a SQL or REST catalog commit together (a path table's versions are files in its own directory, with nothing shared to swap atomically)", tx.t.MetadataLocation)
		}
		key := tx.t.Metadata.TableUUID
		if key == "" {
			key = tx.t.Metadata.Location
		}
		if seen[key] {
			return errkind.Errorf(errkind.InvalidArgument, "multi-table transaction: table %s is in two transactions; put its changes in one", tx.t.Metadata.Location)
		}
		seen[key] = true
	}
	return nil
}

// multiErr names the table an error of one transaction came from.
func multiErr(tx *Transaction, err error) error {
	return fmt.Errorf("multi-table transaction: table %s: %w", tx.t.Metadata.Location, tx.wrap(err))
}

// commitMulti is commitMetadata for several tables: build each on its
// base, publish all, and on ErrStale refresh all and build again. It
// returns, per transaction, whether it was published and the table it
// leaves (its new version, or the refreshed base when it had nothing to
// publish).
func commitMulti(ctx context.Context, pub MultiPublisher, txs []*Transaction) ([]bool, []*Table, error) {
	retry, err := multiRetryPolicy(txs)
	if err != nil {
		return nil, nil, err
	}
	started := time.Now()
	bases := make([]*Table, len(txs))
	for i, tx := range txs {
		bases[i] = tx.t
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var pubBases []*Table
		var pubChanges []*metadata.Changes
		var which []int
		for i, tx := range txs {
			changes, err := tx.build(ctx, bases[i], attempt)
			if err != nil {
				return nil, nil, multiErr(tx, err)
			}
			if changes == nil {
				continue
			}
			if testHookChanges != nil {
				testHookChanges(bases[i], changes)
			}
			pubBases = append(pubBases, bases[i])
			pubChanges = append(pubChanges, changes)
			which = append(which, i)
		}
		committed := make([]bool, len(txs))
		if len(which) == 0 {
			return committed, bases, nil
		}
		// As in publish: cancellation stops a commit before, never inside.
		published, err := pub.PublishTables(context.WithoutCancel(ctx), pubBases, pubChanges)
		if err == nil {
			if len(published) != len(which) {
				return nil, nil, fmt.Errorf("multi-table transaction: %w: the catalog answered with %d tables for %d published", ErrCommitStateUnknown, len(published), len(which))
			}
			commitStep("published")
			tables := append([]*Table(nil), bases...)
			for k, i := range which {
				tables[i] = published[k]
				committed[i] = true
			}
			return committed, tables, nil
		}
		if !errors.Is(err, ErrStale) {
			return nil, nil, fmt.Errorf("multi-table transaction: %w", err)
		}
		if attempt >= retry.retries || time.Since(started) > retry.totalTimeout {
			return nil, nil, fmt.Errorf("multi-table transaction of %d tables: other writers committed first on each of %d attempts: %w", len(txs), attempt+1, ErrConflict)
		}
		if err := retry.wait(ctx, attempt); err != nil {
			return nil, nil, err
		}
		for i, tx := range txs {
			fresh, err := bases[i].refreshed(ctx)
			if err != nil {
				return nil, nil, multiErr(tx, fmt.Errorf("commit: refresh after losing a race: %w", err))
			}
			bases[i] = fresh
		}
	}
}

// multiRetryPolicy combines the tables' commit.retry.* settings so that
// no table retries longer or more often than it asks: the fewest retries
// and the shortest total timeout, the longest waits.
func multiRetryPolicy(txs []*Transaction) (retryPolicy, error) {
	var p retryPolicy
	for i, tx := range txs {
		q, err := retryPolicyOf(tx.t.Metadata)
		if err != nil {
			return retryPolicy{}, multiErr(tx, err)
		}
		if i == 0 {
			p = q
			continue
		}
		p.retries = min(p.retries, q.retries)
		p.totalTimeout = min(p.totalTimeout, q.totalTimeout)
		p.minWait = max(p.minWait, q.minWait)
		p.maxWait = max(p.maxWait, q.maxWait)
	}
	return p, nil
}
