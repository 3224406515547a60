package inspect

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/puffin"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// PositionDeletes is Java's PositionDeletesTable: one row per deleted
// row position of a snapshot's live position delete files (Parquet) and
// deletion vectors (Puffin, v3): the data file and position it deletes,
// the deleted row (null: floe does not read the optional row column
// writers may add), the delete file's partition in the unified struct
// (no column for a table never partitioned, as Java), its spec id and
// its own path, and (v3 tables) the deletion vector's blob offset and
// size (null for a Parquet delete file). Delete files are read one at a time: the table never
// holds more than one file's positions.
const PositionDeletes Kind = "position_deletes"

// Java's field ids for the position_deletes columns (MetadataColumns:
// DELETE_FILE_PATH, DELETE_FILE_POS, DELETE_FILE_ROW, PARTITION_COLUMN,
// SPEC_ID, FILE_PATH, CONTENT_OFFSET, CONTENT_SIZE_IN_BYTES).
const (
	pdFilePathID       = 2147483546
	pdPosID            = 2147483545
	pdRowID            = 2147483544
	pdPartitionID      = 2147483642
	pdSpecID           = 2147483643
	pdDeleteFilePathID = 2147483646
	pdContentOffsetID  = 2147483641
	pdContentSizeID    = 2147483640
)

func init() { register(PositionDeletes, openPositionDeletes) }

// positionDeletesSchema is the table's columns, as Java's
// PositionDeletesTable declares them: the row struct is the table's
// current schema; v3 tables add the deletion vector's content_offset and
// content_size_in_bytes. The partition fields take the smallest ids no
// schema of the table (nor row) uses, as Java reassigns them, so that
// row and partition never share an id.
func positionDeletesSchema(t *table.Table, partType *iceberg.StructType) *iceberg.Schema {
	cur := t.Metadata.CurrentSchema()
	fields := []iceberg.NestedField{
		{ID: pdFilePathID, Name: "file_path", Type: iceberg.StringType{}, Required: true},
		{ID: pdPosID, Name: "pos", Type: iceberg.LongType{}, Required: true},
		{ID: pdRowID, Name: "row", Type: cur.AsStruct()},
	}
	if len(partType.Fields) > 0 {
		used := map[int]bool{}
		for _, s := range t.Metadata.Schemas {
			fieldIDs(s.Fields, used)
		}
		next := 0
		pf := make([]iceberg.NestedField, len(partType.Fields))
		for i, f := range partType.Fields {
			for next++; used[next]; next++ {
			}
			f.ID = next
			pf[i] = f
		}
		fields = append(fields, iceberg.NestedField{ID: pdPartitionID, Name: "partition", Type: &iceberg.StructType{Fields: pf}, Required: true})
	}
	fields = append(fields,
		iceberg.NestedField{ID: pdSpecID, Name: "spec_id", Type: iceberg.IntType{}, Required: true},
		iceberg.NestedField{ID: pdDeleteFilePathID, Name: "delete_file_path", Type: iceberg.StringType{}, Required: true},
	)
	if t.Metadata.FormatVersion >= 3 {
		fields = append(fields,
			iceberg.NestedField{ID: pdContentOffsetID, Name: "content_offset", Type: iceberg.LongType{}},
			iceberg.NestedField{ID: pdContentSizeID, Name: "content_size_in_bytes", Type: iceberg.LongType{}},
		)
	}
	return iceberg.NewSchema(0, fields)
}

// fieldIDs adds every field id of fields, nested ones included, to used.
func fieldIDs(fields []iceberg.NestedField, used map[int]bool) {
	for _, f := range fields {
		used[f.ID] = true
		switch t := f.Type.(type) {
		case *iceberg.StructType:
			fieldIDs(t.Fields, used)
		case *iceberg.ListType:
			fieldIDs([]iceberg.NestedField{{ID: t.ElementID, Type: t.Element}}, used)
		case *iceberg.MapType:
			fieldIDs([]iceberg.NestedField{{ID: t.KeyID, Type: t.Key}, {ID: t.ValueID, Type: t.Value}}, used)
		}
	}
}

func openPositionDeletes(t *table.Table, opts Options) (*source, error) {
	snap, err := snapshotOf(t.Metadata, opts)
	if err != nil {
		return nil, err
	}
	layout, err := newFileLayout(t)
	if err != nil {
		return nil, err
	}
	schema := positionDeletesSchema(t, layout.partType)
	scope := &manifestScope{t: t, snap: snap, deletes: true, sequential: opts.Limit > 0}
	partitioned := len(layout.partType.Fields) > 0
	v3 := t.Metadata.FormatVersion >= 3
	return &source{schema: schema, rows: func(ctx context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			stopped := false
			var readErr error
			err := scope.each(ctx, func(_ *manifest.ManifestFile, e *manifest.Entry) bool {
				df := &e.DataFile
				if e.Status == manifest.StatusDeleted || df.Content != manifest.ContentPositionDeletes {
					return true
				}
				// The columns every row of this delete file shares.
				var part, dvOffset, dvSize any
				if partitioned {
					part = layout.partition(df)
				}
				if df.ContentOffset != nil && df.ContentSizeInBytes != nil {
					dvOffset, dvSize = *df.ContentOffset, *df.ContentSizeInBytes
				}
				emit := func(path string, pos int64) bool {
					row := []any{path, pos, nil}
					if partitioned {
						row = append(row, part)
					}
					row = append(row, int32(df.SpecID), df.FilePath)
					if v3 {
						row = append(row, dvOffset, dvSize)
					}
					if !yield(row, nil) {
						stopped = true
					}
					return !stopped
				}
				if readErr = positionDeleteRows(ctx, t, df, emit); readErr != nil || stopped {
					return false
				}
				return true
			})
			if err == nil {
				err = readErr
			}
			if err != nil && !stopped {
				yield(nil, err)
			}
		}
	}}, nil
}

// positionDeleteRows hands emit the (data file, position) pairs one
// delete file holds, in the file's order, until emit returns false.
func positionDeleteRows(ctx context.Context, t *table.Table, df *manifest.DataFile, emit func(string, int64) bool) error {
	path := t.Locations.Apply(df.FilePath)
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("inspect: position delete file %s: %w", df.FilePath, err)
	}
	if strings.EqualFold(df.FileFormat, "puffin") {
		// A deletion vector: one data file, its positions a bitmap.
		if df.ReferencedDataFile == "" || df.ContentOffset == nil || df.ContentSizeInBytes == nil {
			return errkind.Errorf(errkind.Corrupt, "inspect: deletion vector %s lacks referenced_data_file, content_offset or content_size_in_bytes", df.FilePath)
		}
		f, err := t.IO.Open(ctx, path)
		if err != nil {
			return wrap(err)
		}
		defer f.Close()
		bm, err := puffin.ReadDeletionVector(f, *df.ContentOffset, *df.ContentSizeInBytes)
		if err != nil {
			return wrap(errkind.Default(errkind.Corrupt, err))
		}
		it := bm.Iterator()
		for it.HasNext() {
			if !emit(df.ReferencedDataFile, int64(it.Next())) {
				return nil
			}
		}
		return nil
	}
	d := &scan.TaskDelete{Path: path, Content: int(df.Content), FileFormat: df.FileFormat, FileSize: df.FileSizeInBytes, RecordCount: df.RecordCount}
	err := scan.ReadPositionDeleteFile(ctx, t.IO, d, func(paths *array.String, pos *array.Int64) error {
		for i := 0; i < paths.Len(); i++ {
			if paths.IsNull(i) || pos.IsNull(i) {
				return errkind.Errorf(errkind.Corrupt, "inspect: position delete file %s has a null file_path or pos", df.FilePath)
			}
			if !emit(paths.Value(i), pos.Value(i)) {
				return table.ErrStop
			}
		}
		return nil
	})
	if err == table.ErrStop {
		return nil
	}
	return wrap(err)
}
