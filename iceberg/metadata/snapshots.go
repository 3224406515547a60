package metadata

import (
	"fmt"
	"time"

	"github.com/floedb/floe/errkind"
)

// CurrentSnapshot is the snapshot current-snapshot-id names, or nil when the
// table has none (it has never been written to).
func (m *Metadata) CurrentSnapshot() *Snapshot {
	if m.CurrentSnapshotID == nil {
		return nil
	}
	return m.SnapshotByID(*m.CurrentSnapshotID)
}

// SnapshotByID finds a snapshot, or gives nil (it may have expired).
func (m *Metadata) SnapshotByID(id int64) *Snapshot {
	for i := range m.Snapshots {
		if m.Snapshots[i].SnapshotID == id {
			return &m.Snapshots[i]
		}
	}
	return nil
}

// SnapshotByRef finds the snapshot a branch or tag points at.
func (m *Metadata) SnapshotByRef(name string) (*Snapshot, error) {
	r, ok := m.Refs[name]
	if !ok {
		if name == MainBranch && m.CurrentSnapshotID == nil {
			return nil, errkind.Errorf(errkind.NotFound, "branch %q has no snapshot: the table has never been written to", name)
		}
		return nil, errkind.Errorf(errkind.NotFound, "the table has no branch or tag named %q", name)
	}
	s := m.SnapshotByID(r.SnapshotID)
	if s == nil {
		return nil, errkind.Errorf(errkind.NotFound, "%s %q points at snapshot %d, which is not in the table metadata", r.Type, name, r.SnapshotID)
	}
	return s, nil
}

// SnapshotAsOf finds the snapshot that was current at time ms (milliseconds
// since the epoch). The snapshot log says which snapshot was current when,
// rollbacks included; the latest entry at or before ms wins, as in the
// reference implementation. Without a log, the current snapshot's ancestry is
// searched by commit time instead. A time before the first snapshot is an
// error.
func (m *Metadata) SnapshotAsOf(ms int64) (*Snapshot, error) {
	if len(m.SnapshotLog) > 0 {
		var found *SnapshotLogEntry
		for i := range m.SnapshotLog {
			if m.SnapshotLog[i].TimestampMs <= ms {
				found = &m.SnapshotLog[i]
			}
		}
		if found == nil {
			return nil, errkind.Errorf(errkind.NotFound, "no snapshot was current at %s: the snapshot log starts at %s", formatMs(ms), formatMs(m.SnapshotLog[0].TimestampMs))
		}
		s := m.SnapshotByID(found.SnapshotID)
		if s == nil {
			return nil, errkind.Errorf(errkind.NotFound, "snapshot %d, current at %s, has expired", found.SnapshotID, formatMs(ms))
		}
		return s, nil
	}
	current := m.CurrentSnapshot()
	if current == nil {
		return nil, errkind.Errorf(errkind.NotFound, "no snapshot was current at %s: the table has no snapshots", formatMs(ms))
	}
	ancestors := m.Ancestors(current)
	for _, s := range ancestors {
		if s.TimestampMs <= ms {
			return s, nil
		}
	}
	oldest := ancestors[len(ancestors)-1]
	return nil, errkind.Errorf(errkind.NotFound, "no snapshot was current at %s: the oldest known snapshot %d was committed at %s", formatMs(ms), oldest.SnapshotID, formatMs(oldest.TimestampMs))
}

// Ancestors lists snap and then its parents, newest first, as far back as
// the metadata still has them (older ones may have expired). A nil snap
// gives nil.
func (m *Metadata) Ancestors(snap *Snapshot) []*Snapshot {
	if snap == nil {
		return nil
	}
	byID := make(map[int64]*Snapshot, len(m.Snapshots))
	for i := range m.Snapshots {
		byID[m.Snapshots[i].SnapshotID] = &m.Snapshots[i]
	}
	out := []*Snapshot{snap}
	seen := map[int64]bool{snap.SnapshotID: true}
	for s := snap; s.ParentSnapshotID != nil; {
		parent, ok := byID[*s.ParentSnapshotID]
		// A parent that is already listed means the file has a cycle; stop
		// rather than loop.
		if !ok || seen[parent.SnapshotID] {
			break
		}
		seen[parent.SnapshotID] = true
		out = append(out, parent)
		s = parent
	}
	return out
}

func formatMs(ms int64) string {
	return fmt.Sprintf("%d (%s)", ms, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z"))
}
