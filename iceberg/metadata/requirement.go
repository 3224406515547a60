package metadata

import "github.com/floedb/floe/errkind"

// Requirement is what the metadata a commit applies to must still be
// (TableRequirement in rest-catalog-open-api.yaml): the part of the base a
// commit's updates were built on and depend on. A catalog checks them
// against the table's current metadata when the commit arrives; one that
// fails means another writer committed first.
type Requirement interface {
	// Type is the requirement's name in the protocol.
	Type() string
	// Check reports a conflict (errkind.Conflict) when m, the table's
	// current metadata (nil: no table yet), does not meet the requirement.
	Check(m *Metadata) error
}

type (
	// AssertCreate: the table must not exist yet.
	AssertCreate struct{}
	// AssertTableUUID: the table must be the one with this UUID.
	AssertTableUUID struct{ UUID string }
	// AssertRefSnapshotID: the branch or tag must point at SnapshotID, or
	// not exist when SnapshotID is nil.
	AssertRefSnapshotID struct {
		Ref        string
		SnapshotID *int64
	}
	// AssertLastAssignedFieldID: no column was added since.
	AssertLastAssignedFieldID struct{ LastAssignedFieldID int }
	// AssertCurrentSchemaID: the current schema is still this one.
	AssertCurrentSchemaID struct{ CurrentSchemaID int }
	// AssertLastAssignedPartitionID: no partition field was added since.
	AssertLastAssignedPartitionID struct{ LastAssignedPartitionID int }
	// AssertDefaultSpecID: the default partition spec is still this one.
	AssertDefaultSpecID struct{ DefaultSpecID int }
	// AssertDefaultSortOrderID: the default sort order is still this one.
	AssertDefaultSortOrderID struct{ DefaultSortOrderID int }
)

func (AssertCreate) Type() string                  { return "assert-create" }
func (AssertTableUUID) Type() string               { return "assert-table-uuid" }
func (AssertRefSnapshotID) Type() string           { return "assert-ref-snapshot-id" }
func (AssertLastAssignedFieldID) Type() string     { return "assert-last-assigned-field-id" }
func (AssertCurrentSchemaID) Type() string         { return "assert-current-schema-id" }
func (AssertLastAssignedPartitionID) Type() string { return "assert-last-assigned-partition-id" }
func (AssertDefaultSpecID) Type() string           { return "assert-default-spec-id" }
func (AssertDefaultSortOrderID) Type() string      { return "assert-default-sort-order-id" }

func conflict(format string, args ...any) error {
	return errkind.Errorf(errkind.Conflict, "requirement failed: "+format, args...)
}

// exists fails every requirement but assert-create on a missing table.
func exists(m *Metadata, r Requirement) error {
	if m == nil {
		return conflict("%s: the table does not exist", r.Type())
	}
	return nil
}

func (r AssertCreate) Check(m *Metadata) error {
	if m != nil {
		return conflict("the table already exists")
	}
	return nil
}

func (r AssertTableUUID) Check(m *Metadata) error {
	if err := exists(m, r); err != nil {
		return err
	}
	if m.TableUUID != r.UUID {
		return conflict("table uuid is %s, not %s", m.TableUUID, r.UUID)
	}
	return nil
}

func (r AssertRefSnapshotID) Check(m *Metadata) error {
	if err := exists(m, r); err != nil {
		return err
	}
	ref, ok := m.Refs[r.Ref]
	switch {
	case r.SnapshotID == nil && ok:
		return conflict("%s %q exists (snapshot %d)", ref.Type, r.Ref, ref.SnapshotID)
	case r.SnapshotID != nil && !ok:
		return conflict("ref %q no longer exists", r.Ref)
	case r.SnapshotID != nil && ref.SnapshotID != *r.SnapshotID:
		return conflict("%s %q is at snapshot %d, not %d", ref.Type, r.Ref, ref.SnapshotID, *r.SnapshotID)
	}
	return nil
}

func (r AssertLastAssignedFieldID) Check(m *Metadata) error {
	return checkInt(m, r, "last assigned field id", func(m *Metadata) int { return m.LastColumnID }, r.LastAssignedFieldID)
}

func (r AssertCurrentSchemaID) Check(m *Metadata) error {
	return checkInt(m, r, "current schema id", func(m *Metadata) int { return m.CurrentSchemaID }, r.CurrentSchemaID)
}

func (r AssertLastAssignedPartitionID) Check(m *Metadata) error {
	return checkInt(m, r, "last assigned partition id", func(m *Metadata) int { return m.LastPartitionID }, r.LastAssignedPartitionID)
}

func (r AssertDefaultSpecID) Check(m *Metadata) error {
	return checkInt(m, r, "default spec id", func(m *Metadata) int { return m.DefaultSpecID }, r.DefaultSpecID)
}

func (r AssertDefaultSortOrderID) Check(m *Metadata) error {
	return checkInt(m, r, "default sort order id", func(m *Metadata) int { return m.DefaultSortOrderID }, r.DefaultSortOrderID)
}

// checkInt checks one integer of the metadata, read by get once the table
// is known to exist.
func checkInt(m *Metadata, r Requirement, what string, get func(*Metadata) int, want int) error {
	if err := exists(m, r); err != nil {
		return err
	}
	if got := get(m); got != want {
		return conflict("%s is %d, not %d", what, got, want)
	}
	return nil
}
