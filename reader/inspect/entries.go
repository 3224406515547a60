package inspect

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// The entries tables (Java's ManifestEntriesTable and AllEntriesTable,
// pyiceberg's inspect.entries): every entry of a snapshot's manifests
// (entries) or of every manifest any snapshot lists, each read once
// (all_entries), DELETED entries included: status (0 existing, 1 added,
// 2 deleted), the snapshot that added or deleted the file, its data and
// file sequence numbers (inherited values filled in, as Java shows them;
// a file sequence number an old writer never recorded is null), the
// data_file struct and readable_metrics.
const (
	Entries    Kind = "entries"
	AllEntries Kind = "all_entries"
)

func init() {
	register(Entries, func(t *table.Table, opts Options) (*source, error) { return openEntries(Entries, t, opts, false) })
	register(AllEntries, func(t *table.Table, opts Options) (*source, error) { return openEntries(AllEntries, t, opts, true) })
}

func openEntries(kind Kind, t *table.Table, opts Options, all bool) (*source, error) {
	scope, err := scopeOf(kind, t, opts, all)
	if err != nil {
		return nil, err
	}
	scope.data, scope.deletes = true, true
	layout, err := newFileLayout(t)
	if err != nil {
		return nil, err
	}
	fields := []iceberg.NestedField{
		{ID: 0, Name: "status", Type: iceberg.IntType{}, Required: true},
		{ID: 1, Name: "snapshot_id", Type: iceberg.LongType{}},
		{ID: 3, Name: "sequence_number", Type: iceberg.LongType{}},
		{ID: 4, Name: "file_sequence_number", Type: iceberg.LongType{}},
		{ID: 2, Name: "data_file", Type: &iceberg.StructType{Fields: dataFileFields(layout.partType)}, Required: true},
	}
	rm := newReadableMetrics(t.Metadata.CurrentSchema(), iceberg.NewSchema(0, fields).HighestFieldID())
	schema := iceberg.NewSchema(0, append(fields, rm.field))
	scope.prune = newManifestPruner(t, schema, opts)
	// The data_file struct is wanted whole or not at all: a filter on
	// data_file.x needs it, and a filter means every column is wanted.
	wantFile, readable := wants(opts, "data_file"), wants(opts, rm.field.Name)
	// A filter's tuple has the data_file struct and readable_metrics
	// only when the filter reads them.
	reads := filterReads(schema, opts)
	tupleFile, tupleReadable := reads("data_file"), reads(rm.field.Name)
	row := func(e *manifest.Entry, wantFile, readable bool) []any {
		var fileSeq, df, metrics any
		if e.FileSequenceNumber != manifest.UnassignedSequenceNumber {
			fileSeq = e.FileSequenceNumber
		}
		if wantFile {
			df = layout.row(&e.DataFile, true)
		}
		if readable {
			metrics = rm.value(e.DataFile.Metrics)
		}
		return []any{int32(e.Status), e.SnapshotID, e.SequenceNumber, fileSeq, df, metrics}
	}
	cols := &columns{
		items: func(ctx context.Context) iter.Seq2[any, error] { return entryItems(ctx, scope, false) },
		appenders: func(pos []int, bs []array.Builder) ([]func(any) error, func(), error) {
			read := layout.newRead()
			apps := make([]func(any) error, len(pos))
			for i, p := range pos {
				var err error
				if apps[i], err = entryAppender(fields[:5], p, bs[i], read, rm); err != nil {
					return nil, nil, err
				}
			}
			return apps, read.end.flush, nil
		},
		tuple: func(item any) []any { return row(item.(*manifest.Entry), tupleFile, tupleReadable) },
	}
	return &source{schema: schema, rows: func(ctx context.Context) iter.Seq2[[]any, error] {
		return entryRows(ctx, scope, false, func(_ *manifest.ManifestFile, e *manifest.Entry) []any {
			return row(e, wantFile, readable)
		})
	}, cols: cols, scope: scope}, nil
}

// entryAppender appends column pos of the entries tables (fields, then
// readable_metrics) of a *manifest.Entry to b.
func entryAppender(fields []iceberg.NestedField, pos int, b array.Builder, read *fileRead, rm *readableMetrics) (func(any) error, error) {
	if pos == len(fields) {
		a, err := rm.appender(b, read)
		return func(item any) error { return a(&item.(*manifest.Entry).DataFile) }, err
	}
	f := fields[pos]
	switch f.Name {
	case "status":
		ib, err := builderAs[*array.Int32Builder](b, f.Name)
		return func(item any) error { ib.Append(int32(item.(*manifest.Entry).Status)); return nil }, err
	case "snapshot_id":
		ib, err := builderAs[*array.Int64Builder](b, f.Name)
		return func(item any) error { ib.Append(item.(*manifest.Entry).SnapshotID); return nil }, err
	case "sequence_number":
		ib, err := builderAs[*array.Int64Builder](b, f.Name)
		return func(item any) error { ib.Append(item.(*manifest.Entry).SequenceNumber); return nil }, err
	case "file_sequence_number":
		// A file sequence number an old writer never recorded is null.
		ib, err := builderAs[*array.Int64Builder](b, f.Name)
		return func(item any) error {
			if s := item.(*manifest.Entry).FileSequenceNumber; s != manifest.UnassignedSequenceNumber {
				ib.Append(s)
			} else {
				ib.AppendNull()
			}
			return nil
		}, err
	case "data_file":
		a, err := read.structAppender(f.Type.(*iceberg.StructType).Fields, b, f.Name)
		return func(item any) error { return a(&item.(*manifest.Entry).DataFile) }, err
	}
	return nil, fmt.Errorf("column %s: no appender", f.Name)
}
