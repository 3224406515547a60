package main

import (
	"context"
	"encoding/json"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/scan"
)

// A scan handle planned with "changelog": true holds a scan.ChangelogScan.
// It streams, gives its schema, counts (by reading: a change is only known
// once its rows are matched) and plans tasks: each task is a serialised
// scan.ChangeGroup, which floe_task_stream reads as it reads a scan's
// tasks. What a changelog does not have (a filter added while reading,
// pruning metrics, host-driven I/O of a task) is refused as UNSUPPORTED.

var (
	errChangelogFilter  = errkind.Errorf(errkind.Unsupported, "floe_scan_add_filter: a changelog scan takes its filter when planned (scan options \"filter\"), not while reading")
	errChangelogMetrics = errkind.Errorf(errkind.Unsupported, "floe_scan_metrics: a changelog scan keeps no scan metrics")
	errChangelogHostIO  = errkind.Errorf(errkind.Unsupported, "floe_task_io_open: host-driven I/O reads a scan's task, not a changelog's change group (read it with floe_task_stream)")
)

// isChangeGroup reports whether a serialised task is a changelog's
// change group: it has "items" (a scan's task group has "tasks", a bare
// task neither).
func isChangeGroup(data []byte) bool {
	var probe struct {
		Items json.RawMessage `json:"items"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Items != nil
}

// openChangeGroup reads a serialised change group (floe_task_stream): its
// changes, as the changelog scan that planned it returns them, the read
// settings given beside it applied (a limit counts changes).
func openChangeGroup(data []byte, opts taskOptions, read scan.ReadOptions) (array.RecordReader, context.CancelFunc, error) {
	g, err := scan.UnmarshalChangeGroup(data)
	if err != nil {
		// The caller handed us these bytes: bad ones are a bad argument.
		return nil, nil, withStatus(statusInvalidArgument, err)
	}
	locations, err := fileio.NewLocationMap(opts.LocationMap)
	if err != nil {
		return nil, nil, withStatus(statusInvalidArgument, err)
	}
	// A router: each item's path finds its own file system.
	files, err := fileio.ForLocation(g.Items[0].Task.Path, fileio.Options{LocationMap: locations, S3: opts.S3, GCS: opts.GCS, Azure: opts.Azure})
	if err != nil {
		return nil, nil, withStatus(statusUnsupported, err)
	}
	ctx, cancel := callContext(context.Background(), opts.timeout())
	rdr, err := g.Reader(ctx, files, cAllocator, read)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return rdr, cancel, nil
}

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
	rdr, cancel, err := s.stream(scan.StreamOptions{})
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
