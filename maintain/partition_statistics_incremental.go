package maintain

import (
	"context"
	"fmt"
	"strconv"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// UpdatePartitionStatistics brings a snapshot's partition statistics up
// to date reading as little as it can, as Java's
// PartitionStatsHandler.computeAndWriteStatsFile does: from the nearest
// ancestor (the snapshot itself included) with a partition statistics
// file, it reads that file and, of every snapshot since, only the
// manifests that snapshot wrote, adding the files they add and taking off
// the files they remove (files carried over were counted already), so
// an append, a delete or a compaction costs its own manifests, not the
// table's. It falls back to ComputePartitionStatistics when no ancestor
// has a file, when the chain back to it is broken (an expired snapshot
// in between), or when the file cannot be read or does not add up (a
// removed file it never counted, totals other than the snapshot
// summary's). A snapshot that has its file already is left as it is
// (Unchanged).
func UpdatePartitionStatistics(ctx context.Context, t *table.Table, opts PartitionStatisticsOptions) (PartitionStatisticsResult, error) {
	snap, partType, err := partitionStatsTarget(t, opts)
	if err != nil {
		return PartitionStatisticsResult{}, err
	}
	base, file, between := partitionStatsBase(t.Metadata, snap)
	if file == nil {
		return ComputePartitionStatistics(ctx, t, opts)
	}
	if base.SnapshotID == snap.SnapshotID {
		return PartitionStatisticsResult{SnapshotID: snap.SnapshotID, File: *file, Path: file.StatisticsPath, Unchanged: true}, nil
	}
	rows, ok, err := mergePartitionStats(ctx, t, partType, file, between)
	if err != nil {
		return PartitionStatisticsResult{}, fmt.Errorf("partition statistics of snapshot %d from those of %d: %w", snap.SnapshotID, base.SnapshotID, err)
	}
	if !ok {
		return ComputePartitionStatistics(ctx, t, opts)
	}
	res, err := registerPartitionStatistics(ctx, t, snap, partType, rows)
	res.MergedFrom = base.SnapshotID
	return res, err
}

// PartitionStatisticsOnCommit keeps partition statistics current after a
// commit on a partitioned table with write.statistics.on-commit=true
// (UpdatePartitionStatistics of the current snapshot); on other tables it
// does nothing and returns nil. Like StatisticsOnCommit it is a commit of
// its own after the one that changed the files: a failure leaves the
// statistics behind, which the next run catches up.
func PartitionStatisticsOnCommit(ctx context.Context, t *table.Table) (*PartitionStatisticsResult, error) {
	md := t.Metadata
	if md.Properties[PropStatisticsOnCommit] != "true" || md.CurrentSnapshotID == nil || !IsPartitioned(md) {
		return nil, nil
	}
	res, err := UpdatePartitionStatistics(ctx, t, PartitionStatisticsOptions{})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// partitionStatsBase walks from snap back along its parents to the first
// snapshot with a partition statistics file; between is the snapshots
// after it up to snap, newest first. file is nil when no ancestor has
// one or a parent on the way is gone.
func partitionStatsBase(md *metadata.Metadata, snap *metadata.Snapshot) (base *metadata.Snapshot, file *metadata.PartitionStatisticsFile, between []*metadata.Snapshot) {
	files := map[int64]*metadata.PartitionStatisticsFile{}
	for i := range md.PartitionStatistics {
		files[md.PartitionStatistics[i].SnapshotID] = &md.PartitionStatistics[i]
	}
	if len(files) == 0 {
		return nil, nil, nil
	}
	for s := snap; s != nil; {
		if f := files[s.SnapshotID]; f != nil {
			return s, f, between
		}
		between = append(between, s)
		if s.ParentSnapshotID == nil {
			return nil, nil, nil
		}
		s = md.SnapshotByID(*s.ParentSnapshotID)
	}
	return nil, nil, nil
}

// mergePartitionStats is the base file's rows with the changes of the
// snapshots between applied; ok is false when the file cannot serve as a
// base (unreadable, or counts that go below zero).
func mergePartitionStats(ctx context.Context, t *table.Table, partType *iceberg.StructType, file *metadata.PartitionStatisticsFile, between []*metadata.Snapshot) (rows []*PartitionStats, ok bool, err error) {
	old, err := ReadPartitionStatistics(ctx, t, file.StatisticsPath)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, false, nil // Java too recomputes when the file is unreadable
	}
	m := newPartitionStatsMap(t.Metadata, partType)
	for _, o := range old {
		p, err := m.row(o.SpecID, o.Partition)
		if err != nil {
			return nil, false, nil
		}
		p.merge(o)
	}
	var manifests []manifest.ManifestFile
	for _, s := range between {
		list, err := t.ManifestList(ctx, s)
		if err != nil {
			return nil, false, err
		}
		for _, mf := range list {
			if mf.AddedSnapshotID == s.SnapshotID {
				manifests = append(manifests, mf)
			}
		}
	}
	if err := countManifests(ctx, t, manifests, m, true); err != nil {
		return nil, false, err
	}
	for _, p := range m.rows {
		if p.negative() {
			return nil, false, nil
		}
	}
	rows = m.sorted()
	return rows, agreesWithSummary(rows, between[0]), nil
}

// agreesWithSummary checks rows against the totals the snapshot's summary
// states (those it has): a base file that was wrong, or manifests the
// walk missed (a writer that recorded another snapshot id in its list),
// show as a difference, and the statistics are then computed in full
// rather than carried forward wrong.
func agreesWithSummary(rows []*PartitionStats, snap *metadata.Snapshot) bool {
	var dataFiles, records, deleteFiles, posDeletes, eqDeletes int64
	for _, p := range rows {
		dataFiles += int64(p.DataFileCount)
		records += p.DataRecordCount
		deleteFiles += int64(p.PositionDeleteFileCount) + int64(p.DVCount) + int64(p.EqualityDeleteFileCount)
		posDeletes += p.PositionDeleteRecordCount
		eqDeletes += p.EqualityDeleteRecordCount
	}
	for key, got := range map[string]int64{
		"total-data-files": dataFiles, "total-records": records, "total-delete-files": deleteFiles,
		"total-position-deletes": posDeletes, "total-equality-deletes": eqDeletes,
	} {
		if want, err := strconv.ParseInt(snap.Summary[key], 10, 64); err == nil && want != got {
			return false
		}
	}
	return true
}
