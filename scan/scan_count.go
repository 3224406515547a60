package scan

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
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
