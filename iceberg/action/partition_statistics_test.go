package action_test

import (
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// On Hive's six-snapshot table: a partition statistics file is registered
// only for a snapshot the table has, replaces the snapshot's earlier one
// (one per snapshot), and is removed only when there.
func TestSetAndRemovePartitionStatistics(t *testing.T) {
	md := hiveMetadata(t)
	file := metadata.PartitionStatisticsFile{SnapshotID: hive[2], StatisticsPath: "/t/metadata/partition-stats-a.parquet", FileSizeInBytes: 100}
	updates, err := action.SetPartitionStatistics{File: file}.Build(md)
	if err != nil || len(updates) != 1 {
		t.Fatalf("%v %v", updates, err)
	}
	next, err := metadata.Apply(md, nil, updates)
	if err != nil || len(next.PartitionStatistics) != 1 || next.PartitionStatistics[0] != file {
		t.Fatalf("%v %+v", err, next.PartitionStatistics)
	}
	again := file
	again.StatisticsPath, again.FileSizeInBytes = "/t/metadata/partition-stats-b.parquet", 200
	u, err := action.SetPartitionStatistics{File: again}.Build(next)
	if err != nil {
		t.Fatal(err)
	}
	if next, err = metadata.Apply(next, nil, u); err != nil || len(next.PartitionStatistics) != 1 || next.PartitionStatistics[0] != again {
		t.Fatalf("replacing: %v %+v", err, next.PartitionStatistics)
	}

	missing := file
	missing.SnapshotID = 12345
	if _, err := (action.SetPartitionStatistics{File: missing}).Build(md); !errors.Is(err, errkind.NotFound) {
		t.Errorf("a file of an unknown snapshot: %v", err)
	}
	noPath := file
	noPath.StatisticsPath = ""
	if _, err := (action.SetPartitionStatistics{File: noPath}).Build(md); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("a file without a path: %v", err)
	}

	if u, err := (action.RemovePartitionStatistics{SnapshotID: hive[3]}).Build(next); err != nil || len(u) != 0 {
		t.Errorf("removing partition statistics a snapshot lacks: %v %v", u, err)
	}
	u, err = action.RemovePartitionStatistics{SnapshotID: hive[2]}.Build(next)
	if err != nil || len(u) != 1 {
		t.Fatalf("%v %v", u, err)
	}
	if after, err := metadata.Apply(next, nil, u); err != nil || after.PartitionStatistics != nil {
		t.Fatalf("%v %+v", err, after.PartitionStatistics)
	}
}
