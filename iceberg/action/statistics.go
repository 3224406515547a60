package action

import (
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// SetStatistics registers a snapshot's table statistics file (a Puffin
// file of NDV sketches, written before the commit), replacing the one the
// snapshot had: Java's UpdateStatistics.setStatistics. The snapshot must
// exist when the commit is built, so a file is never registered for a
// snapshot expired meanwhile.
type SetStatistics struct {
	File metadata.StatisticsFile
}

func (SetStatistics) Name() string { return "set-statistics" }

func (a SetStatistics) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	if a.File.StatisticsPath == "" {
		return nil, invalid("statistics file of snapshot %d has no path", a.File.SnapshotID)
	}
	if md.SnapshotByID(a.File.SnapshotID) == nil {
		return nil, errkind.Errorf(errkind.NotFound, "statistics file %s: no snapshot %d", a.File.StatisticsPath, a.File.SnapshotID)
	}
	for _, b := range a.File.BlobMetadata {
		if b.SnapshotID != a.File.SnapshotID && md.SnapshotByID(b.SnapshotID) == nil {
			return nil, errkind.Errorf(errkind.NotFound, "statistics file %s: a %s blob names snapshot %d, which the table does not have", a.File.StatisticsPath, b.Type, b.SnapshotID)
		}
	}
	return []metadata.Update{metadata.SetStatistics{Statistics: a.File}}, nil
}

// Rebasable: statistics of a snapshot mean the same on any later version
// that still has the snapshot (Build checks that on every attempt).
func (SetStatistics) Rebasable() bool { return true }

// RemoveStatistics drops a snapshot's table statistics file from the
// metadata (the file itself stays until orphan removal or expiry); a
// snapshot without one is left alone.
type RemoveStatistics struct {
	SnapshotID int64
}

func (RemoveStatistics) Name() string { return "remove-statistics" }

func (a RemoveStatistics) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	for _, f := range md.Statistics {
		if f.SnapshotID == a.SnapshotID {
			return []metadata.Update{metadata.RemoveStatistics{SnapshotID: a.SnapshotID}}, nil
		}
	}
	return nil, nil
}

func (RemoveStatistics) Rebasable() bool { return true }
