package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// build is the transaction's buildFunc: its steps applied in order on
// base, each on the metadata the steps before it produced. Nil changes:
// the token is already in the table, or no step changes anything.
func (tx *Transaction) build(ctx context.Context, base *Table, attempt int) (*metadata.Changes, error) {
	md := base.Metadata
	if tok := tx.token(); tok != "" {
		id, ok, err := SnapshotWithToken(md, tok)
		if err != nil {
			return nil, err
		}
		if ok {
			tx.tokenSnapshot = id
			return nil, nil
		}
	}
	changes := metadata.Edit(md)
	// own are the snapshots this attempt's steps made so far: a later
	// step's conflict checks skip them (commitBase.own).
	own := map[int64]bool{}
	var nullFree []nullFreeStep
	for _, s := range tx.steps {
		cur := changes.Metadata()
		var updates []metadata.Update
		if s.action != nil {
			ups, err := s.action.Build(cur)
			if err != nil {
				return nil, tx.stepErr(s.name(), tx.buildFailed(md, s.action, err))
			}
			if nf, ok := s.action.(action.NullFree); ok {
				if fields := nf.NullFreeFields(cur); len(fields) > 0 {
					nullFree = append(nullFree, nullFreeStep{s.name(), fields})
				}
			}
			if err := tx.checkStart(md, s.action, ups); err != nil {
				return nil, tx.stepErr(s.name(), err)
			}
			updates = ups
		} else if s.expire != nil {
			ups, err := s.expire.build(cur)
			if err != nil {
				return nil, tx.stepErr(s.name(), err)
			}
			updates = ups
		} else if s.pick != nil {
			s.pick.own = own
			pc, err := s.pick.build(ctx, base.withMetadata(cur), attempt)
			if err != nil {
				return nil, tx.stepErr(s.name(), err)
			}
			updates = pc.Updates()
		} else {
			s.producer.own = own
			pc, err := s.producer.build(ctx, base.withMetadata(cur), attempt)
			if err != nil {
				return nil, tx.stepErr(s.name(), err)
			}
			if pc == nil {
				// The token was checked above; a step finds it only when
				// it is its own.
				tx.tokenSnapshot = s.producer.existingID
				return nil, nil
			}
			updates = pc.Updates()
			if ref := s.producer.stagedOn; ref != "" {
				// A staged snapshot moves no ref, so its updates imply no
				// requirement on the one it was built on (refAt).
				changes.Require(refAt(md, ref))
			}
		}
		if err := changes.Apply(updates...); err != nil {
			return nil, tx.stepErr(s.name(), err)
		}
		for _, u := range updates {
			if add, ok := u.(metadata.AddSnapshot); ok {
				own[add.Snapshot.SnapshotID] = true
			}
		}
	}
	// Columns made required are checked on what the whole transaction
	// leaves on main, so a later step's files count too.
	for _, nf := range nullFree {
		if err := tx.checkNullFree(ctx, base, changes, nf.fields); err != nil {
			return nil, tx.stepErr(nf.step, err)
		}
	}
	if len(changes.Updates()) == 0 {
		return nil, nil
	}
	return changes, nil
}

// checkStart refuses an action's updates on md, the version an attempt
// builds on, when md no longer meets what they imply on the version the
// transaction began on: another writer changed what the action depends on
// since the caller decided on it.
func (tx *Transaction) checkStart(md *metadata.Metadata, a action.Action, updates []metadata.Update) error {
	// A rebasable action is held to the start too when a step writes
	// files: their manifests were written once, under the schema and spec
	// the start gave.
	if r, ok := a.(action.Rebasable); ok && r.Rebasable() && !tx.writesFiles() {
		return nil
	}
	for _, req := range metadata.RequirementsOf(tx.start, updates) {
		if _, uuid := req.(metadata.AssertTableUUID); uuid {
			continue
		}
		if err := req.Check(md); err != nil {
			return fmt.Errorf("the table changed since the transaction began: %w: %w", err, ErrConflict)
		}
	}
	return nil
}

// buildFailed is the error of an action that could not be built on md:
// when the table moved on since the transaction began and the action
// builds on that first version, what it depended on changed (another
// writer dropped the column it drops): a conflict, not bad input.
func (tx *Transaction) buildFailed(md *metadata.Metadata, a action.Action, err error) error {
	if md == tx.start {
		return err
	}
	ups, startErr := a.Build(tx.start)
	if startErr != nil {
		return err
	}
	if conflict := tx.checkStart(md, a, ups); conflict != nil {
		return fmt.Errorf("%w (on the version it began on it applied)", conflict)
	}
	return err
}

// writesFiles says whether a step writes manifests (snapshot-producing
// steps, cherry-picks).
func (tx *Transaction) writesFiles() bool {
	for _, s := range tx.steps {
		if s.producer != nil || s.pick != nil {
			return true
		}
	}
	return false
}

// stepErr names the step an error came from when the transaction has
// several (a transaction of one is named by Commit).
func (tx *Transaction) stepErr(step string, err error) error {
	if len(tx.steps) == 1 {
		return err
	}
	return fmt.Errorf("%s: %w", step, err)
}

// withMetadata is t at other metadata: what a step builds on inside a
// transaction (the table with the earlier steps applied).
func (t *Table) withMetadata(md *metadata.Metadata) *Table {
	c := *t
	c.Metadata = md
	return &c
}

// nullFreeStep is a step's columns that must hold no null.
type nullFreeStep struct {
	step   string
	fields []int
}

// checkNullFree refuses a change that needs columns to hold no nulls
// (a column made required) unless every live data file main holds once
// the transaction's steps are applied counts no null in each of them; a
// file without a null count for one, written before the column existed or
// by a writer that kept no metrics, may hold nulls. The changes then
// require main to be where the attempt's base has it, so an append racing
// this commit makes it conflict rather than slip a null in.
func (tx *Transaction) checkNullFree(ctx context.Context, base *Table, changes *metadata.Changes, fields []int) error {
	md := changes.Metadata()
	var head *int64
	if r, ok := base.Metadata.Refs[metadata.MainBranch]; ok {
		id := r.SnapshotID
		head = &id
	}
	changes.Require(metadata.AssertRefSnapshotID{Ref: metadata.MainBranch, SnapshotID: head})
	b, err := newCommitBase(base.withMetadata(md), metadata.MainBranch)
	if err != nil {
		return err
	}
	if b.head == nil {
		return nil
	}
	return b.liveFiles(ctx, nil, func(lf liveFile) error {
		df := &lf.entry.DataFile
		if df.Content != manifest.ContentData {
			return nil
		}
		for _, id := range fields {
			n, ok := df.Metrics.NullCount(id)
			if !ok || n > 0 {
				name, found := md.CurrentSchema().FullName(id)
				if !found {
					name = fmt.Sprint(id)
				}
				if ok {
					return errkind.Errorf(errkind.InvalidArgument, "column %q cannot be required: data file %s holds %d null(s) in it", name, df.FilePath, n)
				}
				return errkind.Errorf(errkind.InvalidArgument, "column %q cannot be required: data file %s has no null count for it, so it may hold nulls", name, df.FilePath)
			}
		}
		return nil
	})
}
