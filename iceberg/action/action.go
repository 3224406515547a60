package action

import (
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// Action is one change to a table's metadata.
type Action interface {
	// Name names the action in errors and results, in the REST protocol's
	// and pyiceberg's words where they have one ("update-schema", …).
	Name() string
	// Build yields the updates that make the change on md, the metadata as
	// the transaction has it so far. md must not be changed. An action
	// that would change nothing returns no updates.
	Build(md *metadata.Metadata) ([]metadata.Update, error)
}

// NullFree is implemented by actions that are valid only when some
// columns hold no nulls in the table's data (a column made required): the
// transaction checks the live files' null counts before committing.
type NullFree interface {
	// NullFreeFields are the field ids, on md, that must hold no null.
	NullFreeFields(md *metadata.Metadata) []int
}

// Rebasable is implemented by actions that mean the same on any newer
// version of the table (union by name: the wanted columns, whatever the
// schema is by then). A transaction rebuilds them on a table that moved on
// since it started instead of refusing; every other action conflicts when
// what its updates depend on (the current schema, the default spec or sort
// order, the refs it moves) changed since the transaction started.
type Rebasable interface {
	Rebasable() bool
}

// invalid is the error of an action given something it cannot do.
func invalid(format string, args ...any) error {
	return errkind.Errorf(errkind.InvalidArgument, format, args...)
}

// apply applies updates to a copy of md, for actions whose later steps
// need what the earlier ones produced.
func apply(md *metadata.Metadata, updates []metadata.Update) (*metadata.Metadata, error) {
	c := metadata.Edit(md)
	if err := c.Apply(updates...); err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	return c.Metadata(), nil
}
