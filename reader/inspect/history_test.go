package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// wantHistory is the history table as the metadata JSON gives it: one row
// per snapshot-log entry, its parent from the snapshot list, and whether
// the walk of parents from the current snapshot reaches it.
func wantHistory(t *testing.T, doc jsonTable) [][]any {
	parents := map[int64]*int64{}
	for _, s := range doc.Snapshots {
		var p *int64
		if s.Parent != nil {
			v := id(t, s.Parent)
			p = &v
		}
		parents[id(t, &s.ID)] = p
	}
	ancestors := map[int64]bool{}
	for cur := id(t, doc.Current); cur != -1 && !ancestors[cur]; {
		p, ok := parents[cur]
		if !ok {
			break
		}
		ancestors[cur] = true
		if p == nil {
			break
		}
		cur = *p
	}
	var out [][]any
	for _, e := range doc.SnapshotLog {
		sid := id(t, &e.ID)
		var parent any
		if p := parents[sid]; p != nil {
			parent = *p
		}
		out = append(out, []any{e.Ms * 1000, sid, parent, ancestors[sid]})
	}
	return out
}

func TestHistoryMatchesTheMetadataJSON(t *testing.T) {
	for _, f := range allFixtures(t) {
		doc := readJSONTable(t, f.Metadata)
		got := tableRows(readAll(t, openFixture(t, f), History, Options{}))
		if want := wantHistory(t, doc); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: history\n got %v\nwant %v", f.Name, got, want)
		}
		if len(doc.SnapshotLog) > 0 && len(got) == 0 {
			t.Errorf("%s: no history rows", f.Name)
		}
	}
}

// editedFixture writes a fixture's metadata JSON, changed by edit, to a
// temporary file and opens it (manifests still read from the fixture).
func editedFixture(t *testing.T, name string, edit func(doc map[string]any)) *table.Table {
	t.Helper()
	f, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(f.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytesReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "metadata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "v99.metadata.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), path, table.Options{LocationMap: f.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// A rollback: the snapshots after the one rolled back to stay in the
// log but are no longer ancestors of the current snapshot; the filter
// finds them.
func TestHistoryAfterARollback(t *testing.T) {
	const name = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
	var first json.Number
	tbl := editedFixture(t, name, func(doc map[string]any) {
		snaps := doc["snapshots"].([]any)
		first = snaps[0].(map[string]any)["snapshot-id"].(json.Number)
		doc["current-snapshot-id"] = first
		delete(doc, "refs")
		log := doc["snapshot-log"].([]any)
		last := log[len(log)-1].(map[string]any)["timestamp-ms"].(json.Number)
		ms, _ := last.Int64()
		doc["snapshot-log"] = append(log, map[string]any{"snapshot-id": first, "timestamp-ms": ms + 1})
	})
	rows := tableRows(readAll(t, tbl, History, Options{}))
	n := len(tbl.Metadata.Snapshots)
	if len(rows) != n+1 {
		t.Fatalf("%d history rows for %d log entries", len(rows), n+1)
	}
	firstID, _ := first.Int64()
	for i, r := range rows {
		want := r[1] == firstID
		if r[3] != want {
			t.Errorf("row %d (snapshot %v): is_current_ancestor %v, want %v", i, r[1], r[3], want)
		}
	}
	notAncestor, err := expr.NewPredicate(expr.OpEq, "is_current_ancestor", false)
	if err != nil {
		t.Fatal(err)
	}
	got := tableRows(readAll(t, tbl, History, Options{Columns: []string{"snapshot_id", "parent_id"}, Filter: notAncestor}))
	if len(got) != n-1 {
		t.Fatalf("%d rows not current ancestors, want %d: %v", len(got), n-1, got)
	}
	for _, r := range got {
		if len(r) != 2 || r[0] == firstID || r[1] == nil {
			t.Errorf("a row not an ancestor: %v", r)
		}
	}
	_, err = Open(context.Background(), tbl, History, Options{SnapshotID: &firstID}, nil)
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a snapshot for the history table: %v", err)
	}
}

// A table never written to: no history, refs or manifests; its one
// metadata file names no snapshot.
func TestTablesOfATableWithoutSnapshots(t *testing.T) {
	tbl := editedFixture(t, "impala_iceberg_v3_deletion_vectors", func(doc map[string]any) {
		doc["current-snapshot-id"] = json.Number("-1")
		for _, k := range []string{"snapshots", "snapshot-log", "metadata-log", "refs", "statistics"} {
			delete(doc, k)
		}
	})
	for _, kind := range []Kind{History, Refs, Manifests, AllManifests} {
		if rows := tableRows(readAll(t, tbl, kind, Options{})); len(rows) != 0 {
			t.Errorf("%s: %v", kind, rows)
		}
	}
	rows := tableRows(readAll(t, tbl, MetadataLogEntries, Options{}))
	if len(rows) != 1 || rows[0][1] != tbl.MetadataLocation || rows[0][2] != nil || rows[0][3] != nil || rows[0][4] != nil {
		t.Errorf("metadata_log_entries: %v", rows)
	}
}
