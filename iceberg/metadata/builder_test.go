package metadata

import (
	"reflect"
	"testing"
)

func TestCloneIsIndependent(t *testing.T) {
	orig := mustParse(t, richV3Table())
	want := mustParse(t, richV3Table())
	c := orig.Clone()
	if !reflect.DeepEqual(c, orig) {
		t.Fatal("clone differs from the original")
	}
	c.Properties["x"] = "y"
	c.Refs["new"] = Ref{SnapshotID: 1, Type: RefTag}
	c.Snapshots[0].Summary["operation"] = "delete"
	*c.CurrentSnapshotID = 3
	c.SnapshotLog[0].SnapshotID = 9
	c.Statistics[0].StatisticsPath = "elsewhere"
	if err := c.AddSnapshot(Snapshot{SnapshotID: 77, SequenceNumber: 4, ManifestList: "l", Summary: map[string]string{"operation": "append"}}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(orig, want) {
		t.Fatal("changing the clone changed the original")
	}
}

func TestAddPreviousMetadataKeepsTheNewest(t *testing.T) {
	m := mustParse(t, rollbackTable()).Clone()
	for i, f := range []string{"v1", "v2", "v3"} {
		if dropped := m.AddPreviousMetadata(f, int64(i), 2); i < 2 && dropped != nil {
			t.Fatalf("%s: dropped %v", f, dropped)
		}
	}
	if len(m.MetadataLog) != 2 || m.MetadataLog[0].MetadataFile != "v2" || m.MetadataLog[1].MetadataFile != "v3" {
		t.Fatalf("log %v", m.MetadataLog)
	}
	if dropped := m.AddPreviousMetadata("v4", 4, 0); len(dropped) != 2 || len(m.MetadataLog) != 1 {
		t.Fatalf("keeping 0 (taken as 1): dropped %v, log %v", dropped, m.MetadataLog)
	}
}

func TestRemoveSnapshots(t *testing.T) {
	m := mustParse(t, richV3Table()).Clone()
	if err := m.RemoveSnapshots(map[int64]bool{2: true}); err == nil {
		t.Fatal("a tagged snapshot was removed")
	}
	delete(m.Refs, "dev")
	delete(m.Refs, "v1")
	if err := m.RemoveSnapshots(map[int64]bool{3: true, 2: true}); err != nil {
		t.Fatal(err)
	}
	if len(m.Snapshots) != 1 || m.Snapshots[0].SnapshotID != 1 {
		t.Fatalf("snapshots %v", m.Snapshots)
	}
	// The log A, B, C, A loses everything up to the last removed entry.
	if len(m.SnapshotLog) != 1 || m.SnapshotLog[0].TimestampMs != 4000 {
		t.Fatalf("snapshot log %v", m.SnapshotLog)
	}
	if m.Statistics != nil || m.PartitionStatistics != nil {
		t.Fatalf("statistics of removed snapshots stayed: %v %v", m.Statistics, m.PartitionStatistics)
	}
	if _, err := Parse(mustMarshal(t, m)); err != nil {
		t.Fatalf("the result does not parse: %v", err)
	}
}

func mustMarshal(t *testing.T, m *Metadata) []byte {
	t.Helper()
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
