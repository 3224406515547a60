package scan

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
)

// Count is the number of rows the scan returns. When no task has deletes
// or a filter left to apply (a filter the partitions decide is none, and
// none was added with AddFilter), the
// manifests' record counts answer it and no data file is opened; else the
// scan is read, decoding only what its filter and deletes need. A limit
// caps the answer as it caps the rows.
func (s *Scan) Count(ctx context.Context) (int64, error) {
	if n, ok := s.countFromMetadata(); ok {
		if lim := s.Options.Limit; lim != nil && *lim < n {
			n = *lim
		}
		return n, nil
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	return n, rr.Err()
}

// countFromMetadata sums the record counts of the planned files, each
// once (a split file has several tasks), when that is the answer.
func (s *Scan) countFromMetadata() (int64, bool) {
	if added, _ := s.runtime.current(); len(added) > 0 {
		return 0, false // filters added to the running scan apply at read time
	}
	var n int64
	seen := map[string]bool{}
	for _, t := range s.tasks {
		if len(t.Deletes) > 0 {
			return 0, false
		}
		if t.Filter != nil {
			if _, all := t.Filter.(expr.AlwaysTrue); !all {
				return 0, false
			}
		}
		if !seen[t.Path] {
			seen[t.Path] = true
			n += t.RecordCount
		}
	}
	return n, true
}

// errCountNeedsRead stops CountRows's stream at the first file whose
// manifest record count is not its answer.
var errCountNeedsRead = errors.New("scan: the count needs a read")

// CountRows is New(ctx, t, opts).Count(ctx) without holding the plan:
// the planned files stream through and only their record counts are
// kept, so counting a table of millions of files needs the memory of the
// manifests in flight. At the first file with deletes or a residual
// filter (which only reading answers) it falls back to planning the scan
// and counting that way.
func CountRows(ctx context.Context, t *table.Table, opts Options) (int64, error) {
	if err := opts.validate(); err != nil {
		return 0, err
	}
	sel := table.SnapshotSelector{SnapshotID: opts.SnapshotID, AsOfMs: opts.AsOfTimestamp, Ref: opts.Ref}
	if opts.Filter != nil {
		schema, err := t.SchemaFor(sel)
		if err != nil {
			return 0, err
		}
		if _, err := filterFields(opts.Filter, schema, opts.CaseInsensitive); err != nil {
			return 0, err
		}
	}
	var n int64
	_, err := t.StreamScan(ctx, sel, opts.Filter, opts.CaseInsensitive, func(dt table.DataFileTask) error {
		if len(dt.Deletes) > 0 {
			return errCountNeedsRead
		}
		if dt.Residual != nil {
			if _, all := dt.Residual.(expr.AlwaysTrue); !all {
				return errCountNeedsRead
			}
		}
		n += dt.File.RecordCount
		return nil
	})
	if errors.Is(err, errCountNeedsRead) {
		s, err := New(ctx, t, opts)
		if err != nil {
			return 0, err
		}
		return s.Count(ctx)
	}
	if err != nil {
		return 0, err
	}
	if lim := opts.Limit; lim != nil && *lim < n {
		n = *lim
	}
	return n, nil
}
