package action_test

import (
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// On Hive's six-snapshot table: a file is registered only for a snapshot
// the table has, replaces the snapshot's earlier one, and is removed only
// when there.
func TestSetAndRemoveStatistics(t *testing.T) {
	md := hiveMetadata(t)
	file := metadata.StatisticsFile{
		SnapshotID: hive[2], StatisticsPath: "/t/metadata/x.stats", FileSizeInBytes: 100, FileFooterSizeInBytes: 50,
		BlobMetadata: []metadata.BlobMetadata{{Type: "apache-datasketches-theta-v1", SnapshotID: hive[2], SequenceNumber: 3, Fields: []int{1}}},
	}
	updates, err := action.SetStatistics{File: file}.Build(md)
	if err != nil || len(updates) != 1 {
		t.Fatalf("%v %v", updates, err)
	}
	next, err := metadata.Apply(md, nil, updates)
	if err != nil || len(next.Statistics) != 1 || next.Statistics[0].StatisticsPath != file.StatisticsPath {
		t.Fatalf("%v %+v", err, next)
	}

	missing := file
	missing.SnapshotID = 12345
	if _, err := (action.SetStatistics{File: missing}).Build(md); !errors.Is(err, errkind.NotFound) {
		t.Errorf("a file of an unknown snapshot: %v", err)
	}
	badBlob := file
	badBlob.BlobMetadata = []metadata.BlobMetadata{{Type: "t", SnapshotID: 999}}
	if _, err := (action.SetStatistics{File: badBlob}).Build(md); !errors.Is(err, errkind.NotFound) {
		t.Errorf("a blob of an unknown snapshot: %v", err)
	}
	noPath := file
	noPath.StatisticsPath = ""
	if _, err := (action.SetStatistics{File: noPath}).Build(md); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("a file without a path: %v", err)
	}

	if u, err := (action.RemoveStatistics{SnapshotID: hive[3]}).Build(next); err != nil || len(u) != 0 {
		t.Errorf("removing statistics a snapshot lacks: %v %v", u, err)
	}
	u, err := action.RemoveStatistics{SnapshotID: hive[2]}.Build(next)
	if err != nil || len(u) != 1 {
		t.Fatalf("%v %v", u, err)
	}
	if after, err := metadata.Apply(next, nil, u); err != nil || after.Statistics != nil {
		t.Fatalf("%v %+v", err, after.Statistics)
	}
}
