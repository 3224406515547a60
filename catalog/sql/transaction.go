package sql

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/commitstep"
)

var _ catalog.MultiTableCommitter = (*Catalog)(nil)

// The steps of a multi-table commit a test can stop at (besides
// "metadata-file", every new file written, and the commit loop's
// "published"): one row swapped inside the database transaction (each
// row); every row swapped, not yet committed; the database transaction
// committed.
const (
	StepTransactionRow       = "transaction-row"
	StepTransactionRows      = "transaction-rows"
	StepTransactionCommitted = "transaction-committed"
)

// staged is one table of a multi-table commit: its row, the base it was
// built on and the metadata file written for it.
type staged struct {
	id   catalog.Identifier
	base *table.Table
	md   *metadata.Metadata
	path string
}

// PublishTables commits several tables of the catalog as one: every new
// metadata file is written first, as a single commit writes its own; then
// one database transaction swaps every table's row with UPDATE … WHERE
// metadata_location = <its base's>, and commits only when every swap
// changed its row. A row already moved on rolls the whole transaction
// back (table.ErrStale, the files deleted). Rows are swapped in the order
// of their names, so two multi-table commits on PostgreSQL wait for each
// other rather than deadlock.
func (c *Catalog) PublishTables(ctx context.Context, bases []*table.Table, changes []*metadata.Changes) ([]*table.Table, error) {
	if len(bases) != len(changes) {
		return nil, errkind.Errorf(errkind.InvalidArgument, "SQL catalog %s: %d tables with %d changes", c.name, len(bases), len(changes))
	}
	tables := make([]staged, len(bases))
	for i, base := range bases {
		p, ok := base.Publisher.(*publisher)
		if !ok || !c.same(p.c) {
			return nil, errkind.Errorf(errkind.InvalidArgument, "SQL catalog %s: table %s was not loaded from this catalog", c.name, base.Metadata.Location)
		}
		tables[i] = staged{id: p.id, base: base}
	}
	for i := range tables {
		s := &tables[i]
		md, err := table.NextMetadata(s.base, changes[i])
		if err != nil {
			c.deleteStaged(ctx, tables)
			return nil, fmt.Errorf("commit %s: %w", s.id, err)
		}
		path := table.MetadataFilePath(md.Location, table.MetadataVersion(s.base.MetadataLocation)+1)
		if err := writeMetadata(ctx, s.base.IO, path, md); err != nil {
			c.deleteStaged(ctx, tables)
			return nil, fmt.Errorf("commit %s: %w", s.id, err)
		}
		s.md, s.path = md, path
	}
	commitstep.Reached("metadata-file")
	order := make([]*staged, len(tables))
	for i := range tables {
		order[i] = &tables[i]
	}
	slices.SortFunc(order, func(a, b *staged) int {
		return cmp.Or(cmp.Compare(catalog.JoinNamespace(a.id.Namespace), catalog.JoinNamespace(b.id.Namespace)), cmp.Compare(a.id.Name, b.id.Name))
	})
	if err := c.swapRows(ctx, order); err != nil {
		return nil, err
	}
	out := make([]*table.Table, len(tables))
	for i, s := range tables {
		out[i] = (&publisher{c: c, id: s.id}).committed(s.base, s.md, s.path)
	}
	return out, nil
}

// swapRows swaps every row in one database transaction. Its error is
// table.ErrStale when some row had moved on (nothing changed), of kind
// CommitStateUnknown when the outcome is not known; on any other error
// nothing changed. The staged files are deleted exactly when nothing
// changed.
func (c *Catalog) swapRows(ctx context.Context, order []*staged) error {
	dbtx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		c.deleteStaged(ctx, deref(order))
		return errkind.Wrap(errkind.IO, fmt.Errorf("SQL catalog %s: begin a multi-table commit: %w", c.name, err))
	}
	tx := &tx{Tx: dbtx, dollar: c.db.dollar}
	fail := func(err error) error {
		_ = tx.Rollback()
		c.deleteStaged(ctx, deref(order))
		return err
	}
	for _, s := range order {
		res, err := tx.ExecContext(ctx, `UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?
			WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?`,
			s.path, s.base.MetadataLocation, c.name, catalog.JoinNamespace(s.id.Namespace), s.id.Name, s.base.MetadataLocation)
		if err != nil {
			// Inside a transaction not yet committed, a failed statement
			// changed nothing that will last.
			return fail(errkind.Wrap(errkind.IO, fmt.Errorf("commit %s: %w", s.id, err)))
		}
		n, err := res.RowsAffected()
		switch {
		case err == nil && n == 0:
			return fail(fmt.Errorf("commit %s: %w", s.id, table.ErrStale))
		case err != nil || n != 1:
			return fail(errkind.Errorf(errkind.Corrupt, "commit %s: %d catalog rows changed (%v)", s.id, n, err))
		}
		commitstep.Reached(StepTransactionRow)
	}
	commitstep.Reached(StepTransactionRows)
	if err := tx.Commit(); err != nil {
		// Whether the commit reached the database is only known by
		// looking: the rows moved together, so one row tells.
		first := order[0]
		now, lerr := c.metadataLocation(context.WithoutCancel(ctx), first.id)
		switch {
		case lerr != nil:
			return fmt.Errorf("commit %s: %w (%w: %v)", first.id, err, table.ErrCommitStateUnknown, lerr)
		case now == first.path:
			commitstep.Reached(StepTransactionCommitted)
			return nil
		case now != first.base.MetadataLocation:
			// Neither this commit's version nor its base: another writer
			// moved the row since, which it could do on top of this
			// commit as well as instead of it. The files stay.
			return fmt.Errorf("commit %s: %w (%w: the table is now at %s)", first.id, err, table.ErrCommitStateUnknown, now)
		}
		c.deleteStaged(ctx, deref(order))
		return errkind.Wrap(errkind.IO, fmt.Errorf("SQL catalog %s: commit of %d tables: %w", c.name, len(order), err))
	}
	commitstep.Reached(StepTransactionCommitted)
	return nil
}

// deleteStaged deletes, best effort, the metadata files written for a
// multi-table commit that did not happen.
func (c *Catalog) deleteStaged(ctx context.Context, tables []staged) {
	for _, s := range tables {
		if s.path != "" {
			_ = s.base.IO.Delete(context.WithoutCancel(ctx), s.path)
		}
	}
}

func deref(order []*staged) []staged {
	out := make([]staged, len(order))
	for i, s := range order {
		out[i] = *s
	}
	return out
}

// same tells whether other is this catalog: the same handle, or another
// handle on the same database and catalog name.
func (c *Catalog) same(other *Catalog) bool {
	return other == c || (other.uri == c.uri && other.name == c.name)
}
