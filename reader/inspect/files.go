package inspect

import (
	"context"
	"iter"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// The files tables (Java's FilesTable, DataFilesTable, DeleteFilesTable
// and their All* forms; pyiceberg's inspect.files, data_files,
// delete_files, all_files, …): one row per live content file of a
// snapshot's manifests (files: data and delete manifests; data_files:
// data manifests; delete_files: delete manifests), or, for all_*, of
// every manifest any snapshot lists, each manifest read once (a file
// listed by several manifests shows once per manifest, as in Java). The
// columns are the manifest's data_file fields (dataFileFields) and
// readable_metrics.
const (
	Files          Kind = "files"
	DataFiles      Kind = "data_files"
	DeleteFiles    Kind = "delete_files"
	AllFiles       Kind = "all_files"
	AllDataFiles   Kind = "all_data_files"
	AllDeleteFiles Kind = "all_delete_files"
)

func init() {
	for _, k := range []struct {
		kind               Kind
		all, data, deletes bool
	}{
		{Files, false, true, true}, {DataFiles, false, true, false}, {DeleteFiles, false, false, true},
		{AllFiles, true, true, true}, {AllDataFiles, true, true, false}, {AllDeleteFiles, true, false, true},
	} {
		register(k.kind, func(t *table.Table, opts Options) (*source, error) {
			scope, err := scopeOf(k.kind, t, opts, k.all)
			if err != nil {
				return nil, err
			}
			scope.data, scope.deletes = k.data, k.deletes
			return openFiles(t, opts, scope)
		})
	}
}

// scopeOf is the manifests a files or entries table reads: the snapshot
// opts pick, or (all) every snapshot's, where a snapshot or ref is
// refused as Java refuses it.
func scopeOf(kind Kind, t *table.Table, opts Options, all bool) (*manifestScope, error) {
	s := &manifestScope{t: t, all: all, sequential: opts.Limit > 0}
	if all {
		return s, noSnapshotChoice(kind, opts)
	}
	snap, err := snapshotOf(t.Metadata, opts)
	if err != nil {
		return nil, err
	}
	s.snap = snap
	return s, nil
}

func openFiles(t *table.Table, opts Options, scope *manifestScope) (*source, error) {
	layout, err := newFileLayout(t)
	if err != nil {
		return nil, err
	}
	fields := dataFileFields(layout.partType)
	rm := newReadableMetrics(t.Metadata.CurrentSchema(), iceberg.NewSchema(0, fields).HighestFieldID())
	schema := iceberg.NewSchema(0, append(fields, rm.field))
	scope.prune = newManifestPruner(t, schema, opts)
	// The metric maps and readable_metrics are costly: a row has them
	// when the read wants them, a filter's tuple when the filter reads
	// them.
	mapNames := []string{"column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds"}
	rowMaps, rowReadable := slices.ContainsFunc(mapNames, func(n string) bool { return wants(opts, n) }), wants(opts, rm.field.Name)
	reads := filterReads(schema, opts)
	tupleMaps, tupleReadable := slices.ContainsFunc(mapNames, reads), reads(rm.field.Name)
	row := func(df *manifest.DataFile, maps, readable bool) []any {
		row := layout.row(df, maps)
		if readable {
			return append(row, rm.value(df.Metrics))
		}
		return append(row, nil)
	}
	cols := &columns{
		items: func(ctx context.Context) iter.Seq2[any, error] { return entryItems(ctx, scope, true) },
		appenders: func(pos []int, bs []array.Builder) ([]func(any) error, func(), error) {
			read := layout.newRead()
			apps := make([]func(any) error, len(pos))
			for i, p := range pos {
				var a fileAppender
				var err error
				if p == len(fields) {
					a, err = rm.appender(bs[i], read)
				} else {
					a, err = read.appender(fields[p], bs[i])
				}
				if err != nil {
					return nil, nil, err
				}
				apps[i] = func(item any) error { return a(&item.(*manifest.Entry).DataFile) }
			}
			return apps, read.end.flush, nil
		},
		tuple: func(item any) []any { return row(&item.(*manifest.Entry).DataFile, tupleMaps, tupleReadable) },
	}
	return &source{schema: schema, rows: func(ctx context.Context) iter.Seq2[[]any, error] {
		return entryRows(ctx, scope, true, func(_ *manifest.ManifestFile, e *manifest.Entry) []any {
			return row(&e.DataFile, rowMaps, rowReadable)
		})
	}, cols: cols, scope: scope}, nil
}

// entryRows streams a row per entry of scope's manifests (live ones only
// when live), stopping the manifest reads when the consumer stops.
func entryRows(ctx context.Context, scope *manifestScope, live bool, row func(*manifest.ManifestFile, *manifest.Entry) []any) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		for item, err := range entryItems(ctx, scope, live) {
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(row(nil, item.(*manifest.Entry)), nil) {
				return
			}
		}
	}
}

// entryItems streams scope's entries (live ones only when live) as the
// row handles of the columnar form (a *manifest.Entry, valid until the
// next), stopping the manifest reads when the consumer stops.
func entryItems(ctx context.Context, scope *manifestScope, live bool) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		stopped := false
		err := scope.each(ctx, func(_ *manifest.ManifestFile, e *manifest.Entry) bool {
			if live && e.Status == manifest.StatusDeleted {
				return true
			}
			if !yield(e, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}
