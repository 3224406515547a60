package inspect

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// Kind names a metadata table as Java and pyiceberg name it.
type Kind string

// Options steer a read of a metadata table.
type Options struct {
	// Columns are the top-level columns to return, in that order; nil
	// for all.
	Columns []string
	// Filter keeps the rows it selects, over the metadata table's
	// columns (nested ones by dotted name: partition.x).
	Filter expr.Expr
	// SnapshotID or Ref picks the snapshot a per-snapshot table (files,
	// entries, manifests, …) looks at; neither: the current one.
	SnapshotID *int64
	Ref        string
	// Limit stops after that many rows; 0: no limit.
	Limit int64
	// BatchSize is the rows per batch; 0: DefaultBatchSize.
	BatchSize int
	// CaseInsensitive matches Columns and the Filter's names ignoring
	// case.
	CaseInsensitive bool
}

// DefaultBatchSize is the rows per batch when Options leave it 0.
const DefaultBatchSize = 4096

// source is one metadata table of one table: its schema and its rows,
// canonical values in the schema's field order.
type source struct {
	schema *iceberg.Schema
	rows   func(ctx context.Context) iter.Seq2[[]any, error]
	// scope is the manifests a source of manifest entries reads (files,
	// entries and their all_* forms), which PlanTasks divides into
	// tasks; nil for the other kinds.
	scope *manifestScope
	// cols, when set, is the same rows in columnar form, which a read
	// uses instead (columnar.go).
	cols *columns
}

// opener builds a Kind's source for a table and the options' snapshot.
type opener func(t *table.Table, opts Options) (*source, error)

var kinds = map[Kind]opener{}

// register adds a Kind; each metadata table's file registers its own.
func register(k Kind, open opener) { kinds[k] = open }

// Kinds lists the metadata tables floe reads, sorted.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Schema is a metadata table's schema for t (files' partition column
// follows t's partition specs).
func Schema(t *table.Table, kind Kind, opts Options) (*iceberg.Schema, error) {
	src, err := openSource(t, kind, opts)
	if err != nil {
		return nil, err
	}
	return src.schema, nil
}

func openSource(t *table.Table, kind Kind, opts Options) (*source, error) {
	open, ok := kinds[kind]
	if !ok {
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, string(k))
		}
		sort.Strings(names)
		msg := fmt.Sprintf("no metadata table %q (floe has %s)", kind, strings.Join(names, ", "))
		if near := iceberg.ClosestName(string(kind), names); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return nil, errkind.New(errkind.InvalidArgument, msg)
	}
	if t == nil || t.Metadata == nil {
		return nil, errkind.New(errkind.InvalidArgument, "inspect: no table")
	}
	if opts.SnapshotID != nil && opts.Ref != "" {
		return nil, errkind.New(errkind.InvalidArgument, "inspect: give a snapshot id or a ref, not both")
	}
	return open(t, opts)
}

// snapshotOf is the snapshot opts pick (nil: the table has none).
func snapshotOf(md *metadata.Metadata, opts Options) (*metadata.Snapshot, error) {
	switch {
	case opts.SnapshotID != nil:
		s := md.SnapshotByID(*opts.SnapshotID)
		if s == nil {
			return nil, errkind.Errorf(errkind.NotFound, "inspect: the table has no snapshot %d", *opts.SnapshotID)
		}
		return s, nil
	case opts.Ref != "":
		return md.SnapshotByRef(opts.Ref)
	}
	return md.CurrentSnapshot(), nil
}

// noSnapshotChoice refuses a snapshot or ref for a table of the whole
// history (snapshots, history, refs, all_*), as Java does.
func noSnapshotChoice(kind Kind, opts Options) error {
	if opts.SnapshotID != nil || opts.Ref != "" {
		return errkind.Errorf(errkind.InvalidArgument, "inspect %s: it covers the whole table; a snapshot or ref does not apply", kind)
	}
	return nil
}

// Open reads a metadata table of t as Arrow record batches, allocated
// from mem (the Go allocator when nil).
func Open(ctx context.Context, t *table.Table, kind Kind, opts Options, mem memory.Allocator) (array.RecordReader, error) {
	src, err := openSource(t, kind, opts)
	if err != nil {
		return nil, err
	}
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	if opts.Limit < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "inspect %s: negative limit %d", kind, opts.Limit)
	}
	return newReader(ctx, string(kind), src, opts, mem)
}
