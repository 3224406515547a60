package metadata

import (
	"fmt"
	"slices"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// Update is one change to table metadata, as the REST catalog protocol
// names them (TableUpdate in rest-catalog-open-api.yaml). A commit is a
// list of updates and the requirements (Requirement) the metadata they
// apply to must meet: a REST catalog applies them on its side; a catalog
// that stores metadata files itself (a filesystem warehouse, a SQL
// catalog) writes the metadata they produce. Both get the same table,
// because both apply them here (Changes).
type Update interface {
	// Action is the update's name in the protocol ("add-snapshot", …).
	Action() string
	apply(c *Changes) error
}

// The updates floe makes and applies. Each changes what its REST
// counterpart changes, nothing more.
type (
	// AssignUUID sets the table's UUID; only a new table gets one.
	AssignUUID struct{ UUID string }
	// UpgradeFormatVersion raises the format version (never lowers it).
	UpgradeFormatVersion struct{ FormatVersion int }
	// AddSchema adds a schema; last-column-id rises to its highest field
	// id.
	AddSchema struct{ Schema *iceberg.Schema }
	// SetCurrentSchema makes a schema current; -1 names the last one added
	// by the same changes.
	SetCurrentSchema struct{ SchemaID int }
	// AddSpec adds a partition spec; last-partition-id rises to its
	// highest field id.
	AddSpec struct{ Spec iceberg.PartitionSpec }
	// SetDefaultSpec makes a spec the default; -1: the last one added.
	SetDefaultSpec struct{ SpecID int }
	// AddSortOrder adds a sort order.
	AddSortOrder struct{ SortOrder iceberg.SortOrder }
	// SetDefaultSortOrder makes a sort order the default; -1: the last one
	// added.
	SetDefaultSortOrder struct{ SortOrderID int }
	// AddSnapshot adds a snapshot no ref points at yet. Its sequence
	// number raises last-sequence-number; from v3 its rows (first-row-id,
	// added-rows) advance next-row-id.
	AddSnapshot struct{ Snapshot Snapshot }
	// SetSnapshotRef points a branch or tag at a snapshot, creating it
	// when missing. Moving main moves current-snapshot-id and logs the
	// snapshot, at its timestamp.
	SetSnapshotRef struct {
		Name string
		Ref  Ref
	}
	// RemoveSnapshots drops snapshots (expiry), with their statistics and
	// the snapshot log up to the last entry naming one of them.
	RemoveSnapshots struct{ SnapshotIDs []int64 }
	// RemoveSnapshotRef drops a branch or tag (not main).
	RemoveSnapshotRef struct{ Name string }
	// SetLocation moves the table's base location.
	SetLocation struct{ Location string }
	// SetProperties sets table properties.
	SetProperties struct{ Updates map[string]string }
	// RemoveProperties removes table properties; absent keys are fine.
	RemoveProperties struct{ Removals []string }
)

func (AssignUUID) Action() string           { return "assign-uuid" }
func (UpgradeFormatVersion) Action() string { return "upgrade-format-version" }
func (AddSchema) Action() string            { return "add-schema" }
func (SetCurrentSchema) Action() string     { return "set-current-schema" }
func (AddSpec) Action() string              { return "add-spec" }
func (SetDefaultSpec) Action() string       { return "set-default-spec" }
func (AddSortOrder) Action() string         { return "add-sort-order" }
func (SetDefaultSortOrder) Action() string  { return "set-default-sort-order" }
func (AddSnapshot) Action() string          { return "add-snapshot" }
func (SetSnapshotRef) Action() string       { return "set-snapshot-ref" }
func (RemoveSnapshots) Action() string      { return "remove-snapshots" }
func (RemoveSnapshotRef) Action() string    { return "remove-snapshot-ref" }
func (SetLocation) Action() string          { return "set-location" }
func (SetProperties) Action() string        { return "set-properties" }
func (RemoveProperties) Action() string     { return "remove-properties" }

// Changes is metadata being changed by updates: it applies each to a copy
// of the base and records it, with the requirements the base must still
// meet when the changes are committed. Build a commit with Edit, Apply
// and Require; a catalog reads Metadata, or Updates and Requirements.
type Changes struct {
	base         *Metadata
	next         *Metadata
	updates      []Update
	requirements []Requirement
	// the ids the last add-schema, add-spec and add-sort-order added, for
	// the -1 of the set-current/default updates
	lastSchema, lastSpec, lastSortOrder *int
}

// Edit starts changes to base, which is left alone.
func Edit(base *Metadata) *Changes {
	return &Changes{base: base, next: base.Clone()}
}

// Apply applies updates in order and records them. On an error the
// changes are left as they were before the failing update: every update
// checks all it needs before it changes anything (which spares a copy of
// the metadata per update; a table's metadata can hold thousands of
// snapshots).
func (c *Changes) Apply(updates ...Update) error {
	for _, u := range updates {
		if err := u.apply(c); err != nil {
			return fmt.Errorf("%s: %w", u.Action(), err)
		}
		c.updates = append(c.updates, u)
	}
	return nil
}

// Require adds requirements the base must meet at commit, beyond those
// the updates imply (see Requirements).
func (c *Changes) Require(reqs ...Requirement) { c.requirements = append(c.requirements, reqs...) }

// Base is the metadata the changes were built on.
func (c *Changes) Base() *Metadata { return c.base }

// Metadata is the metadata the updates produce. It is the changes' own:
// callers may set what no update covers (last-updated-ms, the metadata
// log), which a catalog that writes metadata files sets itself.
func (c *Changes) Metadata() *Metadata { return c.next }

// Updates are the updates applied, in order.
func (c *Changes) Updates() []Update { return c.updates }

// Requirements are what the updates depend on in the base, one policy for
// every commit: the table is the same table (its UUID); every ref set or
// removed is still where the base had it (or still absent); a schema is
// added only on top of the base's last column id and made current only
// over the base's current schema; likewise for partition specs and sort
// orders. Then those added with Require.
func (c *Changes) Requirements() []Requirement {
	return append(RequirementsOf(c.base, c.updates), c.requirements...)
}

// RequirementsOf are the requirements updates built on base imply (see
// Changes.Requirements): a transaction keeps those of each of its
// changes, to refuse a retry on a table that no longer meets them.
func RequirementsOf(b *Metadata, updates []Update) []Requirement {
	var out []Requirement
	if b.TableUUID != "" {
		out = append(out, AssertTableUUID{UUID: b.TableUUID})
	}
	seen := map[string]bool{}
	assertRef := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		r := AssertRefSnapshotID{Ref: name}
		if ref, ok := b.Refs[name]; ok {
			id := ref.SnapshotID
			r.SnapshotID = &id
		}
		out = append(out, r)
	}
	once := map[string]bool{}
	add := func(r Requirement) {
		if !once[r.Type()] {
			once[r.Type()] = true
			out = append(out, r)
		}
	}
	for _, u := range updates {
		switch u := u.(type) {
		case SetSnapshotRef:
			assertRef(u.Name)
		case RemoveSnapshotRef:
			assertRef(u.Name)
		case AddSchema:
			add(AssertLastAssignedFieldID{LastAssignedFieldID: b.LastColumnID})
		case SetCurrentSchema:
			add(AssertCurrentSchemaID{CurrentSchemaID: b.CurrentSchemaID})
		case AddSpec:
			add(AssertLastAssignedPartitionID{LastAssignedPartitionID: b.LastPartitionID})
		case SetDefaultSpec:
			add(AssertDefaultSpecID{DefaultSpecID: b.DefaultSpecID})
		case SetDefaultSortOrder:
			add(AssertDefaultSortOrderID{DefaultSortOrderID: b.DefaultSortOrderID})
		}
	}
	return out
}

// Apply applies updates to base as a catalog receiving them would, after
// checking reqs against it. A requirement that fails is a conflict
// (errkind.Conflict): the table moved on since the commit was built.
func Apply(base *Metadata, reqs []Requirement, updates []Update) (*Metadata, error) {
	for _, r := range reqs {
		if err := r.Check(base); err != nil {
			return nil, err
		}
	}
	c := Edit(base)
	if err := c.Apply(updates...); err != nil {
		return nil, err
	}
	return c.next, nil
}

func invalid(format string, args ...any) error {
	return errkind.Errorf(errkind.InvalidArgument, format, args...)
}

func (u AssignUUID) apply(c *Changes) error {
	if u.UUID == "" {
		return invalid("empty uuid")
	}
	if c.next.TableUUID != "" && c.next.TableUUID != u.UUID {
		return invalid("the table already has uuid %s", c.next.TableUUID)
	}
	c.next.TableUUID = u.UUID
	return nil
}

func (u UpgradeFormatVersion) apply(c *Changes) error {
	switch {
	case u.FormatVersion > MaxFormatVersion:
		return errkind.Errorf(errkind.Unsupported, "format version %d is newer than %d", u.FormatVersion, MaxFormatVersion)
	case u.FormatVersion < c.next.FormatVersion:
		return invalid("cannot downgrade format version %d to %d", c.next.FormatVersion, u.FormatVersion)
	}
	c.next.FormatVersion = u.FormatVersion
	return nil
}

func (u AddSchema) apply(c *Changes) error {
	if u.Schema == nil {
		return invalid("no schema")
	}
	if slices.ContainsFunc(c.next.Schemas, func(s *iceberg.Schema) bool { return s.ID == u.Schema.ID }) {
		return invalid("schema %d already exists", u.Schema.ID)
	}
	c.next.Schemas = append(c.next.Schemas, u.Schema)
	c.next.LastColumnID = max(c.next.LastColumnID, u.Schema.HighestFieldID())
	id := u.Schema.ID
	c.lastSchema = &id
	return nil
}

func (u SetCurrentSchema) apply(c *Changes) error {
	id, err := lastAdded(u.SchemaID, c.lastSchema, "schema")
	if err != nil {
		return err
	}
	if c.next.SchemaByID(id) == nil {
		return invalid("no schema %d", id)
	}
	c.next.CurrentSchemaID = id
	return nil
}

func (u AddSpec) apply(c *Changes) error {
	if slices.ContainsFunc(c.next.PartitionSpecs, func(s iceberg.PartitionSpec) bool { return s.ID == u.Spec.ID }) {
		return invalid("partition spec %d already exists", u.Spec.ID)
	}
	c.next.PartitionSpecs = append(c.next.PartitionSpecs, u.Spec)
	for _, f := range u.Spec.Fields {
		c.next.LastPartitionID = max(c.next.LastPartitionID, f.FieldID)
	}
	id := u.Spec.ID
	c.lastSpec = &id
	return nil
}

func (u SetDefaultSpec) apply(c *Changes) error {
	id, err := lastAdded(u.SpecID, c.lastSpec, "partition spec")
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(c.next.PartitionSpecs, func(s iceberg.PartitionSpec) bool { return s.ID == id }) {
		return invalid("no partition spec %d", id)
	}
	c.next.DefaultSpecID = id
	return nil
}

func (u AddSortOrder) apply(c *Changes) error {
	if slices.ContainsFunc(c.next.SortOrders, func(o iceberg.SortOrder) bool { return o.OrderID == u.SortOrder.OrderID }) {
		return invalid("sort order %d already exists", u.SortOrder.OrderID)
	}
	c.next.SortOrders = append(c.next.SortOrders, u.SortOrder)
	id := u.SortOrder.OrderID
	c.lastSortOrder = &id
	return nil
}

func (u SetDefaultSortOrder) apply(c *Changes) error {
	id, err := lastAdded(u.SortOrderID, c.lastSortOrder, "sort order")
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(c.next.SortOrders, func(o iceberg.SortOrder) bool { return o.OrderID == id }) {
		return invalid("no sort order %d", id)
	}
	c.next.DefaultSortOrderID = id
	return nil
}

// lastAdded resolves the -1 of a set-current/default update.
func lastAdded(id int, last *int, what string) (int, error) {
	if id != -1 {
		return id, nil
	}
	if last == nil {
		return 0, invalid("-1 names the last %s added, and none was", what)
	}
	return *last, nil
}

func (u AddSnapshot) apply(c *Changes) error {
	s := u.Snapshot
	m := c.next
	if m.FormatVersion >= 3 {
		if s.FirstRowID == nil || s.AddedRows == nil {
			return invalid("snapshot %d has no first-row-id and added-rows, required in format version %d", s.SnapshotID, m.FormatVersion)
		}
		if *s.FirstRowID < m.NextRowID {
			return invalid("snapshot %d: first-row-id %d is below next-row-id %d", s.SnapshotID, *s.FirstRowID, m.NextRowID)
		}
	}
	if err := m.AddSnapshot(s); err != nil {
		return err
	}
	if m.FormatVersion >= 3 {
		m.NextRowID = *s.FirstRowID + *s.AddedRows
	}
	return nil
}

func (u SetSnapshotRef) apply(c *Changes) error {
	m := c.next
	snap := m.SnapshotByID(u.Ref.SnapshotID)
	if snap == nil {
		return invalid("ref %q: no snapshot %d", u.Name, u.Ref.SnapshotID)
	}
	switch u.Ref.Type {
	case RefBranch, RefTag:
	default:
		return invalid("ref %q: type %q is neither branch nor tag", u.Name, u.Ref.Type)
	}
	if u.Name == MainBranch && u.Ref.Type != RefBranch {
		return invalid("main must be a branch")
	}
	if old, ok := m.Refs[u.Name]; ok && old.Type != u.Ref.Type {
		return invalid("ref %q is a %s, not a %s", u.Name, old.Type, u.Ref.Type)
	}
	m.Refs[u.Name] = u.Ref
	if u.Name == MainBranch {
		id := u.Ref.SnapshotID
		m.CurrentSnapshotID = &id
		m.SnapshotLog = append(m.SnapshotLog, SnapshotLogEntry{SnapshotID: id, TimestampMs: c.logTime(snap)})
	}
	return nil
}

// logTime is when main's move to snap is logged: a new snapshot at its
// commit time, as Java logs it; an older one made current again (a
// rollback, a fast-forward to an audited snapshot) no earlier than the
// base's last update and the log's last entry, since Java, iceberg-go
// and iceberg-rust refuse to read a snapshot log out of time order.
// Updates know no clock, so a replay gives the same log.
func (c *Changes) logTime(snap *Snapshot) int64 {
	ts := max(snap.TimestampMs, c.base.LastUpdatedMs)
	if n := len(c.next.SnapshotLog); n > 0 {
		ts = max(ts, c.next.SnapshotLog[n-1].TimestampMs)
	}
	return ts
}

func (u RemoveSnapshots) apply(c *Changes) error {
	ids := make(map[int64]bool, len(u.SnapshotIDs))
	for _, id := range u.SnapshotIDs {
		ids[id] = true
	}
	return c.next.RemoveSnapshots(ids)
}

func (u RemoveSnapshotRef) apply(c *Changes) error {
	if u.Name == MainBranch {
		return invalid("main cannot be removed")
	}
	delete(c.next.Refs, u.Name)
	return nil
}

func (u SetLocation) apply(c *Changes) error {
	if u.Location == "" {
		return invalid("empty location")
	}
	c.next.Location = u.Location
	return nil
}

func (u SetProperties) apply(c *Changes) error {
	for k, v := range u.Updates {
		c.next.Properties[k] = v
	}
	return nil
}

func (u RemoveProperties) apply(c *Changes) error {
	for _, k := range u.Removals {
		delete(c.next.Properties, k)
	}
	return nil
}
