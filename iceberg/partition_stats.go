package iceberg

import (
	"slices"

	"github.com/floedb/floe/errkind"
)

// Field ids of a partition statistics file's columns, as the spec
// numbers them ("Partition Statistics File"). dv_count came with v3 and
// sits last in the file although its id is 13.
const (
	PartitionStatsPartition                 = 1
	PartitionStatsSpecID                    = 2
	PartitionStatsDataRecordCount           = 3
	PartitionStatsDataFileCount             = 4
	PartitionStatsTotalDataFileSize         = 5
	PartitionStatsPositionDeleteRecordCount = 6
	PartitionStatsPositionDeleteFileCount   = 7
	PartitionStatsEqualityDeleteRecordCount = 8
	PartitionStatsEqualityDeleteFileCount   = 9
	PartitionStatsTotalRecordCount          = 10
	PartitionStatsLastUpdatedAt             = 11
	PartitionStatsLastUpdatedSnapshotID     = 12
	PartitionStatsDVCount                   = 13
)

// PartitionStatsType is the partition column's type in a partition
// statistics file: every partition field any spec of the table has had
// (unified, as Table.UnifiedPartitionType gives them), sorted by field id
// as the spec requires, each optional since a file of one spec has no
// value for another's fields.
func PartitionStatsType(unified *StructType) *StructType {
	fields := slices.Clone(unified.Fields)
	for i := range fields {
		fields[i].Required = false
	}
	slices.SortStableFunc(fields, func(a, b NestedField) int { return a.ID - b.ID })
	return &StructType{Fields: fields}
}

// PartitionStatsSchema is the schema of a partition statistics file of a
// table of formatVersion whose unified partition type is unified. v1 and
// v2 files have the delete counts optional and no dv_count; v3 files
// have them required and dv_count (required, default 0, so a v3 reader
// takes a v2 file), as Java's PartitionStatistics schemas are. An
// unpartitioned table has no partition statistics (the spec's partition
// tuple has at least one field; Java refuses such tables too).
func PartitionStatsSchema(unified *StructType, formatVersion int) (*Schema, error) {
	if len(unified.Fields) == 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "partition statistics: the table is unpartitioned (no spec has a partition field)")
	}
	if formatVersion < 1 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "partition statistics: invalid format version %d", formatVersion)
	}
	v3 := formatVersion >= 3
	fields := []NestedField{
		{ID: PartitionStatsPartition, Name: "partition", Type: PartitionStatsType(unified), Required: true},
		{ID: PartitionStatsSpecID, Name: "spec_id", Type: IntType{}, Required: true},
		{ID: PartitionStatsDataRecordCount, Name: "data_record_count", Type: LongType{}, Required: true},
		{ID: PartitionStatsDataFileCount, Name: "data_file_count", Type: IntType{}, Required: true},
		{ID: PartitionStatsTotalDataFileSize, Name: "total_data_file_size_in_bytes", Type: LongType{}, Required: true},
		{ID: PartitionStatsPositionDeleteRecordCount, Name: "position_delete_record_count", Type: LongType{}, Required: v3},
		{ID: PartitionStatsPositionDeleteFileCount, Name: "position_delete_file_count", Type: IntType{}, Required: v3},
		{ID: PartitionStatsEqualityDeleteRecordCount, Name: "equality_delete_record_count", Type: LongType{}, Required: v3},
		{ID: PartitionStatsEqualityDeleteFileCount, Name: "equality_delete_file_count", Type: IntType{}, Required: v3},
		{ID: PartitionStatsTotalRecordCount, Name: "total_record_count", Type: LongType{}},
		{ID: PartitionStatsLastUpdatedAt, Name: "last_updated_at", Type: LongType{}},
		{ID: PartitionStatsLastUpdatedSnapshotID, Name: "last_updated_snapshot_id", Type: LongType{}},
	}
	if v3 {
		fields = append(fields, NestedField{ID: PartitionStatsDVCount, Name: "dv_count", Type: IntType{}, Required: true,
			InitialDefault: int32(0), WriteDefault: int32(0)})
	}
	return NewSchema(0, fields), nil
}
