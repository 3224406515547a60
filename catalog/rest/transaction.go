package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

var _ catalog.MultiTableCommitter = (*Catalog)(nil)

// transactionsEndpoint is the protocol's multi-table commit, as /v1/config
// lists it.
const transactionsEndpoint = "POST /v1/{prefix}/transactions/commit"

// ErrNoTransactions is the refusal of a server that does not offer
// multi-table commits.
var ErrNoTransactions = errkind.New(errkind.Unsupported, "the server does not offer multi-table transactions (POST /v1/{prefix}/transactions/commit)")

// tableChange is one table of the protocol's CommitTransactionRequest: a
// CommitTableRequest with its identifier.
type tableChange struct {
	Identifier   tableIdentJSON         `json:"identifier"`
	Requirements []metadata.Requirement `json:"requirements"`
	Updates      []metadata.Update      `json:"updates"`
}

// PublishTables sends every table's updates and requirements in one
// CommitTransactionRequest: the server applies all or none. A server
// whose /v1/config lists endpoints without this one is not asked
// (ErrNoTransactions); one that lists none may still lack it, and its
// 404 (other than a missing table), 405 or 501 says so. 409 is a lost
// race (table.ErrStale); a 5xx or a lost answer leaves the outcome
// unknown. The answer carries no metadata (204), so each table is loaded
// afterwards.
func (cat *Catalog) PublishTables(ctx context.Context, bases []*table.Table, changes []*metadata.Changes) ([]*table.Table, error) {
	if len(bases) != len(changes) {
		return nil, errkind.Errorf(errkind.InvalidArgument, "%s: %d tables with %d changes", cat.c.name, len(bases), len(changes))
	}
	if cat.endpoints != nil && !cat.endpoints[transactionsEndpoint] {
		return nil, fmt.Errorf("%s: %w: its /v1/config endpoints do not list it", cat.c.name, ErrNoTransactions)
	}
	pubs := make([]*publisher, len(bases))
	body := struct {
		TableChanges []tableChange `json:"table-changes"`
	}{TableChanges: make([]tableChange, len(bases))}
	for i, base := range bases {
		p, ok := base.Publisher.(*publisher)
		if !ok || p.cat != cat {
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: table %s was not loaded from this catalog", cat.c.name, base.Metadata.Location)
		}
		pubs[i] = p
		reqs := changes[i].Requirements()
		if reqs == nil {
			reqs = []metadata.Requirement{}
		}
		body.TableChanges[i] = tableChange{Identifier: identJSON(p.id), Requirements: reqs, Updates: changes[i].Updates()}
	}
	err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.path("transactions", "commit"), body: body}, nil)
	if err != nil {
		return nil, cat.transactionError(len(bases), err)
	}
	out := make([]*table.Table, len(bases))
	for i, p := range pubs {
		fresh, err := p.Refresh(ctx, bases[i])
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w: the transaction was accepted, but loading the result failed: %w", p.id, table.ErrCommitStateUnknown, err)
		}
		out[i] = fresh
	}
	return out, nil
}

// transactionError says what a failed multi-table commit means, as
// commitError does for one table, with the answers of a server that does
// not offer the route: 404 without a missing table, 405, 501.
func (cat *Catalog) transactionError(n int, err error) error {
	var re *ResponseError
	if errors.As(err, &re) {
		switch {
		case re.Status == http.StatusNotFound && re.Type != "NoSuchTableException" && re.Type != "NoSuchNamespaceException",
			re.Status == http.StatusMethodNotAllowed, re.Status == http.StatusNotImplemented:
			return fmt.Errorf("%w (%w)", ErrNoTransactions, err)
		}
	}
	return commitError(fmt.Sprintf("transaction of %d tables", n), err)
}
