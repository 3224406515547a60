package metadata

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/floedb/floe/errkind"
)

// FuzzParse: Parse never panics, and whatever it accepts, Marshal writes
// and Parse reads back equal.
func FuzzParse(f *testing.F) {
	for _, path := range fixtureMetadataFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(oldestV1))
	f.Add(encode(f, rollbackTable()))
	f.Add(encode(f, richV3Table()))
	withNaN := richV3Table()
	withNaN["schemas"].([]any)[0].(doc)["fields"] = []any{
		doc{"id": 1, "name": "f", "required": false, "type": "double", "initial-default": "NaN"}}
	f.Add(encode(f, withNaN))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		out, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("parsed metadata does not marshal: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("marshalled metadata does not parse: %v\n%s", err, out)
		}
		if reflect.DeepEqual(m, again) {
			return
		}
		// A NaN default is never DeepEqual to itself (the writer spells it
		// "NaN"); for those, require the same bytes on a second write.
		if bytes.Contains(out, []byte(`"NaN"`)) {
			out2, err := again.MarshalJSON()
			if err == nil && bytes.Equal(out, out2) {
				return
			}
		}
		t.Fatalf("round trip differs\nin:  %s\nout: %s", data, out)
	})
}

// FuzzParseUpdates: reading a commit's updates and requirements (what a
// REST catalog sends and receives) never panics, whatever is accepted
// writes back to an equal list, and applying it to a table fails cleanly
// or gives metadata that writes.
func FuzzParseUpdates(f *testing.F) {
	base := mustParse(f, rollbackTable())
	one := int64(1)
	seed := func(v any) {
		raw, err := json.Marshal(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	seed([]Update{
		AddSnapshot{Snapshot: Snapshot{SnapshotID: 9, SequenceNumber: 4, TimestampMs: 5000, ManifestList: "l", Summary: map[string]string{"operation": "append"}}},
		SetSnapshotRef{Name: MainBranch, Ref: Ref{SnapshotID: 9, Type: RefBranch}},
		SetProperties{Updates: map[string]string{"a": "b"}}, RemoveProperties{Removals: []string{"a"}},
		AddSchema{Schema: base.CurrentSchema()}, SetCurrentSchema{SchemaID: -1},
		AddSpec{Spec: base.PartitionSpecs[0]}, SetDefaultSpec{SpecID: -1},
		AddSortOrder{SortOrder: base.SortOrders[0]}, SetDefaultSortOrder{SortOrderID: -1},
		RemoveSnapshotRef{Name: "dev"}, RemoveSnapshots{SnapshotIDs: []int64{3}},
		AssignUUID{UUID: base.TableUUID}, UpgradeFormatVersion{FormatVersion: 3}, SetLocation{Location: "s3://b/u"},
	})
	seed([]Requirement{AssertCreate{}, AssertTableUUID{UUID: "u"}, AssertRefSnapshotID{Ref: "main", SnapshotID: &one}, AssertRefSnapshotID{Ref: "x"},
		AssertLastAssignedFieldID{}, AssertCurrentSchemaID{}, AssertLastAssignedPartitionID{}, AssertDefaultSpecID{}, AssertDefaultSortOrderID{}})
	f.Fuzz(func(t *testing.T, data []byte) {
		if updates, err := ParseUpdates(data); err == nil {
			out, err := json.Marshal(updates)
			if err != nil {
				t.Fatalf("parsed updates do not marshal: %v", err)
			}
			again, err := ParseUpdates(out)
			if err != nil || !reflect.DeepEqual(again, updates) {
				t.Fatalf("%s read back as %v (%v)", out, again, err)
			}
			if m, err := Apply(base, nil, updates); err == nil {
				if _, err := m.MarshalJSON(); err != nil && errkind.Of(err) == errkind.None {
					t.Fatalf("applied updates give metadata that fails without a kind: %v", err)
				}
			}
			// An update that fails changes nothing (Apply keeps no copy).
			c := Edit(base)
			for _, u := range updates {
				before := c.Metadata().Clone()
				if err := c.Apply(u); err != nil && !reflect.DeepEqual(before, c.Metadata()) {
					t.Fatalf("the failed %s changed the metadata: %v", u.Action(), err)
				}
			}
		}
		if reqs, err := ParseRequirements(data); err == nil {
			out, err := json.Marshal(reqs)
			if err != nil {
				t.Fatalf("parsed requirements do not marshal: %v", err)
			}
			if again, err := ParseRequirements(out); err != nil || !reflect.DeepEqual(again, reqs) {
				t.Fatalf("%s read back as %v (%v)", out, again, err)
			}
			for _, r := range reqs {
				_ = r.Check(base)
				_ = r.Check(nil)
			}
		}
	})
}
