package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
)

// DeleteRowsIn adds DeleteRows to a transaction (pyiceberg's
// tx.delete): the rows filter selects are planned on the transaction's
// table as it began, the delete files or rewritten files are written now,
// and the change commits with the rest of the transaction (a CommitRows
// step) or not at all: the files are deleted when the transaction does
// not commit. When no row is selected no step is added. The transaction
// has the token: opts.Commit.Token must be empty.
func DeleteRowsIn(ctx context.Context, tx *table.Transaction, filter expr.Expr, opts RowOptions) error {
	return changeRowsIn(ctx, tx, "delete rows", filter, nil, opts)
}

// OverwriteRowsIn adds OverwriteRows to a transaction (pyiceberg's
// tx.overwrite with a filter): the rows filter selects are deleted, as
// DeleteRowsIn does, and data is added in the same step.
func OverwriteRowsIn(ctx context.Context, tx *table.Transaction, filter expr.Expr, data array.RecordReader, opts RowOptions) error {
	return changeRowsIn(ctx, tx, "overwrite rows", filter, data, opts)
}

func changeRowsIn(ctx context.Context, tx *table.Transaction, what string, filter expr.Expr, data array.RecordReader, opts RowOptions) error {
	if tx == nil {
		return fmt.Errorf("%s: no transaction", what)
	}
	if opts.Commit.Token != "" {
		return errkind.Errorf(errkind.InvalidArgument, "%s: a step of a transaction takes no token: give the transaction one", what)
	}
	rc, err := prepareRows(ctx, tx.Table(), what, filter, data, opts)
	if err != nil || rc.empty {
		return err
	}
	tx.RemoveUnlessCommitted(rc.c.w.paths...)
	return tx.CommitRows(rc.plan, rc.changes, opts.Commit)
}
