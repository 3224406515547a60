package catalog

import (
	"context"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
)

// MultiTableCommitter is a catalog that commits changes to several of its
// tables as one (table.MultiPublisher): the SQL catalog in one database
// transaction, a REST catalog through POST /v1/{prefix}/transactions/commit
// when its server offers it. The warehouse catalog does not: its tables
// are metadata directories, each committing by a put-if-absent of its own
// next version file, with nothing shared that could move two together.
type MultiTableCommitter interface {
	table.MultiPublisher
}

// CommitTransaction commits transactions on several tables of cat
// atomically: every table gets its changes, or none does
// (table.CommitTransactions has the rules: one retry loop for all, the
// first version's requirements fixed, files cleaned up on failure). The
// tables must have been loaded from cat. A catalog that cannot commit
// several tables as one refuses with errkind.Unsupported and commits
// nothing.
//
//	a, _ := cat.LoadTable(ctx, orders)
//	b, _ := cat.LoadTable(ctx, totals)
//	ta := a.Transaction()
//	ta.SetProperties(map[string]string{"batch": "42"}, nil)
//	_ = ta.Append(orderFiles, table.CommitOptions{})
//	tb := b.Transaction()
//	_ = tb.Append(totalFiles, table.CommitOptions{})
//	results, err := catalog.CommitTransaction(ctx, cat, ta, tb)
func CommitTransaction(ctx context.Context, cat Catalog, txs ...*table.Transaction) ([]table.TransactionResult, error) {
	if cat == nil {
		return nil, errkind.New(errkind.InvalidArgument, "multi-table transaction: no catalog")
	}
	mc, ok := cat.(MultiTableCommitter)
	if !ok {
		return nil, errkind.Errorf(errkind.Unsupported, "catalog %s cannot commit several tables in one transaction: only a SQL catalog or a REST catalog whose server offers transactions can (a warehouse's tables are metadata directories, each its own, with nothing shared to swap atomically)", cat.Name())
	}
	return table.CommitTransactions(ctx, mc, txs...)
}
