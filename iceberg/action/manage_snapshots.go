package action

import (
	"maps"
	"slices"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// ManageSnapshots changes a table's branches and tags, and moves main
// without writing a snapshot (rollback, set current snapshot): Java's
// ManageSnapshots, pyiceberg's manage_snapshots. Operations are chained
// and apply in order, each seeing the refs the earlier ones left:
//
//	var ms action.ManageSnapshots
//	ms.CreateBranch("audit", 0).SetMinSnapshotsToKeep("audit", 3).RollbackTo(id)
//
// A refused operation does not stop the chain; the first refusal, in
// operation order, is Err and Build's error (errkind.InvalidArgument, or
// NotFound for a missing snapshot or ref, named).
//
// Build yields the net change to the refs, as Java's ref operation does:
// one remove-snapshot-ref per ref gone (and per ref whose type changed),
// one set-snapshot-ref per ref created or changed. A ref moved and moved
// back yields nothing; main moved twice is logged once, at its final
// snapshot. metadata.Changes asserts every ref touched is still where the
// base had it, so a rollback racing a commit to main conflicts.
//
// Operations hold what the caller asked, never the metadata: 0 as the
// snapshot of CreateBranch or CreateTag means main's snapshot as the
// operation finds it, on the metadata Build is given.
type ManageSnapshots struct {
	ops []refOp
	err error
}

// refOp is one chained operation, run by Build on the refs so far.
type refOp func(s *refState) error

// refState is what the operations work on: the metadata Build was given
// (for its snapshots) and the refs as the operations so far leave them.
type refState struct {
	md   *metadata.Metadata
	refs map[string]metadata.Ref
}

func (*ManageSnapshots) Name() string { return "manage-snapshots" }

// Err is the first refusal found so far without metadata (an empty name,
// main removed, a retention setting ≤ 0); Build finds the rest.
func (m *ManageSnapshots) Err() error { return m.err }

// add chains op, or, when check refused the operation's input, a step
// that fails with that refusal in the operation's place.
func (m *ManageSnapshots) add(check error, op refOp) *ManageSnapshots {
	if check != nil {
		if m.err == nil {
			m.err = check
		}
		op = func(*refState) error { return check }
	}
	m.ops = append(m.ops, op)
	return m
}

func (m *ManageSnapshots) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	s := &refState{md: md, refs: maps.Clone(md.Refs)}
	if s.refs == nil {
		s.refs = map[string]metadata.Ref{}
	}
	for _, op := range m.ops {
		if err := op(s); err != nil {
			return nil, err
		}
	}
	return refChanges(md.Refs, s.refs), nil
}

// refChanges are the updates that turn the base refs into the new ones:
// removals first, so a name that changes type is free for its new ref;
// names sorted, so one change always gives the same updates.
func refChanges(base, next map[string]metadata.Ref) []metadata.Update {
	var out []metadata.Update
	for _, name := range slices.Sorted(maps.Keys(base)) {
		r, kept := next[name]
		if !kept || r.Type != base[name].Type {
			out = append(out, metadata.RemoveSnapshotRef{Name: name})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(next)) {
		old, had := base[name]
		if r := next[name]; !had || !sameRef(old, r) {
			out = append(out, metadata.SetSnapshotRef{Name: name, Ref: r})
		}
	}
	return out
}

func sameRef(a, b metadata.Ref) bool {
	return a.SnapshotID == b.SnapshotID && a.Type == b.Type &&
		samePtr(a.MinSnapshotsToKeep, b.MinSnapshotsToKeep) &&
		samePtr(a.MaxSnapshotAgeMs, b.MaxSnapshotAgeMs) &&
		samePtr(a.MaxRefAgeMs, b.MaxRefAgeMs)
}

func samePtr[T comparable](a, b *T) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// snapshot finds a snapshot of the table, or says which is missing.
func (s *refState) snapshot(op string, id int64) (*metadata.Snapshot, error) {
	if snap := s.md.SnapshotByID(id); snap != nil {
		return snap, nil
	}
	return nil, errkind.Errorf(errkind.NotFound, "%s: the table has no snapshot %d", op, id)
}

// ref finds a ref of the given type ("" for either), or says why not.
func (s *refState) ref(op, name, typ string) (metadata.Ref, error) {
	r, ok := s.refs[name]
	if !ok {
		what := typ
		if what == "" {
			what = "branch or tag"
		}
		return r, errkind.Errorf(errkind.NotFound, "%s: the table has no %s named %q", op, what, name)
	}
	if typ != "" && r.Type != typ {
		return r, invalid("%s: %q is a %s, not a %s", op, name, r.Type, typ)
	}
	return r, nil
}

// absent refuses a name that is already taken.
func (s *refState) absent(op, name string) error {
	if r, ok := s.refs[name]; ok {
		return invalid("%s: a %s named %q already exists (at snapshot %d)", op, r.Type, name, r.SnapshotID)
	}
	return nil
}

// main is the snapshot main points at, or a refusal naming op when the
// table has none.
func (s *refState) main(op string) (*metadata.Snapshot, error) {
	r, ok := s.refs[metadata.MainBranch]
	if !ok {
		return nil, invalid("%s: the table has no current snapshot (main has never been written to)", op)
	}
	return s.snapshot(op, r.SnapshotID)
}

// isAncestor says whether ancestor is head or one of head's parents.
func (s *refState) isAncestor(ancestor int64, head *metadata.Snapshot) bool {
	return slices.ContainsFunc(s.md.Ancestors(head), func(a *metadata.Snapshot) bool { return a.SnapshotID == ancestor })
}

// named refuses an empty ref name.
func named(op, name string) error {
	if name == "" {
		return invalid("%s: empty ref name", op)
	}
	return nil
}
