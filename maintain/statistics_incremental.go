package maintain

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/puffin"
	"github.com/floedb/floe/iceberg/puffin/theta"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// PropStatisticsOnCommit, "true" on a table, asks that its statistics be
// kept current as it grows: after an append, StatisticsOnCommit merges
// the appended rows' sketches into the previous snapshot's.
const PropStatisticsOnCommit = "write.statistics.on-commit"

// UpdateStatistics brings a snapshot's statistics up to date without
// rescanning the table when it can: from the nearest earlier snapshot
// with a statistics file, if every snapshot since is an append (appends
// only add rows, and theta sketches merge), it sketches only the rows
// those appends added and merges each column's sketch with the earlier
// file's (Union: the smaller theta, trimmed to k), then writes and
// registers the snapshot's file as ComputeStatistics does. Otherwise
// (no earlier file, a delete, overwrite or compaction since, a column the
// earlier file lacks) it computes the statistics in full. Columns default
// to those of the earlier file, else as in ComputeStatistics.
func UpdateStatistics(ctx context.Context, t *table.Table, opts StatisticsOptions) (StatisticsResult, error) {
	sel := table.SnapshotSelector{SnapshotID: opts.SnapshotID}
	snap, err := t.Snapshot(sel)
	if err != nil || snap == nil {
		return ComputeStatistics(ctx, t, opts)
	}
	base, file := appendBase(t.Metadata, snap)
	if base == nil {
		return ComputeStatistics(ctx, t, opts)
	}
	schema, err := t.ReadSchema(sel, snap)
	if err != nil {
		return StatisticsResult{}, err
	}
	names := opts.Columns
	if len(names) == 0 {
		for _, b := range file.BlobMetadata {
			if b.Type != puffin.BlobTypeThetaSketch || len(b.Fields) != 1 {
				continue
			}
			if name, ok := schema.FullName(b.Fields[0]); ok {
				names = append(names, name)
			}
		}
	}
	cols, err := statisticsColumns(schema, names)
	if err != nil {
		return StatisticsResult{}, fmt.Errorf("update statistics of snapshot %d: %w", snap.SnapshotID, err)
	}
	earlier, err := readThetaBlobs(ctx, t, file)
	if err != nil {
		return StatisticsResult{}, fmt.Errorf("update statistics of snapshot %d from %s: %w", snap.SnapshotID, file.StatisticsPath, err)
	}
	for _, c := range cols {
		if earlier[c.id] == nil {
			full := opts
			full.Columns = names
			return ComputeStatistics(ctx, t, full)
		}
	}
	if base.SnapshotID == snap.SnapshotID { // already current
		res := StatisticsResult{SnapshotID: snap.SnapshotID, File: *file, Path: file.StatisticsPath, NDV: map[string]int64{}}
		for _, c := range cols {
			res.NDV[c.name] = ndv(earlier[c.id])
		}
		return res, nil
	}
	from, to := base.SnapshotID, snap.SnapshotID
	if err := sketchColumns(ctx, t, scan.Options{FromSnapshotID: &from, ToSnapshotID: &to}, cols); err != nil {
		return StatisticsResult{}, fmt.Errorf("update statistics of snapshot %d: %w", snap.SnapshotID, err)
	}
	merged := make([]*theta.Compact, len(cols))
	for i, c := range cols {
		u := theta.NewUnion()
		u.Add(earlier[c.id])
		u.Add(c.build.Compact())
		merged[i] = u.Result()
	}
	res, err := registerStatistics(ctx, t, snap, cols, merged)
	res.MergedFrom = base.SnapshotID
	return res, err
}

// StatisticsOnCommit keeps statistics current after a commit on a table
// with write.statistics.on-commit=true (UpdateStatistics of the current
// snapshot); on other tables it does nothing and returns nil. It is a
// commit of its own after the one that added the rows: a failure leaves
// the rows committed and the statistics one snapshot behind, which the
// next run catches up.
func StatisticsOnCommit(ctx context.Context, t *table.Table) (*StatisticsResult, error) {
	if t.Metadata.Properties[PropStatisticsOnCommit] != "true" || t.Metadata.CurrentSnapshotID == nil {
		return nil, nil
	}
	res, err := UpdateStatistics(ctx, t, StatisticsOptions{})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// appendBase is the nearest snapshot from snap back along its parents
// (snap itself included) with a statistics file, when every snapshot
// after it up to snap is an append; nil otherwise.
func appendBase(md *metadata.Metadata, snap *metadata.Snapshot) (*metadata.Snapshot, *metadata.StatisticsFile) {
	files := map[int64]*metadata.StatisticsFile{}
	for i := range md.Statistics {
		files[md.Statistics[i].SnapshotID] = &md.Statistics[i]
	}
	for s := snap; s != nil; {
		if f := files[s.SnapshotID]; f != nil {
			return s, f
		}
		if s.Summary["operation"] != "append" || s.ParentSnapshotID == nil {
			return nil, nil
		}
		s = md.SnapshotByID(*s.ParentSnapshotID)
	}
	return nil, nil
}

// readThetaBlobs reads a statistics file's single-column theta sketches,
// by field id.
func readThetaBlobs(ctx context.Context, t *table.Table, f *metadata.StatisticsFile) (map[int]*theta.Compact, error) {
	in, err := t.IO.Open(ctx, f.StatisticsPath)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	footer, err := puffin.ReadFooter(in, in.Size())
	if err != nil {
		return nil, err
	}
	out := map[int]*theta.Compact{}
	for _, b := range footer.Blobs {
		if b.Type != puffin.BlobTypeThetaSketch || len(b.Fields) != 1 {
			continue
		}
		raw, err := puffin.ReadBlob(in, b)
		if err != nil {
			return nil, err
		}
		c, err := theta.Unmarshal(raw)
		if err != nil {
			return nil, fmt.Errorf("field %d: %w", b.Fields[0], err)
		}
		out[int(b.Fields[0])] = c
	}
	return out, nil
}
