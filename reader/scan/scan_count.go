package scan

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
)

// Count is the number of rows the scan returns. When no planned file has
// deletes or a filter left to apply (a filter the partitions decide is
// none, and none was added with AddFilter), the manifests' record counts
// answer it and no data file is opened; else the scan is read, decoding
// only what its filter and deletes need. A limit caps the answer as it
// caps the rows.
func (s *Scan) Count(ctx context.Context) (int64, error) {
	if n, ok := s.countFromMetadata(); ok {
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

// countFromMetadata is the planned files' record count (see Scan.records),
// capped by the limit, when that is the answer: every file's record count
// is its own and no filter was added to the running scan (added filters
// apply at read time).
func (s *Scan) countFromMetadata() (int64, bool) {
	if added, _ := s.runtime.current(); len(added) > 0 || !s.countable {
		return 0, false
	}
	if lim := s.Options.Limit; lim != nil && *lim < s.records {
		return *lim, true
	}
	return s.records, true
}

// recordCountAnswers is the rule by which a planned file's manifest
// record count is the number of rows a read of it returns: it has no
// deletes, and no residual filter is left (nil, or one its partition
// satisfies whole).
func recordCountAnswers(dt *table.DataFileTask) bool {
	if len(dt.Deletes) > 0 {
		return false
	}
	_, all := dt.Residual.(expr.AlwaysTrue)
	return dt.Residual == nil || all
}

// errCountNeedsRead stops CountRows's planning at the first file whose
// record count is not its answer.
var errCountNeedsRead = errors.New("scan: the count needs a read")

// CountRows is New(ctx, t, opts).Count(ctx) without holding the plan: it
// checks and sets up what New does, then lets the planned files stream
// through keeping only their record counts, so counting a table of
// millions of files needs the memory of the manifests in flight. At the
// first file with deletes or a residual filter (which only reading
// answers) it plans the scan again with New and counts that way.
func CountRows(ctx context.Context, t *table.Table, opts Options) (int64, error) {
	s, err := newScan(ctx, t, opts, false)
	if err == nil {
		if n, ok := s.countFromMetadata(); ok {
			return n, nil
		}
	} else if !errors.Is(err, errCountNeedsRead) {
		return 0, err
	}
	if s, err = New(ctx, t, opts); err != nil {
		return 0, err
	}
	return s.Count(ctx)
}
