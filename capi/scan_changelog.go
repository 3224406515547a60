package main

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
)

// A scan handle planned with "changelog": true holds a scan.ChangelogScan.
// It streams, gives its schema, counts (by reading: a change is only known
// once its rows are matched) and plans tasks: each task is a serialised
// scan.ChangeGroup, which floe_task_stream reads as it reads a scan's
// tasks. What a changelog does not have (a filter added while reading,
// pruning metrics) is refused as UNSUPPORTED.

var (
	errChangelogFilter  = errkind.Errorf(errkind.Unsupported, "floe_scan_add_filter: a changelog scan takes its filter when planned (scan options \"filter\"), not while reading")
	errChangelogMetrics = errkind.Errorf(errkind.Unsupported, "floe_scan_metrics: a changelog scan keeps no scan metrics")
)

// schema is the Arrow schema of every batch the scan returns.
func (s *scanHandle) schema() *arrow.Schema {
	if s.changelog != nil {
		return s.changelog.Schema()
	}
	return s.scan.Schema()
}

// numTasks is how many tasks floe_scan_plan reports: a scan's task
// groups, or a changelog's change groups.
func (s *scanHandle) numTasks() int {
	if s.changelog != nil {
		return len(s.changelog.Groups())
	}
	return s.scan.NumTaskGroups()
}

// task serialises task i (in range).
func (s *scanHandle) task(i int) ([]byte, error) {
	if s.changelog != nil {
		return s.changelog.Groups()[i].MarshalBinary()
	}
	return s.scan.TaskGroup(i).MarshalBinary()
}

// count is the number of rows the scan returns, limit applied.
func (s *scanHandle) count() (int64, error) {
	if s.changelog == nil {
		ctx, cancel := callContext(s.ctx, s.timeout)
		defer cancel()
		return s.scan.Count(ctx)
	}
	rdr, cancel, err := s.stream()
	if err != nil {
		return 0, err
	}
	defer cancel()
	defer rdr.Release()
	var n int64
	for rdr.Next() {
		n += rdr.RecordBatch().NumRows()
	}
	return n, rdr.Err()
}
