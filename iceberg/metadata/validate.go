package metadata

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"github.com/floedb/floe/errkind"
)

// Validate checks what a well-formed table needs beyond each field's own
// syntax: a supported version, ids that are unique and that the current
// schema, default spec, default sort order, current snapshot and refs point
// at, and fields that the format version cannot express (a sequence number
// in v1, a next-row-id before v3). Parse and Marshal both call it.
func (m *Metadata) Validate() error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("table metadata: %w", err)
	}
	return nil
}

func (m *Metadata) validate() error {
	v := m.FormatVersion
	if v < 1 || v > MaxFormatVersion {
		return errkind.Errorf(errkind.Unsupported, "unsupported format-version %d (floe reads 1 to %d)", v, MaxFormatVersion)
	}
	if v >= 2 && m.TableUUID == "" {
		return fmt.Errorf("table-uuid is empty, but format version %d requires it", v)
	}
	if v == 1 && m.LastSequenceNumber != 0 {
		return fmt.Errorf("last-sequence-number is %d, but format version 1 has no sequence numbers", m.LastSequenceNumber)
	}
	if v < 3 && m.NextRowID != 0 {
		return fmt.Errorf("next-row-id is %d, but format version %d has no row lineage", m.NextRowID, v)
	}
	if m.NextRowID < 0 {
		return fmt.Errorf("next-row-id %d is negative", m.NextRowID)
	}
	if err := m.validateSchemas(); err != nil {
		return err
	}
	if err := m.validateSpecsAndOrders(); err != nil {
		return err
	}
	if err := m.validateSnapshots(); err != nil {
		return err
	}
	if err := m.validateRefs(); err != nil {
		return err
	}
	for i, k := range m.EncryptionKeys {
		if k.KeyID == "" {
			return fmt.Errorf("encryption-keys[%d] has an empty key-id", i)
		}
		if _, err := base64.StdEncoding.DecodeString(k.EncryptedKeyMetadata); err != nil {
			return fmt.Errorf("encryption key %q: encrypted-key-metadata is not base64: %v", k.KeyID, err)
		}
	}
	return nil
}

func (m *Metadata) validateSchemas() error {
	seen := map[int]bool{}
	for i, s := range m.Schemas {
		if s == nil {
			return fmt.Errorf("schemas[%d] is nil", i)
		}
		if seen[s.ID] {
			return fmt.Errorf("schema id %d is used twice", s.ID)
		}
		seen[s.ID] = true
		if err := checkSchemaFields(s); err != nil {
			return err
		}
		if err := checkV3Types(s, m.FormatVersion); err != nil {
			return err
		}
	}
	if !seen[m.CurrentSchemaID] {
		return fmt.Errorf("current-schema-id %d is not among the schemas (ids %s)", m.CurrentSchemaID, idList(seen))
	}
	return nil
}

func (m *Metadata) validateSpecsAndOrders() error {
	specs := map[int]bool{}
	for _, s := range m.PartitionSpecs {
		if specs[s.ID] {
			return fmt.Errorf("partition spec id %d is used twice", s.ID)
		}
		specs[s.ID] = true
	}
	if !specs[m.DefaultSpecID] {
		return fmt.Errorf("default-spec-id %d is not among the partition specs (ids %s)", m.DefaultSpecID, idList(specs))
	}
	orders := map[int]bool{}
	for _, o := range m.SortOrders {
		if orders[o.OrderID] {
			return fmt.Errorf("sort order id %d is used twice", o.OrderID)
		}
		orders[o.OrderID] = true
	}
	if !orders[m.DefaultSortOrderID] {
		return fmt.Errorf("default-sort-order-id %d is not among the sort orders (ids %s)", m.DefaultSortOrderID, idList(orders))
	}
	return nil
}

func (m *Metadata) validateSnapshots() error {
	v := m.FormatVersion
	seen := make(map[int64]bool, len(m.Snapshots))
	for i := range m.Snapshots {
		s := &m.Snapshots[i]
		if seen[s.SnapshotID] {
			return fmt.Errorf("snapshot id %d is used twice", s.SnapshotID)
		}
		seen[s.SnapshotID] = true
		switch {
		case s.SequenceNumber < 0:
			return fmt.Errorf("snapshot %d: sequence-number %d is negative", s.SnapshotID, s.SequenceNumber)
		case s.SequenceNumber > m.LastSequenceNumber:
			return fmt.Errorf("snapshot %d: sequence-number %d is above last-sequence-number %d", s.SnapshotID, s.SequenceNumber, m.LastSequenceNumber)
		case v >= 2 && s.ManifestList == "":
			return fmt.Errorf("snapshot %d has no manifest-list, required in format version %d", s.SnapshotID, v)
		case v >= 2 && s.Operation() == "":
			return fmt.Errorf("snapshot %d has no summary operation, required in format version %d", s.SnapshotID, v)
		}
	}
	if m.CurrentSnapshotID != nil && !seen[*m.CurrentSnapshotID] {
		return fmt.Errorf("current-snapshot-id %d is not among the snapshots", *m.CurrentSnapshotID)
	}
	return nil
}

func (m *Metadata) validateRefs() error {
	names := make([]string, 0, len(m.Refs))
	for name := range m.Refs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := m.Refs[name]
		switch {
		case r.Type != RefBranch && r.Type != RefTag:
			return fmt.Errorf("ref %q: type must be %q or %q, not %q", name, RefBranch, RefTag, r.Type)
		case m.SnapshotByID(r.SnapshotID) == nil:
			return fmt.Errorf("ref %q points at snapshot %d, which is not among the snapshots", name, r.SnapshotID)
		case r.Type == RefTag && (r.MinSnapshotsToKeep != nil || r.MaxSnapshotAgeMs != nil):
			return fmt.Errorf("tag %q: min-snapshots-to-keep and max-snapshot-age-ms apply to branches only", name)
		case r.MinSnapshotsToKeep != nil && *r.MinSnapshotsToKeep <= 0:
			return fmt.Errorf("ref %q: min-snapshots-to-keep must be positive, not %d", name, *r.MinSnapshotsToKeep)
		case r.MaxSnapshotAgeMs != nil && *r.MaxSnapshotAgeMs <= 0:
			return fmt.Errorf("ref %q: max-snapshot-age-ms must be positive, not %d", name, *r.MaxSnapshotAgeMs)
		case r.MaxRefAgeMs != nil && *r.MaxRefAgeMs <= 0:
			return fmt.Errorf("ref %q: max-ref-age-ms must be positive, not %d", name, *r.MaxRefAgeMs)
		}
	}
	main, hasMain := m.Refs[MainBranch]
	switch {
	case hasMain && main.Type != RefBranch:
		return fmt.Errorf("ref %q must be a branch", MainBranch)
	case hasMain && m.CurrentSnapshotID == nil:
		return fmt.Errorf("branch %q points at snapshot %d, but current-snapshot-id is not set", MainBranch, main.SnapshotID)
	case hasMain && main.SnapshotID != *m.CurrentSnapshotID:
		return fmt.Errorf("current-snapshot-id %d differs from branch %q (snapshot %d)", *m.CurrentSnapshotID, MainBranch, main.SnapshotID)
	}
	return nil
}

// idList formats a set of ids in order for error messages.
func idList(set map[int]bool) string {
	if len(set) == 0 {
		return "none"
	}
	ids := make([]int, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}
