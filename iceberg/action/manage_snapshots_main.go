package action

import (
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// The operations of ManageSnapshots that move main without writing a
// snapshot, as Java's SetSnapshotOperation has them. Like Java and
// pyiceberg they move main only; ReplaceBranch moves any other branch.
// Main keeps its retention settings.

// SetCurrentSnapshot makes any snapshot of the table main's, ancestor or
// not (a staged write-audit-publish snapshot, a snapshot of another
// branch).
func (m *ManageSnapshots) SetCurrentSnapshot(snapshotID int64) *ManageSnapshots {
	return m.add(nil, func(s *refState) error {
		if _, err := s.snapshot("set current snapshot", snapshotID); err != nil {
			return err
		}
		s.setMain(snapshotID)
		return nil
	})
}

// RollbackTo moves main back to one of its ancestors; a snapshot off
// main's history is refused, named (SetCurrentSnapshot takes any).
func (m *ManageSnapshots) RollbackTo(snapshotID int64) *ManageSnapshots {
	const op = "roll back"
	return m.add(nil, func(s *refState) error {
		if _, err := s.snapshot(op, snapshotID); err != nil {
			return err
		}
		head, err := s.main(fmt.Sprintf("%s to snapshot %d", op, snapshotID))
		if err != nil {
			return err
		}
		if !s.isAncestor(snapshotID, head) {
			return invalid("%s: snapshot %d is not an ancestor of main's current snapshot %d", op, snapshotID, head.SnapshotID)
		}
		s.setMain(snapshotID)
		return nil
	})
}

// RollbackToTime moves main back to its latest ancestor committed before
// ms (milliseconds since the epoch, exclusive), as Java does; with none,
// it is refused (errkind.NotFound).
func (m *ManageSnapshots) RollbackToTime(ms int64) *ManageSnapshots {
	op := fmt.Sprintf("roll back to time %d", ms)
	return m.add(nil, func(s *refState) error {
		head, err := s.main(op)
		if err != nil {
			return err
		}
		// Ancestors run newest first by parentage, but commit times need
		// not (clock skew between writers): take the latest by time.
		var found *metadata.Snapshot
		for _, a := range s.md.Ancestors(head) {
			if a.TimestampMs < ms && (found == nil || a.TimestampMs > found.TimestampMs) {
				found = a
			}
		}
		if found == nil {
			return errkind.Errorf(errkind.NotFound, "%s: main has no snapshot committed before it", op)
		}
		s.setMain(found.SnapshotID)
		return nil
	})
}

// setMain points main at a snapshot, creating main on a table that has
// snapshots but no main (only staged ones).
func (s *refState) setMain(snapshotID int64) {
	r, ok := s.refs[metadata.MainBranch]
	if !ok {
		r = metadata.Ref{Type: metadata.RefBranch}
	}
	r.SnapshotID = snapshotID
	s.refs[metadata.MainBranch] = r
}
