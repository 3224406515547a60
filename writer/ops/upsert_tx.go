package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
)

// UpsertIn adds Upsert to a transaction (pyiceberg's tx.upsert): the
// input is matched against the transaction's table as it began, the new
// rows and deletes are written now, and the change commits with the rest
// of the transaction (a CommitRows step) or not at all: its files are
// deleted when the transaction does not commit. When nothing changes no
// step is added. The counts are those of the step; the transaction has
// the token, so opts.Commit.Token must be empty.
func UpsertIn(ctx context.Context, tx *table.Transaction, input array.RecordReader, opts UpsertOptions) (UpsertResult, error) {
	const what = "upsert"
	if tx == nil {
		return UpsertResult{}, errkind.Errorf(errkind.InvalidArgument, "%s: no transaction", what)
	}
	if input == nil {
		return UpsertResult{}, errkind.Errorf(errkind.InvalidArgument, "%s: no input", what)
	}
	if opts.Commit.Token != "" {
		return UpsertResult{}, errkind.Errorf(errkind.InvalidArgument, "%s: a step of a transaction takes no token: give the transaction one", what)
	}
	u, err := prepareUpsert(ctx, tx.Table(), input, opts)
	if err != nil {
		return UpsertResult{}, fmt.Errorf("%s: %w", what, err)
	}
	defer u.release()
	if u.empty() {
		return UpsertResult{}, nil
	}
	tx.RemoveUnlessCommitted(u.c.w.paths...)
	if err := tx.CommitRows(u.plan, u.changes, opts.Commit); err != nil {
		return UpsertResult{}, err
	}
	out := UpsertResult{RowsUpdated: u.updated, RowsInserted: u.inserted}
	out.DeletedRows = u.c.deleted
	return out, nil
}
