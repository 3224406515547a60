package metadata

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

func TestAddSnapshotAndSetSnapshotRef(t *testing.T) {
	base := mustParse(t, rollbackTable())
	c := Edit(base)
	snap := Snapshot{SnapshotID: 4, SequenceNumber: 4, TimestampMs: 5000, ManifestList: "l4", Summary: map[string]string{"operation": "append"}}
	if err := c.Apply(AddSnapshot{Snapshot: Snapshot{SnapshotID: 2, SequenceNumber: 4}}); err == nil {
		t.Fatal("a duplicate snapshot id was added")
	}
	if err := c.Apply(AddSnapshot{Snapshot: Snapshot{SnapshotID: 5, SequenceNumber: 3}}); err == nil {
		t.Fatal("a sequence number at or below last-sequence-number was added")
	}
	if len(c.Updates()) != 0 || !reflect.DeepEqual(c.Metadata(), base) {
		t.Fatal("failed updates were recorded or changed the metadata")
	}
	if err := c.Apply(AddSnapshot{Snapshot: snap}); err != nil {
		t.Fatal(err)
	}
	if m := c.Metadata(); m.LastSequenceNumber != 4 {
		t.Fatalf("last sequence number %d", m.LastSequenceNumber)
	}
	if err := c.Apply(SetSnapshotRef{Name: "v1", Ref: Ref{SnapshotID: 4, Type: RefBranch}}); err == nil {
		t.Fatal("a tag was moved as a branch")
	}
	dev := base.Refs["dev"]
	dev.SnapshotID = 4
	if err := c.Apply(SetSnapshotRef{Name: "dev", Ref: dev}); err != nil {
		t.Fatal(err)
	}
	m := c.Metadata()
	if r := m.Refs["dev"]; r.SnapshotID != 4 || r.MinSnapshotsToKeep == nil || *r.MinSnapshotsToKeep != 2 || len(m.SnapshotLog) != 4 {
		t.Fatalf("dev %+v, log %v", r, m.SnapshotLog)
	}
	if err := c.Apply(SetSnapshotRef{Name: MainBranch, Ref: Ref{SnapshotID: 4, Type: RefBranch}}); err != nil {
		t.Fatal(err)
	}
	if *m.CurrentSnapshotID != 4 || m.Refs[MainBranch].SnapshotID != 4 || m.SnapshotLog[4] != (SnapshotLogEntry{SnapshotID: 4, TimestampMs: 5000}) {
		t.Fatalf("current %d, log %v", *m.CurrentSnapshotID, m.SnapshotLog)
	}
	if _, err := Parse(mustMarshal(t, m)); err != nil {
		t.Fatalf("the result does not parse: %v", err)
	}
	if *base.CurrentSnapshotID != 1 || len(base.Snapshots) != 3 {
		t.Fatal("the base changed")
	}
	// What the commit depends on: the same table, dev and main where they
	// were.
	one, three := int64(1), int64(3)
	want := []Requirement{
		AssertTableUUID{UUID: base.TableUUID},
		AssertRefSnapshotID{Ref: "dev", SnapshotID: &three},
		AssertRefSnapshotID{Ref: MainBranch, SnapshotID: &one},
	}
	if got := c.Requirements(); !reflect.DeepEqual(got, want) {
		t.Errorf("requirements %v, want %v", got, want)
	}
}

// From v3, a snapshot's rows advance next-row-id, and a snapshot without
// them, or starting below it, is refused.
func TestAddSnapshotRowLineage(t *testing.T) {
	base := mustParse(t, richV3Table())
	first, added := int64(42), int64(8)
	c := Edit(base)
	if err := c.Apply(AddSnapshot{Snapshot: Snapshot{SnapshotID: 9, SequenceNumber: 4, ManifestList: "l"}}); err == nil {
		t.Error("a v3 snapshot without row lineage was added")
	}
	low := int64(41)
	if err := c.Apply(AddSnapshot{Snapshot: Snapshot{SnapshotID: 9, SequenceNumber: 4, ManifestList: "l", FirstRowID: &low, AddedRows: &added}}); err == nil {
		t.Error("a snapshot whose rows start below next-row-id was added")
	}
	if err := c.Apply(AddSnapshot{Snapshot: Snapshot{SnapshotID: 9, SequenceNumber: 4, ManifestList: "l", FirstRowID: &first, AddedRows: &added}}); err != nil {
		t.Fatal(err)
	}
	if got := c.Metadata().NextRowID; got != 50 {
		t.Errorf("next-row-id %d, want 50", got)
	}
}

// -1 names the schema (spec, sort order) the same changes added last.
func TestSetCurrentToLastAdded(t *testing.T) {
	base := mustParse(t, rollbackTable())
	c := Edit(base)
	if err := c.Apply(SetCurrentSchema{SchemaID: -1}); err == nil {
		t.Fatal("-1 accepted with no schema added")
	}
	schema := iceberg.NewSchema(1, append(base.CurrentSchema().Fields, iceberg.NestedField{ID: 7, Name: "ts", Type: iceberg.TimestampType{}}))
	spec := iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "id_bucket", Transform: iceberg.BucketTransform{N: 4}}}}
	order := iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{{SourceID: 1, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first"}}}
	err := c.Apply(AddSchema{Schema: schema}, SetCurrentSchema{SchemaID: -1},
		AddSpec{Spec: spec}, SetDefaultSpec{SpecID: -1},
		AddSortOrder{SortOrder: order}, SetDefaultSortOrder{SortOrderID: -1})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Metadata()
	if m.CurrentSchemaID != 1 || m.LastColumnID != 7 || m.DefaultSpecID != 1 || m.LastPartitionID != 1000 || m.DefaultSortOrderID != 1 {
		t.Errorf("schema %d (last column %d), spec %d (last partition %d), sort order %d", m.CurrentSchemaID, m.LastColumnID, m.DefaultSpecID, m.LastPartitionID, m.DefaultSortOrderID)
	}
	if _, err := Parse(mustMarshal(t, m)); err != nil {
		t.Fatalf("the result does not parse: %v", err)
	}
	want := []Requirement{
		AssertTableUUID{UUID: base.TableUUID},
		AssertLastAssignedFieldID{LastAssignedFieldID: 2},
		AssertCurrentSchemaID{CurrentSchemaID: 0},
		AssertLastAssignedPartitionID{LastAssignedPartitionID: 999},
		AssertDefaultSpecID{DefaultSpecID: 0},
		AssertDefaultSortOrderID{DefaultSortOrderID: 0},
	}
	if got := c.Requirements(); !reflect.DeepEqual(got, want) {
		t.Errorf("requirements %v, want %v", got, want)
	}
}

// The JSON forms are the REST protocol's, member for member.
func TestUpdateJSONForms(t *testing.T) {
	one := int64(1)
	cases := []struct {
		v    any
		want string
	}{
		{SetSnapshotRef{Name: "main", Ref: Ref{SnapshotID: 5, Type: RefBranch}}, `{"action":"set-snapshot-ref","ref-name":"main","snapshot-id":5,"type":"branch"}`},
		{RemoveSnapshots{SnapshotIDs: []int64{1, 2}}, `{"action":"remove-snapshots","snapshot-ids":[1,2]}`},
		{RemoveSnapshotRef{Name: "dev"}, `{"action":"remove-snapshot-ref","ref-name":"dev"}`},
		{SetProperties{Updates: map[string]string{"a": "b"}}, `{"action":"set-properties","updates":{"a":"b"}}`},
		{RemoveProperties{Removals: []string{"a"}}, `{"action":"remove-properties","removals":["a"]}`},
		{SetCurrentSchema{SchemaID: -1}, `{"action":"set-current-schema","schema-id":-1}`},
		{SetDefaultSpec{SpecID: 2}, `{"action":"set-default-spec","spec-id":2}`},
		{SetDefaultSortOrder{SortOrderID: 0}, `{"action":"set-default-sort-order","sort-order-id":0}`},
		{AssignUUID{UUID: "u"}, `{"action":"assign-uuid","uuid":"u"}`},
		{UpgradeFormatVersion{FormatVersion: 3}, `{"action":"upgrade-format-version","format-version":3}`},
		{SetLocation{Location: "s3://b/t"}, `{"action":"set-location","location":"s3://b/t"}`},
		{AddSnapshot{Snapshot: Snapshot{SnapshotID: 3, SequenceNumber: 2, TimestampMs: 9, ManifestList: "l", Summary: map[string]string{"operation": "append"}}},
			`{"action":"add-snapshot","snapshot":{"sequence-number":2,"snapshot-id":3,"timestamp-ms":9,"summary":{"operation":"append"},"manifest-list":"l"}}`},
		{AssertCreate{}, `{"type":"assert-create"}`},
		{AssertTableUUID{UUID: "u"}, `{"type":"assert-table-uuid","uuid":"u"}`},
		{AssertRefSnapshotID{Ref: "main"}, `{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}`},
		{AssertRefSnapshotID{Ref: "main", SnapshotID: &one}, `{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":1}`},
		{AssertLastAssignedFieldID{LastAssignedFieldID: 4}, `{"type":"assert-last-assigned-field-id","last-assigned-field-id":4}`},
		{AssertCurrentSchemaID{CurrentSchemaID: 1}, `{"type":"assert-current-schema-id","current-schema-id":1}`},
		{AssertLastAssignedPartitionID{LastAssignedPartitionID: 1000}, `{"type":"assert-last-assigned-partition-id","last-assigned-partition-id":1000}`},
		{AssertDefaultSpecID{DefaultSpecID: 0}, `{"type":"assert-default-spec-id","default-spec-id":0}`},
		{AssertDefaultSortOrderID{DefaultSortOrderID: 0}, `{"type":"assert-default-sort-order-id","default-sort-order-id":0}`},
	}
	for _, c := range cases {
		raw, err := json.Marshal(c.v)
		if err != nil {
			t.Fatalf("%T: %v", c.v, err)
		}
		if string(raw) != c.want {
			t.Errorf("%T: %s, want %s", c.v, raw, c.want)
		}
		var back any
		switch c.v.(type) {
		case Update:
			back, err = ParseUpdate(raw)
		default:
			back, err = ParseRequirement(raw)
		}
		if err != nil || !reflect.DeepEqual(back, c.v) {
			t.Errorf("%s read back as %#v (%v)", raw, back, err)
		}
	}
	// Schemas, specs and sort orders round-trip as in metadata files.
	m := mustParse(t, rollbackTable())
	for _, u := range []Update{AddSchema{Schema: m.CurrentSchema()}, AddSpec{Spec: m.PartitionSpecs[0]}, AddSortOrder{SortOrder: m.SortOrders[0]}} {
		raw, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ParseUpdate(raw); err != nil || !reflect.DeepEqual(back, u) {
			t.Errorf("%s read back as %#v (%v)", raw, back, err)
		}
	}
}

func TestParseUpdateErrors(t *testing.T) {
	for raw, kind := range map[string]errkind.Kind{
		`{"action":"set-statistics","statistics":{}}`:                           errkind.InvalidArgument,
		`{"action":"add-view-version"}`:                                         errkind.Unsupported,
		`{"action":"set-snapshot-ref","ref-name":"main"}`:                       errkind.InvalidArgument,
		`{"action":"remove-snapshots","snapshot-ids":"1"}`:                      errkind.InvalidArgument,
		`{"action":"add-schema"}`:                                               errkind.InvalidArgument,
		`{"updates":{}}`:                                                        errkind.InvalidArgument,
		`[1]`:                                                                   errkind.InvalidArgument,
		`{"action":"add-snapshot","snapshot":{"snapshot-id":1}}`:                errkind.InvalidArgument,
		`{"action":"add-spec","spec":{"spec-id":"x","fields":[]}}`:              errkind.InvalidArgument,
		`{"action":"set-current-schema","schema-id":1.5}`:                       errkind.InvalidArgument,
		`{"action":"upgrade-format-version","format-version":"three"}`:          errkind.InvalidArgument,
		`{"action":"set-properties","updates":{"a":1}}`:                         errkind.InvalidArgument,
		`{"action":"add-sort-order","sort-order":{"order-id":0,"fields":[{}]}}`: errkind.InvalidArgument,
	} {
		if _, err := ParseUpdate([]byte(raw)); errkind.Of(err) != kind {
			t.Errorf("%s: %v (kind %v), want kind %v", raw, err, errkind.Of(err), kind)
		}
	}
	for raw, kind := range map[string]errkind.Kind{
		`{"type":"assert-view-uuid","uuid":"u"}`:         errkind.Unsupported,
		`{"type":"assert-ref-snapshot-id","ref":"main"}`: errkind.InvalidArgument,
		`{"type":"assert-table-uuid"}`:                   errkind.InvalidArgument,
		`"assert-create"`:                                errkind.InvalidArgument,
	} {
		if _, err := ParseRequirement([]byte(raw)); errkind.Of(err) != kind {
			t.Errorf("%s: %v (kind %v), want kind %v", raw, err, errkind.Of(err), kind)
		}
	}
}

// A requirement the table no longer meets is a conflict, and Apply checks
// them all before applying anything.
func TestRequirementsConflict(t *testing.T) {
	m := mustParse(t, rollbackTable())
	one, two := int64(1), int64(2)
	for _, r := range []Requirement{
		AssertCreate{},
		AssertTableUUID{UUID: "another"},
		AssertRefSnapshotID{Ref: MainBranch, SnapshotID: &two},
		AssertRefSnapshotID{Ref: MainBranch},
		AssertRefSnapshotID{Ref: "gone", SnapshotID: &one},
		AssertLastAssignedFieldID{LastAssignedFieldID: 3},
		AssertCurrentSchemaID{CurrentSchemaID: 1},
		AssertLastAssignedPartitionID{LastAssignedPartitionID: 1000},
		AssertDefaultSpecID{DefaultSpecID: 1},
		AssertDefaultSortOrderID{DefaultSortOrderID: 1},
	} {
		err := r.Check(m)
		if errkind.Of(err) != errkind.Conflict {
			t.Errorf("%#v: %v, want a conflict", r, err)
		}
		if _, err := Apply(m, []Requirement{r}, []Update{SetProperties{Updates: map[string]string{"a": "b"}}}); errkind.Of(err) != errkind.Conflict {
			t.Errorf("Apply under %#v: %v", r, err)
		}
	}
	for _, r := range []Requirement{
		AssertTableUUID{UUID: m.TableUUID},
		AssertRefSnapshotID{Ref: MainBranch, SnapshotID: &one},
		AssertRefSnapshotID{Ref: "new-branch"},
		AssertLastAssignedFieldID{LastAssignedFieldID: 2},
		AssertCurrentSchemaID{CurrentSchemaID: 0},
		AssertLastAssignedPartitionID{LastAssignedPartitionID: 999},
		AssertDefaultSpecID{DefaultSpecID: 0},
		AssertDefaultSortOrderID{DefaultSortOrderID: 0},
	} {
		if err := r.Check(m); err != nil {
			t.Errorf("%#v: %v", r, err)
		}
	}
	if err := (AssertCreate{}).Check(nil); err != nil {
		t.Errorf("assert-create on no table: %v", err)
	}
	if err := (AssertTableUUID{UUID: "u"}).Check(nil); errkind.Of(err) != errkind.Conflict {
		t.Errorf("assert-table-uuid on no table: %v", err)
	}
}

func TestRemoveSnapshotRefAndProperties(t *testing.T) {
	base := mustParse(t, rollbackTable())
	base.Properties["keep"], base.Properties["drop"] = "1", "2"
	got, err := Apply(base, nil, []Update{
		RemoveSnapshotRef{Name: "dev"},
		RemoveSnapshots{SnapshotIDs: []int64{3}},
		SetProperties{Updates: map[string]string{"new": "3"}},
		RemoveProperties{Removals: []string{"drop", "absent"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Refs["dev"]; ok || got.SnapshotByID(3) != nil {
		t.Errorf("refs %v, snapshot 3 kept %v", got.Refs, got.SnapshotByID(3) != nil)
	}
	if !reflect.DeepEqual(got.Properties, map[string]string{"keep": "1", "new": "3"}) {
		t.Errorf("properties %v", got.Properties)
	}
	if _, err := Apply(base, nil, []Update{RemoveSnapshotRef{Name: MainBranch}}); err == nil {
		t.Error("main was removed")
	}
	if _, err := Apply(base, nil, []Update{RemoveSnapshots{SnapshotIDs: []int64{3}}}); err == nil {
		t.Error("a snapshot a branch points at was removed")
	}
}
