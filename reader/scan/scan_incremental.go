package scan

import (
	"context"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
)

// incremental reports whether the options ask for an incremental append
// scan rather than a snapshot's rows.
func (o *Options) incremental() bool { return o.FromSnapshotID != nil || o.ToSnapshotID != nil }

// validateIncremental refuses a "to" snapshot chosen twice.
func (o *Options) validateIncremental() error {
	if o.ToSnapshotID != nil && (o.SnapshotID != nil || o.AsOfTimestamp != nil || o.Ref != "") {
		return errkind.Errorf(errkind.InvalidArgument, "scan options: to_snapshot_id %d chooses the snapshot; snapshot_id, as_of_timestamp and ref cannot be given with it", *o.ToSnapshotID)
	}
	return nil
}

// selector is the snapshot the scan reads: for an incremental scan its
// "to" snapshot, given as ToSnapshotID or by the ordinary selection
// (validateIncremental refused both).
func (o *Options) selector() table.SnapshotSelector {
	sel := table.SnapshotSelector{SnapshotID: o.SnapshotID, AsOfMs: o.AsOfTimestamp, Ref: o.Ref}
	if o.ToSnapshotID != nil {
		sel.SnapshotID = o.ToSnapshotID
	}
	return sel
}

// stream plans the scan's files: a snapshot's live files (StreamScan),
// or for an incremental scan the files the appends added (StreamAppends).
// Either way the same planned files come, so tasks, splits, parallel
// reads and serialised tasks work alike.
func (o *Options) stream(ctx context.Context, t *table.Table, sel table.SnapshotSelector, filter expr.Expr, each func(table.DataFileTask) error) (*table.Plan, error) {
	if o.incremental() {
		return t.StreamAppends(ctx, o.FromSnapshotID, sel, filter, o.CaseInsensitive, each)
	}
	return t.StreamScan(ctx, sel, filter, o.CaseInsensitive, each)
}
