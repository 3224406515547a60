package maintain

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
)

// PartitionStatisticsOptions choose the snapshot whose partition
// statistics are computed.
type PartitionStatisticsOptions struct {
	// SnapshotID is the snapshot; nil: the current one.
	SnapshotID *int64
}

// PartitionStatisticsResult is what a partition statistics computation
// registered.
type PartitionStatisticsResult struct {
	SnapshotID int64
	// File is the partition statistics file as registered in the table
	// metadata; Path its location.
	File metadata.PartitionStatisticsFile
	Path string
	// Partitions is the number of rows written: (spec, partition) pairs
	// with a live file (0 when Unchanged).
	Partitions int
	// MergedFrom is the earlier snapshot whose file
	// UpdatePartitionStatistics brought forward with the files added and
	// removed since; 0 when every manifest was read.
	MergedFrom int64
	// Unchanged is set when the snapshot had its file already and
	// UpdatePartitionStatistics left it as it was.
	Unchanged bool
}

// ComputePartitionStatistics computes a snapshot's partition statistics
// from all its manifests (Java's PartitionStatsHandler full computation):
// per spec and partition tuple, the counts and sizes of its live data
// files, position delete files, deletion vectors and equality delete
// files, and the newest snapshot that added or removed one of its files.
// It writes them as a Parquet file with the spec's schema and field ids
// (iceberg.PartitionStatsSchema), rows sorted by partition, with floe's
// writer into the table's metadata directory
// (partition-stats-<snapshot-id>-<uuid>.parquet, as Java names it), and
// registers it with set-partition-statistics in one commit, replacing the
// snapshot's earlier file. It reads manifests only, never data. A file
// not written whole, or not registered because the commit surely failed,
// is deleted. An unpartitioned table has none: InvalidArgument.
func ComputePartitionStatistics(ctx context.Context, t *table.Table, opts PartitionStatisticsOptions) (PartitionStatisticsResult, error) {
	snap, partType, err := partitionStatsTarget(t, opts)
	if err != nil {
		return PartitionStatisticsResult{}, err
	}
	rows, err := computePartitionStats(ctx, t, snap, partType)
	if err != nil {
		return PartitionStatisticsResult{}, fmt.Errorf("partition statistics of snapshot %d: %w", snap.SnapshotID, err)
	}
	return registerPartitionStatistics(ctx, t, snap, partType, rows)
}

// partitionStatsTarget is the snapshot opts name and the partition type
// of the table's statistics files.
func partitionStatsTarget(t *table.Table, opts PartitionStatisticsOptions) (*metadata.Snapshot, *iceberg.StructType, error) {
	snap, err := t.Snapshot(table.SnapshotSelector{SnapshotID: opts.SnapshotID})
	if err != nil {
		return nil, nil, err
	}
	if snap == nil {
		return nil, nil, errkind.Errorf(errkind.InvalidArgument, "partition statistics: the table has no snapshot")
	}
	unified, err := t.UnifiedPartitionType()
	if err != nil {
		return nil, nil, fmt.Errorf("partition statistics: %w", err)
	}
	if len(unified.Fields) == 0 {
		return nil, nil, errkind.Errorf(errkind.InvalidArgument, "partition statistics: the table is unpartitioned (no spec has a partition field)")
	}
	return snap, iceberg.PartitionStatsType(unified), nil
}

// IsPartitioned reports whether any spec of the table has a partition
// field: whether it can have partition statistics.
func IsPartitioned(md *metadata.Metadata) bool {
	for _, s := range md.PartitionSpecs {
		if len(s.Fields) > 0 {
			return true
		}
	}
	return false
}

// registerPartitionStatistics writes rows as snap's partition statistics
// file and commits it.
func registerPartitionStatistics(ctx context.Context, t *table.Table, snap *metadata.Snapshot, partType *iceberg.StructType, rows []*PartitionStats) (PartitionStatisticsResult, error) {
	path := table.MetadataDirFile(t.Metadata, fmt.Sprintf("partition-stats-%d-%s.parquet", snap.SnapshotID, uuid.NewString()))
	file, err := writePartitionStatsFile(ctx, t, path, snap.SnapshotID, partType, rows)
	if err != nil {
		return PartitionStatisticsResult{}, fmt.Errorf("partition statistics file %s: %w", path, err)
	}
	if _, err := t.Apply(ctx, action.SetPartitionStatistics{File: file}); err != nil {
		if !errors.Is(err, errkind.CommitStateUnknown) {
			_ = t.IO.Delete(context.WithoutCancel(ctx), path)
		}
		return PartitionStatisticsResult{}, err
	}
	return PartitionStatisticsResult{SnapshotID: snap.SnapshotID, File: file, Path: path, Partitions: len(rows)}, nil
}

// writePartitionStatsFile writes rows (sorted) with the schema of the
// table's format version through floe's one Parquet writer; on any
// failure nothing is left at path.
func writePartitionStatsFile(ctx context.Context, t *table.Table, path string, snapshotID int64, partType *iceberg.StructType, rows []*PartitionStats) (metadata.PartitionStatisticsFile, error) {
	schema, err := iceberg.PartitionStatsSchema(partType, t.Metadata.FormatVersion)
	if err != nil {
		return metadata.PartitionStatisticsFile{}, err
	}
	arrowSchema, err := arrowschema.ArrowSchema(schema.Fields)
	if err != nil {
		return metadata.PartitionStatisticsFile{}, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema)
	defer b.Release()
	for _, p := range rows {
		for j, v := range partitionStatsRow(p, len(schema.Fields)) {
			if err := arrowschema.AppendValue(b.Field(j), schema.Fields[j].Type, v); err != nil {
				return metadata.PartitionStatisticsFile{}, fmt.Errorf("column %s: %w", schema.Fields[j].Name, err)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	w, err := writer.NewFileWriter(ctx, t.IO, path, schema, writer.DefaultOptions())
	if err != nil {
		return metadata.PartitionStatisticsFile{}, err
	}
	if err := w.Write(rec); err != nil {
		_ = w.Abort()
		return metadata.PartitionStatisticsFile{}, err
	}
	df, err := w.Close()
	if err != nil {
		_ = w.Abort()
		return metadata.PartitionStatisticsFile{}, err
	}
	return metadata.PartitionStatisticsFile{SnapshotID: snapshotID, StatisticsPath: path, FileSizeInBytes: df.FileSizeInBytes}, nil
}

// partitionStatsRow is p's values in the order of
// iceberg.PartitionStatsSchema's fields (n of them: 12 before v3, 13
// with dv_count).
func partitionStatsRow(p *PartitionStats, n int) []any {
	opt := func(v *int64) any {
		if v == nil {
			return nil
		}
		return *v
	}
	row := []any{
		p.Partition, p.SpecID, p.DataRecordCount, p.DataFileCount, p.TotalDataFileSize,
		p.PositionDeleteRecordCount, p.PositionDeleteFileCount, p.EqualityDeleteRecordCount, p.EqualityDeleteFileCount,
		opt(p.TotalRecordCount), opt(p.LastUpdatedAt), opt(p.LastUpdatedSnapshotID), p.DVCount,
	}
	return row[:n]
}
