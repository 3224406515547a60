package table

import (
	"context"
	"errors"
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/google/uuid"
)

// Transaction collects changes to one table and commits them as one new
// metadata version: metadata actions (package action: schema, partition
// spec, sort order, refs, properties, format version) and
// snapshot-producing operations (Append, Overwrite, ReplacePartitions,
// RowDelta, CommitFiles, CommitRows), applied in the order they were
// added, each on the metadata the ones before it produced. Every
// operation on Table that commits alone is a transaction of one step.
//
// Commit runs the table's commit loop once, through whatever loaded the
// table (its metadata directory, a SQL or REST catalog). Each attempt
// builds every step on the newest version; when the table moved on since
// the transaction began (another writer committed first, or the handle was
// stale), its metadata actions still apply only where what they depended
// on is unchanged (the requirements their updates imply on the version the
// transaction began on: the current schema, the default spec and sort
// order, the refs they move; action.Rebasable actions excepted), otherwise
// it fails with ErrConflict and commits nothing.
// Snapshot-producing steps re-validate themselves on each attempt, as
// they do alone (an append never conflicts; an overwrite conflicts when
// its rows changed).
//
//	tx := t.Transaction()
//	tx.Add(action.SetProperties{Set: map[string]string{"owner": "etl"}})
//	if err := tx.Append(files, table.CommitOptions{}); err != nil { … }
//	res, err := tx.Commit(ctx) // one snapshot, one metadata version
type Transaction struct {
	t     *Table
	opts  TransactionOptions
	steps []txStep
	// err is the first error adding a step; Commit returns it.
	err  error
	done bool

	// start is the table's metadata when the transaction began: what the
	// caller saw when deciding on the changes. A metadata action's updates
	// must still meet, on every version the transaction builds on, the
	// requirements they imply on start.
	start *metadata.Metadata
	// tokenSnapshot is the snapshot that already carried the token.
	tokenSnapshot int64
	// ownFiles are data and delete files written for the steps, deleted
	// unless the transaction commits (RemoveUnlessCommitted).
	ownFiles []string
}

// TransactionOptions are what a caller attaches to a whole transaction.
type TransactionOptions struct {
	// Token makes the transaction idempotent (CommitOptions.Token): it is
	// recorded in the summary of the first snapshot the transaction
	// produces, and a transaction whose token is already in the table
	// commits nothing. It needs at least one snapshot-producing step to be
	// recorded in. A step's own CommitOptions.Token must be empty or the
	// same.
	Token string
}

// TransactionResult is what a committed transaction did.
type TransactionResult struct {
	// Committed is false when there was nothing to change, or when the
	// token was found (TokenFound).
	Committed  bool
	TokenFound bool
	// SnapshotIDs are the snapshots the snapshot-producing steps made, in
	// order; with TokenFound, the one snapshot that carried the token.
	SnapshotIDs []int64
	// MetadataLocation is the table's metadata file after the commit.
	MetadataLocation string
	// Expire is what an ExpireSnapshots step did, when there is one (also
	// when it had nothing to expire).
	Expire *ExpireResult
}

// txStep is one change: a metadata action, a snapshot-producing update,
// or a cherry-pick (which fast-forwards or produces a snapshot, decided
// on each attempt).
type txStep struct {
	action   action.Action
	producer *snapshotProducer
	pick     *cherryPick
	expire   *expireStep
}

func (s txStep) name() string {
	switch {
	case s.action != nil:
		return s.action.Name()
	case s.pick != nil:
		return "cherry-pick"
	case s.expire != nil:
		return "expire snapshots"
	}
	return s.producer.u.what
}

// snapshotProducer is the producer whose files the step wrote, if any,
// and whether the committed attempt holds its snapshot (a cherry-pick
// that fast-forwarded holds none).
func (s txStep) snapshotProducer() (p *snapshotProducer, holds bool) {
	if s.pick != nil {
		return s.pick.producer, !s.pick.result.FastForward
	}
	return s.producer, true
}

// Transaction starts a transaction on t. Committing it updates t to the
// committed version.
func (t *Table) Transaction() *Transaction { return t.TransactionWith(TransactionOptions{}) }

// TransactionWith starts a transaction with options.
func (t *Table) TransactionWith(opts TransactionOptions) *Transaction {
	return &Transaction{t: t, opts: opts, start: t.Metadata}
}

// Table is the table the transaction changes.
func (tx *Transaction) Table() *Table { return tx.t }

// Add adds metadata actions to the transaction, after the steps already
// in it.
func (tx *Transaction) Add(actions ...action.Action) *Transaction {
	for _, a := range actions {
		if a == nil {
			tx.fail(errkind.New(errkind.InvalidArgument, "transaction: a nil action"))
			continue
		}
		tx.steps = append(tx.steps, txStep{action: a})
	}
	return tx
}

// Apply commits actions as one transaction of their own.
func (t *Table) Apply(ctx context.Context, actions ...action.Action) (TransactionResult, error) {
	return t.Transaction().Add(actions...).Commit(ctx)
}

func (tx *Transaction) fail(err error) {
	if tx.err == nil {
		tx.err = err
	}
}

// addSnapshot adds a snapshot-producing step.
func (tx *Transaction) addSnapshot(u *snapshotUpdate, err error) error {
	if err != nil {
		tx.fail(err)
		return err
	}
	if err := u.opts.check(); err != nil {
		err = fmt.Errorf("%s: %w", u.what, err)
		tx.fail(err)
		return err
	}
	if u.opts.Token != "" && tx.opts.Token != "" && u.opts.Token != tx.opts.Token {
		err := errkind.Errorf(errkind.InvalidArgument, "%s: its token differs from the transaction's: a transaction has one token (give it to the transaction)", u.what)
		tx.fail(err)
		return err
	}
	tx.steps = append(tx.steps, txStep{producer: &snapshotProducer{t: tx.t, u: u, commitID: uuid.NewString(), writtenEntries: map[string][]manifest.Entry{}}})
	return nil
}

// RemoveUnlessCommitted hands the transaction files written for its steps
// (the data and delete files of a row-level change): Commit deletes them
// when the transaction does not commit, or finds its token committed
// already, and leaves them when it commits or its outcome is unknown.
func (tx *Transaction) RemoveUnlessCommitted(paths ...string) {
	tx.ownFiles = append(tx.ownFiles, paths...)
}

// Discard abandons a transaction that will not be committed (a step
// could not be added after a row-level change wrote its files): the files
// handed to RemoveUnlessCommitted are deleted and Commit refuses. It does
// nothing to a transaction already committed or tried.
func (tx *Transaction) Discard(ctx context.Context) {
	if tx.done {
		return
	}
	tx.done = true
	tx.deleteUnused(ctx, false)
}

// token is the transaction's token: its own, else its steps'.
func (tx *Transaction) token() string {
	if tx.opts.Token != "" {
		return tx.opts.Token
	}
	for _, s := range tx.steps {
		if s.producer != nil && s.producer.u.opts.Token != "" {
			return s.producer.u.opts.Token
		}
	}
	return ""
}

// Commit commits the transaction's steps as one metadata version. On
// success the table holds the committed version. A transaction commits
// once; on an error nothing was committed (or, with an error of kind
// CommitStateUnknown, whether it was is not known) and the files its
// steps wrote are deleted (left alone when the outcome is unknown).
func (tx *Transaction) Commit(ctx context.Context) (TransactionResult, error) {
	if tx.done {
		return TransactionResult{}, errkind.New(errkind.InvalidArgument, "transaction: already committed")
	}
	tx.done = true
	if tx.err != nil {
		tx.deleteUnused(ctx, false)
		return TransactionResult{}, tx.err
	}
	if err := tx.prepare(); err != nil {
		tx.deleteUnused(ctx, false)
		return TransactionResult{}, err
	}
	res, err := tx.t.commitMetadata(ctx, tx.build)
	if err != nil {
		if !errors.Is(err, ErrCommitStateUnknown) {
			tx.deleteUnused(ctx, false)
		}
		return TransactionResult{}, tx.wrap(err)
	}
	*tx.t = *res.Table
	out := tx.finish(ctx, res.Committed)
	return tx.afterCommit(ctx, out)
}

// afterCommit runs what steps do once their changes are in the table:
// expiry deletes the files only the expired snapshots referenced. An error
// here comes after a commit (out.Committed).
func (tx *Transaction) afterCommit(ctx context.Context, out TransactionResult) (TransactionResult, error) {
	for _, s := range tx.steps {
		if s.expire == nil {
			continue
		}
		res := ExpireResult{}
		var err error
		if out.Committed {
			res, err = s.expire.afterCommit(ctx, tx.t)
		}
		out.Expire = &res
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// prepare checks what can be checked before the first attempt.
func (tx *Transaction) prepare() error {
	md := tx.t.Metadata
	if md.FormatVersion < 1 || md.FormatVersion > metadata.MaxFormatVersion {
		return errkind.Errorf(errkind.Unsupported, "%s: unsupported format version %d", tx.what(), md.FormatVersion)
	}
	tok := tx.token()
	if tok == "" {
		return nil
	}
	// The token is looked for once, on each attempt's base (build), and
	// recorded in the first snapshot the transaction makes: every step
	// after it would find it in the uncommitted first one.
	recorded := false
	for _, s := range tx.steps {
		if s.producer == nil {
			continue
		}
		if t := s.producer.u.opts.Token; t != "" && t != tok {
			return errkind.Errorf(errkind.InvalidArgument, "%s: its token differs from the transaction's: a transaction has one token (give it to the transaction)", s.name())
		}
		s.producer.u.opts.Token = ""
		if !recorded {
			s.producer.u.opts.Token, recorded = tok, true
		}
	}
	if !recorded {
		return errkind.Errorf(errkind.InvalidArgument, "transaction: a token needs a snapshot to be recorded in, and no step of the transaction makes one")
	}
	return nil
}

// finish cleans up after a commit and says what it did.
func (tx *Transaction) finish(ctx context.Context, committed bool) TransactionResult {
	out := TransactionResult{MetadataLocation: tx.t.MetadataLocation}
	if !committed {
		tx.deleteUnused(ctx, false)
		if tx.tokenSnapshot != 0 {
			out.TokenFound = true
			out.SnapshotIDs = []int64{tx.tokenSnapshot}
		}
		return out
	}
	out.Committed = true
	tx.deleteUnused(ctx, true)
	for _, s := range tx.steps {
		switch {
		case s.producer != nil:
			out.SnapshotIDs = append(out.SnapshotIDs, s.producer.snapshotID)
		case s.pick != nil:
			out.SnapshotIDs = append(out.SnapshotIDs, s.pick.result.SnapshotID)
		}
	}
	return out
}

// deleteUnused deletes, best effort, the files the steps wrote that the
// committed version does not hold (all of them when nothing was
// committed).
func (tx *Transaction) deleteUnused(ctx context.Context, committed bool) {
	if !committed {
		del := context.WithoutCancel(ctx)
		for _, p := range tx.ownFiles {
			_ = tx.t.IO.Delete(del, p)
		}
	}
	for _, s := range tx.steps {
		p, holds := s.snapshotProducer()
		if p == nil {
			continue
		}
		if !committed || !holds {
			p.deleteUnused(ctx, nil)
			continue
		}
		keep := map[string]bool{p.listPath: true}
		for _, path := range p.listed {
			keep[path] = true
		}
		p.deleteUnused(ctx, keep)
	}
}

// what names the transaction in errors: its one step's name, or
// "transaction".
func (tx *Transaction) what() string {
	if len(tx.steps) == 1 {
		return tx.steps[0].name()
	}
	return "transaction"
}

func (tx *Transaction) wrap(err error) error { return fmt.Errorf("%s: %w", tx.what(), err) }
