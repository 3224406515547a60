package action

import (
	"cmp"

	"github.com/floedb/floe/iceberg/metadata"
)

// The retention settings of ManageSnapshots: what expire_snapshots keeps
// per ref (table.ExpireSnapshots reads them), overriding the table's
// history.expire.* properties for that ref. Java's SnapshotRef refuses
// values ≤ 0 and the snapshot settings on a tag; so does floe.

// SetMinSnapshotsToKeep sets how many of a branch's newest ancestors
// expiry keeps, however old.
func (m *ManageSnapshots) SetMinSnapshotsToKeep(branch string, n int) *ManageSnapshots {
	const op = "set min-snapshots-to-keep"
	return m.retention(op, branch, metadata.RefBranch, n <= 0, n, func(r *metadata.Ref) { v := n; r.MinSnapshotsToKeep = &v })
}

// SetMaxSnapshotAgeMs sets how old a branch's ancestors may grow before
// expiry drops them (beyond the minimum kept).
func (m *ManageSnapshots) SetMaxSnapshotAgeMs(branch string, ms int64) *ManageSnapshots {
	const op = "set max-snapshot-age-ms"
	return m.retention(op, branch, metadata.RefBranch, ms <= 0, ms, func(r *metadata.Ref) { v := ms; r.MaxSnapshotAgeMs = &v })
}

// SetMaxRefAgeMs sets how old the snapshot of a branch or tag may grow
// before expiry drops the ref itself. Main is never dropped; its setting
// is kept but unused, as in Java.
func (m *ManageSnapshots) SetMaxRefAgeMs(ref string, ms int64) *ManageSnapshots {
	const op = "set max-ref-age-ms"
	return m.retention(op, ref, "", ms <= 0, ms, func(r *metadata.Ref) { v := ms; r.MaxRefAgeMs = &v })
}

// retention chains a retention setter: bad refuses the value; typ is the
// ref type the setting applies to ("" for both).
func (m *ManageSnapshots) retention(op, name, typ string, bad bool, value any, set func(*metadata.Ref)) *ManageSnapshots {
	check := named(op, name)
	if bad {
		check = cmp.Or(check, invalid("%s of %q: %v is not positive", op, name, value))
	}
	// set gives each build its own copy of the value: refs built are
	// never shared.
	return m.add(check, func(s *refState) error {
		r, err := s.ref(op, name, typ)
		if err != nil {
			return err
		}
		set(&r)
		s.refs[name] = r
		return nil
	})
}
