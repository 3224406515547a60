package main

import "testing"

// from_snapshot_id and to_snapshot_id, as floe.h documents them, become
// the incremental append scan's options; to_snapshot_id with another
// choice of snapshot is an invalid argument.
func TestScanOptionsIncremental(t *testing.T) {
	o, err := decodeScanOptions([]byte(`{"from_snapshot_id": 7, "to_snapshot_id": 9}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.FromSnapshotID == nil || *o.FromSnapshotID != 7 || o.ToSnapshotID == nil || *o.ToSnapshotID != 9 {
		t.Errorf("decoded %+v", o)
	}
	for _, bad := range []string{`{"to_snapshot_id": 9, "snapshot_id": 9}`, `{"to_snapshot_id": 9, "ref": "main"}`, `{"from_snapshot_id": "7"}`} {
		if _, err := decodeScanOptions([]byte(bad)); err == nil || classify(err, statusInternal) != statusInvalidArgument {
			t.Errorf("%s: %v, want an invalid argument", bad, err)
		}
	}
}
