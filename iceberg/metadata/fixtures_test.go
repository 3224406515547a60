package metadata

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const fixturesDir = "../../testdata/fixtures"

// fixtureMetadataFiles lists every */metadata/*.metadata.json under the
// fixtures, old versions included.
func fixtureMetadataFiles(tb testing.TB) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(fixturesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".metadata.json") && !strings.HasPrefix(d.Name(), ".") &&
			filepath.Base(filepath.Dir(path)) == "metadata" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no metadata files under %s", fixturesDir)
	}
	return files
}

func readFixture(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func parseFixture(tb testing.TB, rel string) *Metadata {
	tb.Helper()
	m, err := Parse(readFixture(tb, rel))
	if err != nil {
		tb.Fatalf("%s: %v", rel, err)
	}
	return m
}

func TestEveryFixtureMetadataFileParses(t *testing.T) {
	files := fixtureMetadataFiles(t)
	// 15 tables, 16 with the two of duckdb_equality_deletes, each with at
	// least one metadata file.
	if len(files) < 16 {
		t.Fatalf("found only %d metadata files", len(files))
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var raw struct {
			FormatVersion int `json:"format-version"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		if m.FormatVersion != raw.FormatVersion {
			t.Errorf("%s: format version %d, file says %d", path, m.FormatVersion, raw.FormatVersion)
		}
		if m.CurrentSchema() == nil || m.DefaultSpec() == nil || m.DefaultSortOrder() == nil {
			t.Errorf("%s: current schema, default spec or default sort order missing", path)
		}
	}
}

// TestCurrentMetadataMatchesTablesJSON checks each table's current metadata
// file against the format version tables.json records for it.
func TestCurrentMetadataMatchesTablesJSON(t *testing.T) {
	var tables []struct {
		Name            string `json:"name"`
		FormatVersion   int    `json:"format_version"`
		CurrentMetadata string `json:"current_metadata"`
	}
	if err := json.Unmarshal(readFixture(t, "tables.json"), &tables); err != nil {
		t.Fatal(err)
	}
	if len(tables) != 15 {
		t.Fatalf("tables.json lists %d tables, INDEX.md describes 15", len(tables))
	}
	for _, tab := range tables {
		for _, rel := range strings.Split(tab.CurrentMetadata, " + ") {
			m := parseFixture(t, filepath.Join(tab.Name, rel))
			if m.FormatVersion != tab.FormatVersion {
				t.Errorf("%s/%s: format version %d, tables.json says %d", tab.Name, rel, m.FormatVersion, tab.FormatVersion)
			}
			if m.CurrentSnapshot() == nil {
				t.Errorf("%s/%s: no current snapshot", tab.Name, rel)
			}
		}
	}
}

func TestRoundTripEveryFixture(t *testing.T) {
	for _, path := range fixtureMetadataFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m1, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		compact, err := m1.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: marshal: %v", path, err)
		}
		var indented bytes.Buffer
		if err := m1.Write(&indented); err != nil {
			t.Fatalf("%s: write: %v", path, err)
		}
		for name, out := range map[string][]byte{"MarshalJSON": compact, "Write": indented.Bytes()} {
			m2, err := Parse(out)
			if err != nil {
				t.Fatalf("%s: parsing what %s wrote: %v\n%s", path, name, err, out)
			}
			if !reflect.DeepEqual(m1, m2) {
				t.Errorf("%s: %s then Parse differs from the first parse", path, name)
			}
		}
		checkLegacyMembers(t, path, m1.FormatVersion, compact)
	}
}

// checkLegacyMembers checks that v1 output carries the legacy schema and
// partition-spec members (matching the modern ones) and v2+ output does not.
func checkLegacyMembers(t *testing.T, path string, version int, out []byte) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	_, hasSchema := top["schema"]
	_, hasSpec := top["partition-spec"]
	if version >= 2 {
		if hasSchema || hasSpec {
			t.Errorf("%s: v%d output has a legacy schema or partition-spec member", path, version)
		}
		return
	}
	if !hasSchema || !hasSpec {
		t.Fatalf("%s: v1 output lacks the legacy schema or partition-spec member", path)
	}
	// A reader of the legacy form alone must see the same table.
	delete(top, "schemas")
	delete(top, "current-schema-id")
	delete(top, "partition-specs")
	delete(top, "default-spec-id")
	legacyOnly, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := Parse(legacyOnly)
	if err != nil {
		t.Fatalf("%s: legacy-only form does not parse: %v", path, err)
	}
	if !reflect.DeepEqual(legacy.CurrentSchema(), full.CurrentSchema()) ||
		!reflect.DeepEqual(legacy.DefaultSpec().Fields, full.DefaultSpec().Fields) {
		t.Errorf("%s: legacy schema or partition-spec differs from the modern members", path)
	}
}

// TestWriterKeepsSnapshotsAsWritten compares the written snapshots, refs,
// logs and properties with the input's, member by member, for every fixture.
// This checks the writer against files other engines wrote, not only
// against our own parser.
func TestWriterKeepsSnapshotsAsWritten(t *testing.T) {
	for _, path := range fixtureMetadataFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		in, written := genericJSON(t, data), genericJSON(t, out)
		for _, key := range []string{"snapshots", "snapshot-log", "metadata-log", "properties", "location", "table-uuid", "last-updated-ms", "last-column-id", "sort-orders"} {
			if _, ok := in[key]; !ok {
				continue
			}
			if !reflect.DeepEqual(in[key], written[key]) {
				t.Errorf("%s: %q changed on writing:\n in: %v\nout: %v", path, key, in[key], written[key])
			}
		}
		if refs, ok := in["refs"].(map[string]any); ok && len(refs) > 0 && !reflect.DeepEqual(refs, written["refs"]) {
			t.Errorf("%s: refs changed on writing:\n in: %v\nout: %v", path, refs, written["refs"])
		}
	}
}

func genericJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
