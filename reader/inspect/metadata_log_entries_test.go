package inspect

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
)

// wantMetadataLog is the metadata_log_entries table as the JSON gives it:
// the metadata log, then the file itself at its last-updated-ms; for each,
// the snapshot-log entry of the latest time at or before the file's (the
// first of equal times), and that snapshot's schema id and sequence
// number when it is still listed.
func wantMetadataLog(t *testing.T, doc jsonTable, file string) [][]any {
	snaps := map[int64]jsonSnap{}
	for _, s := range doc.Snapshots {
		snaps[id(t, &s.ID)] = s
	}
	entries := append(append([]jsonMDLog{}, doc.MetadataLog...), jsonMDLog{File: file, Ms: doc.LastUpdated})
	var out [][]any
	for _, e := range entries {
		row := []any{e.Ms * 1000, e.File, nil, nil, nil}
		best := int64(-1 << 63)
		for _, l := range doc.SnapshotLog {
			if l.Ms <= e.Ms && (row[2] == nil || l.Ms > best) {
				row[2], best = id(t, &l.ID), l.Ms
			}
		}
		if row[2] != nil {
			if s, ok := snaps[row[2].(int64)]; ok {
				if s.SchemaID != nil {
					row[3] = *s.SchemaID
				}
				row[4] = int64(0) // v1 snapshots have no sequence number
				if s.Sequence != nil {
					row[4] = *s.Sequence
				}
			}
		}
		out = append(out, row)
	}
	return out
}

func TestMetadataLogEntriesMatchTheMetadataJSON(t *testing.T) {
	withSnapshot := 0
	for _, f := range allFixtures(t) {
		doc := readJSONTable(t, f.Metadata)
		got := tableRows(readAll(t, openFixture(t, f), MetadataLogEntries, Options{}))
		want := wantMetadataLog(t, doc, f.Metadata)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: metadata_log_entries\n got %v\nwant %v", f.Name, got, want)
		}
		for _, r := range want {
			if r[2] != nil {
				withSnapshot++
			}
		}
	}
	if withSnapshot < 10 {
		t.Fatalf("only %d rows name a snapshot: not a useful check", withSnapshot)
	}
}

// A file older than every snapshot (the table's creation) has no latest
// snapshot; the log's order does not decide, the times do; an expired
// snapshot keeps its id but loses its schema and sequence number.
func TestMetadataLogEntriesLatestSnapshot(t *testing.T) {
	const name = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
	var ids []json.Number
	var times []int64
	tbl := editedFixture(t, name, func(doc map[string]any) {
		log := doc["snapshot-log"].([]any)
		for _, e := range log {
			m := e.(map[string]any)
			ids = append(ids, m["snapshot-id"].(json.Number))
			ms, _ := m["timestamp-ms"].(json.Number).Int64()
			times = append(times, ms)
		}
		// The log out of order: the last entry first.
		doc["snapshot-log"] = append([]any{log[len(log)-1]}, log[:len(log)-1]...)
		// The second snapshot expired.
		snaps := doc["snapshots"].([]any)
		var kept []any
		for _, s := range snaps {
			if s.(map[string]any)["snapshot-id"] != ids[1] {
				kept = append(kept, s)
			}
		}
		doc["snapshots"] = kept
		doc["metadata-log"] = []any{
			map[string]any{"metadata-file": "before.json", "timestamp-ms": times[0] - 1},
			map[string]any{"metadata-file": "second.json", "timestamp-ms": times[1]},
			map[string]any{"metadata-file": "third.json", "timestamp-ms": times[2] + 1},
		}
	})
	rows := tableRows(readAll(t, tbl, MetadataLogEntries, Options{}))
	if len(rows) != 4 {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	second, _ := ids[1].Int64()
	third, _ := ids[2].Int64()
	if rows[0][2] != nil || rows[0][3] != nil || rows[0][4] != nil {
		t.Errorf("a file before the first snapshot: %v", rows[0])
	}
	if rows[1][2] != second || rows[1][3] != nil || rows[1][4] != nil {
		t.Errorf("a file when the expired snapshot %d was current: %v", second, rows[1])
	}
	if rows[2][2] != third || rows[2][4] == nil {
		t.Errorf("a file after snapshot %d: %v", third, rows[2])
	}
	// The log lists the newest snapshot first: the times decide.
	newest, _ := ids[len(ids)-1].Int64()
	if rows[3][1] != tbl.MetadataLocation || rows[3][2] != newest {
		t.Errorf("the last row is %v, not the current file %s with snapshot %d", rows[3], tbl.MetadataLocation, newest)
	}
	// Column selection and a filter on the latest snapshot.
	eq, err := expr.NewPredicate(expr.OpEq, "latest_snapshot_id", third)
	if err != nil {
		t.Fatal(err)
	}
	got := tableRows(readAll(t, tbl, MetadataLogEntries, Options{Columns: []string{"file"}, Filter: eq}))
	if !reflect.DeepEqual(got, [][]any{{"third.json"}}) {
		t.Errorf("files when snapshot %d was current: %v", third, got)
	}
}
