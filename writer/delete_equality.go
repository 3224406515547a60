package writer

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/google/uuid"
)

// EqualityDeleteWriter writes equality delete files (format v2 and up):
// each row written deletes the table's rows whose equality columns equal
// its own, a null equal to a null. Rows are routed to partitions through
// the spec like data rows, so a batch must carry the spec's source
// columns too. The files hold the equality columns and the partition
// source columns, with the table's field ids; other batch columns are
// dropped. Like Writer it commits nothing: Close returns the entries for
// a row delta.
type EqualityDeleteWriter struct {
	w      *Writer
	ids    []int
	schema *iceberg.Schema // the table's
	keep   map[int]bool    // field ids the files hold
}

// NewEqualityDeleteWriter starts an equality delete writer for the table
// schema and spec (nil: unpartitioned) under dataLocation. equalityIDs
// name the top-level primitive columns compared.
func NewEqualityDeleteWriter(ctx context.Context, files fileio.FileIO, dataLocation string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, equalityIDs []int, opts Options) (*EqualityDeleteWriter, error) {
	if schema == nil {
		return nil, errors.New("equality deletes: no schema")
	}
	if len(equalityIDs) == 0 {
		return nil, errors.New("equality deletes: no equality field ids")
	}
	keep := map[int]bool{}
	for _, id := range equalityIDs {
		if keep[id] {
			return nil, fmt.Errorf("equality deletes: field id %d is given twice", id)
		}
		keep[id] = true
	}
	if spec == nil {
		spec = &iceberg.PartitionSpec{}
	}
	for _, pf := range spec.Fields {
		keep[pf.SourceID] = true
	}
	var fields []iceberg.NestedField
	for _, f := range schema.Fields {
		if keep[f.ID] {
			fields = append(fields, f)
		}
	}
	for id := range keep {
		f, ok := schema.FindField(id)
		switch {
		case !ok:
			return nil, fmt.Errorf("equality deletes: the schema has no field %d", id)
		case !slices.ContainsFunc(fields, func(g iceberg.NestedField) bool { return g.ID == id }):
			return nil, fmt.Errorf("equality deletes: field %s (id %d) is not a top-level column", f.Name, id)
		}
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			return nil, fmt.Errorf("equality deletes: field %s (id %d) is a %s, not a primitive", f.Name, id, f.Type)
		}
	}
	if opts.FilePrefix == "" {
		opts.FilePrefix = "00000-0-" + uuid.NewString() + "-eq-deletes"
	}
	opts.SortOrderID, opts.SortOrder = nil, nil
	w, err := New(ctx, files, dataLocation, iceberg.NewSchema(schema.ID, fields), spec, opts)
	if err != nil {
		return nil, fmt.Errorf("equality deletes: %w", err)
	}
	return &EqualityDeleteWriter{w: w, ids: slices.Clone(equalityIDs), schema: schema, keep: keep}, nil
}

// Write adds a batch of deleted keys. Its columns are matched to the
// table's by name, as the data writer matches them (bindSchema); columns the
// files do not hold are dropped, a column the table lacks is an error.
func (e *EqualityDeleteWriter) Write(rec arrow.RecordBatch) error {
	fields := rec.Schema().Fields()
	var keptFields []arrow.Field
	var keptCols []arrow.Array
	for i, f := range fields {
		tf, found := e.schema.FindFieldByName(f.Name)
		if !found {
			names := make([]string, len(e.schema.Fields))
			for k, sf := range e.schema.Fields {
				names[k] = sf.Name
			}
			return fmt.Errorf("equality deletes: %w", iceberg.UnknownColumn("", f.Name, names))
		}
		if e.keep[tf.ID] {
			keptFields = append(keptFields, f)
			keptCols = append(keptCols, rec.Column(i))
		}
	}
	if len(keptFields) == len(fields) {
		return e.w.Write(rec)
	}
	meta := rec.Schema().Metadata()
	projected := array.NewRecordBatch(arrow.NewSchema(keptFields, &meta), keptCols, rec.NumRows())
	defer projected.Release()
	return e.w.Write(projected)
}

// Close finishes the files and returns their entries: content equality
// deletes, with the equality field ids.
func (e *EqualityDeleteWriter) Close() ([]manifest.DataFile, error) {
	files, err := e.w.Close()
	if err != nil {
		return nil, err
	}
	out := slices.Clone(files)
	for i := range out {
		out[i].Content = manifest.ContentEqualityDeletes
		out[i].EqualityIDs = slices.Clone(e.ids)
		out[i].SortOrderID = nil
	}
	return out, nil
}

// Abort deletes every file written; see Writer.Abort.
func (e *EqualityDeleteWriter) Abort() error { return e.w.Abort() }
