package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// AppendEvolving appends data after bringing t's schema up to wanted by
// column name (action.UpdateSchema.UnionByName: columns wanted adds are
// added at any depth), in one transaction: the new columns and the rows
// that fill them are one version, so no reader sees one without the
// other. The files are written under the evolved schema's field ids, so
// the schema change is held to the version it was computed on: when
// another writer changed the schema first, the commit fails with
// table.ErrConflict, commits nothing and deletes the files (retry on the
// newer version). When t already covers wanted it is Append. A token
// already committed changes nothing, the schema included.
//
// data gives the rows to append once the evolved schema is known (readers
// that need a target schema, JSON lines, bind to it); the reader it
// returns is released here.
func AppendEvolving(ctx context.Context, t *table.Table, wanted *iceberg.Schema, data func(schema *iceberg.Schema) (array.RecordReader, error), opts table.CommitOptions) (Result, error) {
	if res, ok, err := tokenFound(t, opts.Token); err != nil || ok {
		return res, err
	}
	union := new(action.UpdateSchema).UnionByName(wanted)
	updates, err := union.Build(t.Metadata)
	if err != nil {
		return Result{}, err
	}
	if len(updates) == 0 {
		rdr, err := data(t.Metadata.CurrentSchema())
		if err != nil {
			return Result{}, err
		}
		defer rdr.Release()
		return Append(ctx, t, rdr, opts)
	}
	evolved, err := metadata.Apply(t.Metadata, nil, updates)
	if err != nil {
		return Result{}, err
	}
	preview := *t
	preview.Metadata = evolved
	rdr, err := data(evolved.CurrentSchema())
	if err != nil {
		return Result{}, err
	}
	defer rdr.Release()
	w := &written{io: t.IO}
	files, err := write(ctx, &preview, rdr, w)
	if err != nil {
		return Result{}, err
	}
	tx := t.Transaction()
	// A transaction that writes files holds every action to the version
	// it began on, union by name too: the files carry the ids it assigned
	// there.
	tx.Add(union)
	if err := tx.Append(files, opts); err != nil {
		w.remove(ctx)
		return Result{}, err
	}
	return commit(ctx, w, files, func() (table.CommitResult, error) {
		res, err := tx.Commit(ctx)
		return commitResultOf(res), err
	})
}
