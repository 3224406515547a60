package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/metadata"
)

// EnsureTable returns the table at location, creating it (see Create) when
// there is none, and otherwise bringing its schema up to schema by column
// name (UpdateSchemaByName). The spec, sort order, properties and format
// version are used only when creating. A table created concurrently by
// another writer is found and updated instead.
func EnsureTable(ctx context.Context, files fileio.FileIO, location string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, order *iceberg.SortOrder, props map[string]string, formatVersion int) (*Table, error) {
	if schema == nil {
		return nil, fmt.Errorf("ensure table %s: no schema", location)
	}
	t, err := openForUpdate(ctx, files, location)
	if errors.Is(err, fs.ErrNotExist) {
		t, err = Create(ctx, files, location, schema, spec, order, props, formatVersion)
		if !errors.Is(err, ErrTableExists) {
			return t, err
		}
		t, err = openForUpdate(ctx, files, location)
	}
	if err != nil {
		return nil, fmt.Errorf("ensure table %s: %w", location, err)
	}
	if err := t.UpdateSchemaByName(ctx, schema); err != nil {
		return nil, fmt.Errorf("ensure table: %w", err)
	}
	return t, nil
}

// openForUpdate opens the table at location with files (nil: the FileIO
// for location).
func openForUpdate(ctx context.Context, files fileio.FileIO, location string) (*Table, error) {
	loc, err := tableLocation(location)
	if err != nil {
		return nil, err
	}
	if files == nil {
		if files, err = fileio.ForLocation(loc, fileio.Options{}); err != nil {
			return nil, err
		}
	}
	path, err := LocateMetadata(ctx, files, loc)
	if err != nil {
		return nil, err
	}
	return load(ctx, files, fileio.LocationMap{}, path)
}

// UpdateSchemaByName brings the table's schema up to wanted by column name
// (action.UpdateSchema.UnionByName: missing columns are added at any depth
// with ids counted up from last-column-id, required columns may become
// optional, columns wanted lacks are kept; type changes other than
// promotions, new required columns without defaults, field ids that
// contradict the table's and what the format version cannot hold are
// refused with an *action.SchemaUpdateError naming the table and column).
// When the schema already covers wanted nothing is committed. The union is
// computed again on every retry, against the schema the retry builds on.
func (t *Table) UpdateSchemaByName(ctx context.Context, wanted *iceberg.Schema) error {
	union := new(action.UpdateSchema).UnionByName(wanted)
	res, err := t.commitMetadata(ctx, func(_ context.Context, base *Table, _ int) (*metadata.Changes, error) {
		updates, err := union.Build(base.Metadata)
		if err != nil || len(updates) == 0 {
			return nil, err
		}
		changes := metadata.Edit(base.Metadata)
		if err := changes.Apply(updates...); err != nil {
			return nil, err
		}
		return changes, nil
	})
	if err != nil {
		return fmt.Errorf("update schema: %w", err)
	}
	*t = *res.Table
	return nil
}
