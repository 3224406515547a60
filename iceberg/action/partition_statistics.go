package action

import (
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// SetPartitionStatistics registers a snapshot's partition statistics file
// (written before the commit), replacing the one the snapshot had: Java's
// UpdatePartitionStatistics.setPartitionStatistics. As for SetStatistics,
// the snapshot must exist when the commit is built.
type SetPartitionStatistics struct {
	File metadata.PartitionStatisticsFile
}

func (SetPartitionStatistics) Name() string { return "set-partition-statistics" }

func (a SetPartitionStatistics) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	if a.File.StatisticsPath == "" {
		return nil, invalid("partition statistics file of snapshot %d has no path", a.File.SnapshotID)
	}
	if md.SnapshotByID(a.File.SnapshotID) == nil {
		return nil, errkind.Errorf(errkind.NotFound, "partition statistics file %s: no snapshot %d", a.File.StatisticsPath, a.File.SnapshotID)
	}
	return []metadata.Update{metadata.SetPartitionStatistics{PartitionStatistics: a.File}}, nil
}

// Rebasable: a snapshot's partition statistics mean the same on any later
// version that still has the snapshot (Build checks that on every attempt).
func (SetPartitionStatistics) Rebasable() bool { return true }

// RemovePartitionStatistics drops a snapshot's partition statistics file
// from the metadata (the file stays until orphan removal or expiry); a
// snapshot without one is left alone.
type RemovePartitionStatistics struct {
	SnapshotID int64
}

func (RemovePartitionStatistics) Name() string { return "remove-partition-statistics" }

func (a RemovePartitionStatistics) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	for _, f := range md.PartitionStatistics {
		if f.SnapshotID == a.SnapshotID {
			return []metadata.Update{metadata.RemovePartitionStatistics{SnapshotID: a.SnapshotID}}, nil
		}
	}
	return nil, nil
}

func (RemovePartitionStatistics) Rebasable() bool { return true }
