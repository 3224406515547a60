package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// A v3 table with geometry, geography, unknown and nanosecond timestamp
// columns takes jsonl rows with WKT and hex WKB, and `floe scan` prints
// them back as WKT; a value that is neither is refused.
func TestAppendAndScanGeoJSONL(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	os.WriteFile(schema, []byte(`{"type": "struct", "fields": [
	  {"id": 1, "name": "id", "required": true, "type": "int"},
	  {"id": 2, "name": "shape", "required": false, "type": "geometry"},
	  {"id": 3, "name": "place", "required": false, "type": "geography(EPSG:4326, vincenty)"},
	  {"id": 4, "name": "nothing", "required": false, "type": "unknown"},
	  {"id": 5, "name": "ts", "required": false, "type": "timestamp_ns"}]}`), 0o644)
	loc := filepath.Join(dir, "t")
	mustRun(t, "create", loc, "--schema", schema, "--format-version", "3")
	info := mustRun(t, "info", loc)
	for _, want := range []string{"shape optional geometry(OGC:CRS84)", "place optional geography(EPSG:4326, vincenty)", "nothing optional unknown"} {
		if !strings.Contains(info, want) {
			t.Errorf("info lacks %q:\n%s", want, info)
		}
	}
	point, _ := iceberg.WKTToWKB("POINT Z (1 2 3)")
	in := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(in, []byte(`{"id": 1, "shape": "POLYGON ((0 0, 1 0, 1 1, 0 0))", "place": "point(-71.06 42.36)", "ts": "2024-03-01T10:00:00.123456789"}
{"id": 2, "shape": "`+hex.EncodeToString(point)+`", "place": null, "nothing": null}
{"id": 3, "shape": null, "place": "MULTIPOINT ((1 2), (3 4))"}
`), 0o644)
	mustRun(t, "append", loc, in)
	rows := scanRows(t, loc)
	sort.Slice(rows, func(i, j int) bool {
		return rows[i]["id"].(interface{ String() string }).String() < rows[j]["id"].(interface{ String() string }).String()
	})
	want := []map[string]any{
		{"shape": "POLYGON ((0 0, 1 0, 1 1, 0 0))", "place": "POINT (-71.06 42.36)", "nothing": nil, "ts": "2024-03-01T10:00:00.123456789"},
		{"shape": "POINT Z (1 2 3)", "place": nil, "nothing": nil, "ts": nil},
		{"shape": nil, "place": "MULTIPOINT ((1 2), (3 4))", "nothing": nil, "ts": nil},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	for i, w := range want {
		for k, v := range w {
			if rows[i][k] != v {
				t.Errorf("row %d %s: %#v, want %#v", i, k, rows[i][k], v)
			}
		}
	}
	// What scan printed appends again unchanged.
	status, out, _ := runCLI(t, "scan", loc)
	if status != 0 {
		t.Fatal(out)
	}
	again := filepath.Join(dir, "again.jsonl")
	os.WriteFile(again, []byte(out), 0o644)
	mustRun(t, "append", loc, again)
	if n := len(scanRows(t, loc)); n != 6 {
		t.Errorf("%d rows after appending the scan output", n)
	}

	for _, bad := range []string{`{"id": 9, "shape": "CIRCLE (1 2)"}`, `{"id": 9, "shape": "01zz"}`, `{"id": 9, "place": "0101000000"}`} {
		f := filepath.Join(dir, "bad.jsonl")
		os.WriteFile(f, []byte(bad+"\n"), 0o644)
		if status, _, errOut := runCLI(t, "append", loc, f); status == 0 || !strings.Contains(errOut, "bad.jsonl") {
			t.Errorf("%s: status %d: %s", bad, status, errOut)
		}
	}
	if n := len(scanRows(t, loc)); n != 6 {
		t.Errorf("%d rows after refused appends", n)
	}
}
