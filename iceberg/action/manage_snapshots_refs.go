package action

import (
	"cmp"
	"strconv"

	"github.com/floedb/floe/iceberg/metadata"
)

// The branch and tag operations of ManageSnapshots, as Java's
// UpdateSnapshotReferencesOperation has them.

// CreateBranch creates a branch at a snapshot; 0 is main's snapshot (a
// table never written to has none, and is refused: Java would commit an
// empty snapshot for the branch, floe writes no snapshot here). The name
// must be free.
func (m *ManageSnapshots) CreateBranch(name string, snapshotID int64) *ManageSnapshots {
	return m.create("create branch", name, snapshotID, metadata.RefBranch)
}

// CreateTag creates a tag at a snapshot; 0 is main's snapshot. The name
// must be free.
func (m *ManageSnapshots) CreateTag(name string, snapshotID int64) *ManageSnapshots {
	return m.create("create tag", name, snapshotID, metadata.RefTag)
}

func (m *ManageSnapshots) create(op, name string, snapshotID int64, typ string) *ManageSnapshots {
	check := named(op, name)
	if name == metadata.MainBranch && typ != metadata.RefBranch {
		check = invalid("%s: main is always a branch", op)
	}
	return m.add(check, func(s *refState) error {
		if err := s.absent(op, name); err != nil {
			return err
		}
		id := snapshotID
		if id == 0 {
			head, err := s.main(op + " " + strconv.Quote(name))
			if err != nil {
				return err
			}
			id = head.SnapshotID
		} else if _, err := s.snapshot(op+" "+strconv.Quote(name), id); err != nil {
			return err
		}
		s.refs[name] = metadata.Ref{SnapshotID: id, Type: typ}
		return nil
	})
}

// RemoveBranch drops a branch (never main; a tag is refused).
func (m *ManageSnapshots) RemoveBranch(name string) *ManageSnapshots {
	const op = "remove branch"
	check := named(op, name)
	if name == metadata.MainBranch {
		check = invalid("%s: main cannot be removed", op)
	}
	return m.add(check, func(s *refState) error {
		if _, err := s.ref(op, name, metadata.RefBranch); err != nil {
			return err
		}
		delete(s.refs, name)
		return nil
	})
}

// RemoveTag drops a tag (a branch is refused).
func (m *ManageSnapshots) RemoveTag(name string) *ManageSnapshots {
	const op = "remove tag"
	return m.add(named(op, name), func(s *refState) error {
		if _, err := s.ref(op, name, metadata.RefTag); err != nil {
			return err
		}
		delete(s.refs, name)
		return nil
	})
}

// RenameBranch gives a branch, not main, a free name; it keeps its
// snapshot and retention.
func (m *ManageSnapshots) RenameBranch(name, newName string) *ManageSnapshots {
	const op = "rename branch"
	check := cmp.Or(named(op, name), named(op, newName))
	if name == metadata.MainBranch {
		check = invalid("%s: main cannot be renamed", op)
	}
	return m.add(check, func(s *refState) error {
		r, err := s.ref(op, name, metadata.RefBranch)
		if err != nil {
			return err
		}
		if err := s.absent(op+" "+strconv.Quote(name), newName); err != nil {
			return err
		}
		delete(s.refs, name)
		s.refs[newName] = r
		return nil
	})
}

// ReplaceBranch points an existing branch at any snapshot of the table,
// keeping its retention. Unlike FastForwardBranch it need not move
// forward: main may be moved to a snapshot off its history.
func (m *ManageSnapshots) ReplaceBranch(name string, snapshotID int64) *ManageSnapshots {
	return m.replace("replace branch", name, snapshotID, metadata.RefBranch)
}

// ReplaceTag points an existing tag at another snapshot, keeping its
// retention.
func (m *ManageSnapshots) ReplaceTag(name string, snapshotID int64) *ManageSnapshots {
	return m.replace("replace tag", name, snapshotID, metadata.RefTag)
}

func (m *ManageSnapshots) replace(op, name string, snapshotID int64, typ string) *ManageSnapshots {
	return m.add(named(op, name), func(s *refState) error {
		r, err := s.ref(op, name, typ)
		if err != nil {
			return err
		}
		if _, err := s.snapshot(op+" "+strconv.Quote(name), snapshotID); err != nil {
			return err
		}
		r.SnapshotID = snapshotID
		s.refs[name] = r
		return nil
	})
}

// ReplaceBranchWith points branch name at the snapshot of ref other (a
// branch or tag), which is left alone: Java's replaceBranch(from, to). A
// branch that does not exist is created there, as Java does.
func (m *ManageSnapshots) ReplaceBranchWith(name, other string) *ManageSnapshots {
	return m.moveTo("replace branch", name, other, false)
}

// FastForwardBranch moves branch name forward to the snapshot of ref
// `to`: name's snapshot must be that snapshot or one of its ancestors,
// else it is refused, naming both. A branch that does not exist is
// created there, as Java does. Write-audit-publish's last step:
// FastForwardBranch("main", "audit").
func (m *ManageSnapshots) FastForwardBranch(name, to string) *ManageSnapshots {
	return m.moveTo("fast-forward branch", name, to, true)
}

func (m *ManageSnapshots) moveTo(op, name, to string, forwardOnly bool) *ManageSnapshots {
	return m.add(cmp.Or(named(op, name), named(op, to)), func(s *refState) error {
		target, err := s.ref(op+" "+strconv.Quote(name), to, "")
		if err != nil {
			return err
		}
		head, err := s.snapshot(op+" "+strconv.Quote(name)+" to "+strconv.Quote(to), target.SnapshotID)
		if err != nil {
			return err
		}
		r, ok := s.refs[name]
		if !ok {
			s.refs[name] = metadata.Ref{SnapshotID: head.SnapshotID, Type: metadata.RefBranch}
			return nil
		}
		if r.Type != metadata.RefBranch {
			return invalid("%s: %q is a %s, not a branch", op, name, r.Type)
		}
		if r.SnapshotID == head.SnapshotID {
			return nil
		}
		if forwardOnly && !s.isAncestor(r.SnapshotID, head) {
			return invalid("%s: %q (snapshot %d) is not an ancestor of %q (snapshot %d)", op, name, r.SnapshotID, to, head.SnapshotID)
		}
		r.SnapshotID = head.SnapshotID
		s.refs[name] = r
		return nil
	})
}
