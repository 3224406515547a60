package metadata

import (
	"reflect"
	"strings"
	"testing"
)

func TestSnapshotAsOfFollowsTheLogThroughARollback(t *testing.T) {
	m := mustParse(t, rollbackTable())
	for _, c := range []struct {
		ms   int64
		want int64
	}{
		{1000, 1}, {1999, 1}, {2000, 2}, {2999, 2}, {3000, 3},
		{3999, 3}, // C was current until the rollback
		{4000, 1}, {1 << 50, 1},
	} {
		s, err := m.SnapshotAsOf(c.ms)
		if err != nil || s.SnapshotID != c.want {
			t.Errorf("as of %d: %v, %v; want snapshot %d", c.ms, s, err, c.want)
		}
	}
	if _, err := m.SnapshotAsOf(999); err == nil || !strings.Contains(err.Error(), "no snapshot was current") {
		t.Errorf("before the first snapshot: err = %v", err)
	}
}

func TestSnapshotAsOfWithoutLogUsesCurrentAncestry(t *testing.T) {
	d := rollbackTable()
	delete(d, "snapshot-log")
	d["current-snapshot-id"] = 3
	d["refs"].(doc)["main"] = doc{"snapshot-id": 3, "type": "branch"}
	m := mustParse(t, d)
	for ms, want := range map[int64]int64{1000: 1, 2500: 2, 3000: 3, 9999: 3} {
		s, err := m.SnapshotAsOf(ms)
		if err != nil || s.SnapshotID != want {
			t.Errorf("as of %d: %v, %v; want %d", ms, s, err, want)
		}
	}
	if _, err := m.SnapshotAsOf(500); err == nil || !strings.Contains(err.Error(), "oldest known snapshot 1") {
		t.Errorf("before the first snapshot: err = %v", err)
	}
}

// TestSnapshotAsOfOnFixtureAgreesWithAncestry uses a real table whose log
// and ancestry must give the same answers, as it never rolled back.
func TestSnapshotAsOfOnFixtureAgreesWithAncestry(t *testing.T) {
	withLog := parseFixture(t, "impala_iceberg_v2_positional_not_all_data_files_have_delete_files/metadata/v7.metadata.json")
	if len(withLog.SnapshotLog) != 6 {
		t.Fatalf("log has %d entries, want 6", len(withLog.SnapshotLog))
	}
	noLog := *withLog
	noLog.SnapshotLog = nil
	for _, e := range withLog.SnapshotLog {
		for _, ms := range []int64{e.TimestampMs, e.TimestampMs + 1} {
			a, errA := withLog.SnapshotAsOf(ms)
			b, errB := noLog.SnapshotAsOf(ms)
			if errA != nil || errB != nil || a.SnapshotID != b.SnapshotID {
				t.Errorf("as of %d: log says %v (%v), ancestry says %v (%v)", ms, a, errA, b, errB)
			}
		}
		if s, _ := withLog.SnapshotAsOf(e.TimestampMs); s.SnapshotID != e.SnapshotID {
			t.Errorf("as of %d: %d, the log says %d", e.TimestampMs, s.SnapshotID, e.SnapshotID)
		}
	}
	first := withLog.SnapshotLog[0].TimestampMs
	if _, err := withLog.SnapshotAsOf(first - 1); err == nil {
		t.Errorf("as of before the first snapshot should fail")
	}
	if _, err := noLog.SnapshotAsOf(first - 1); err == nil {
		t.Errorf("as of before the first snapshot should fail without a log too")
	}
}

func TestSnapshotAsOfExpiredOrEmpty(t *testing.T) {
	d := rollbackTable()
	d["snapshot-log"] = append([]any{doc{"timestamp-ms": 500, "snapshot-id": 77}}, d["snapshot-log"].([]any)...)
	m := mustParse(t, d)
	if _, err := m.SnapshotAsOf(600); err == nil || !strings.Contains(err.Error(), "snapshot 77") {
		t.Errorf("expired snapshot in the log: err = %v", err)
	}
	empty := parseFixture(t, "duckdb_uuid/metadata/00000-e8729e86-fe06-4ffc-835b-283f0d3e9921.metadata.json")
	if _, err := empty.SnapshotAsOf(1 << 50); err == nil || !strings.Contains(err.Error(), "no snapshots") {
		t.Errorf("empty table: err = %v", err)
	}
}

func TestSnapshotByRef(t *testing.T) {
	m := mustParse(t, rollbackTable())
	for name, want := range map[string]int64{"main": 1, "v1": 2, "dev": 3} {
		s, err := m.SnapshotByRef(name)
		if err != nil || s.SnapshotID != want {
			t.Errorf("ref %s: %v, %v; want %d", name, s, err, want)
		}
	}
	if _, err := m.SnapshotByRef("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown ref: err = %v", err)
	}
	dev := m.Refs["dev"]
	if dev.Type != RefBranch || *dev.MinSnapshotsToKeep != 2 || *dev.MaxSnapshotAgeMs != 3600000 || dev.MaxRefAgeMs != nil {
		t.Errorf("dev retention %+v", dev)
	}
	if tag := m.Refs["v1"]; tag.Type != RefTag || *tag.MaxRefAgeMs != 86400000 {
		t.Errorf("v1 tag %+v", tag)
	}
	empty := parseFixture(t, "duckdb_uuid/metadata/00000-e8729e86-fe06-4ffc-835b-283f0d3e9921.metadata.json")
	if _, err := empty.SnapshotByRef(MainBranch); err == nil || !strings.Contains(err.Error(), "never been written") {
		t.Errorf("main of an empty table: err = %v", err)
	}
}

func TestRefsWithoutMainGetMainFromCurrentSnapshot(t *testing.T) {
	d := rollbackTable()
	delete(d["refs"].(doc), "main")
	m := mustParse(t, d)
	if main := m.Refs[MainBranch]; main.SnapshotID != 1 || main.Type != RefBranch {
		t.Errorf("synthesised main = %+v", main)
	}
	if len(m.Refs) != 3 {
		t.Errorf("refs %v", m.Refs)
	}
	// Marshal writes main for in-memory metadata that lacks it, too.
	delete(m.Refs, MainBranch)
	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := Parse(out); err != nil || again.Refs[MainBranch].SnapshotID != 1 {
		t.Errorf("main after writing: %v, %v", again.Refs, err)
	}
}

func TestAncestors(t *testing.T) {
	m := mustParse(t, rollbackTable())
	var ids []int64
	for _, s := range m.Ancestors(m.SnapshotByID(3)) {
		ids = append(ids, s.SnapshotID)
	}
	if !reflect.DeepEqual(ids, []int64{3, 2, 1}) {
		t.Errorf("ancestors of 3: %v", ids)
	}
	if m.Ancestors(nil) != nil {
		t.Errorf("ancestors of nil should be nil")
	}
	// A parent that has expired ends the chain.
	d := rollbackTable()
	d["snapshots"] = d["snapshots"].([]any)[1:]
	d["current-snapshot-id"] = 3
	d["refs"] = doc{}
	d["snapshot-log"] = []any{}
	m = mustParse(t, d)
	if got := m.Ancestors(m.CurrentSnapshot()); len(got) != 2 {
		t.Errorf("ancestors with an expired root: %d", len(got))
	}
	// A cycle (hostile metadata) must end too.
	d = rollbackTable()
	d["snapshots"].([]any)[0].(doc)["parent-snapshot-id"] = 3
	m = mustParse(t, d)
	if got := m.Ancestors(m.SnapshotByID(3)); len(got) != 3 {
		t.Errorf("ancestors around a cycle: %d", len(got))
	}
}

func TestSchemaForSnapshot(t *testing.T) {
	d := rollbackTable()
	snaps := d["snapshots"].([]any)
	delete(snaps[0].(doc), "schema-id")
	snaps[1].(doc)["schema-id"] = 7
	m := mustParse(t, d)
	if s, err := m.SchemaForSnapshot(m.SnapshotByID(1)); err != nil || s != m.CurrentSchema() {
		t.Errorf("snapshot without schema-id: %v, %v; want the current schema", s, err)
	}
	if _, err := m.SchemaForSnapshot(m.SnapshotByID(2)); err == nil || !strings.Contains(err.Error(), "schema 7") {
		t.Errorf("unknown schema-id: err = %v", err)
	}
	if s, err := m.SchemaForSnapshot(nil); err != nil || s != m.CurrentSchema() {
		t.Errorf("nil snapshot: %v, %v", s, err)
	}
}
