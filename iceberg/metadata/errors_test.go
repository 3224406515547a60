package metadata

import (
	"strings"
	"testing"
)

func TestParseRejectsBadInput(t *testing.T) {
	raw := []struct {
		name, input, want string
	}{
		{"empty", ``, "must be a JSON object"},
		{"array", `[1, 2]`, "must be a JSON object"},
		{"null", `null`, "must be a JSON object"},
		{"truncated", `{"format-version": 2, "location": `, "not valid JSON"},
		{"trailing garbage", `{"format-version": 2} x`, "not valid JSON"},
		{"missing version", `{"location": "s3://b/t"}`, `missing required field "format-version"`},
		{"version as string", `{"format-version": "2"}`, `field "format-version"`},
	}
	for _, c := range raw {
		checkError(t, c.name, []byte(c.input), c.want)
	}

	snapshot := func(d doc, i int) doc { return d["snapshots"].([]any)[i].(doc) }
	edits := []struct {
		name string
		edit func(d doc)
		want string
	}{
		{"version 4", func(d doc) { d["format-version"] = 4 }, "unsupported format-version 4"},
		{"version 0", func(d doc) { d["format-version"] = 0 }, "unsupported format-version 0"},
		{"v2 without uuid", func(d doc) { delete(d, "table-uuid") }, `missing field "table-uuid", required in format version 2`},
		{"v2 with empty uuid", func(d doc) { d["table-uuid"] = "" }, "table-uuid is empty"},
		{"no location", func(d doc) { delete(d, "location") }, `missing required field "location"`},
		{"v2 without last-sequence-number", func(d doc) { delete(d, "last-sequence-number") }, `"last-sequence-number"`},
		{"no last-updated-ms", func(d doc) { delete(d, "last-updated-ms") }, `"last-updated-ms"`},
		{"no last-column-id", func(d doc) { delete(d, "last-column-id") }, `"last-column-id"`},
		{"v2 without schemas", func(d doc) { delete(d, "schemas") }, `missing field "schemas", required in format version 2`},
		{"no current-schema-id", func(d doc) { delete(d, "current-schema-id") }, `"current-schema-id"`},
		{"current schema missing", func(d doc) { d["current-schema-id"] = 3 }, "current-schema-id 3 is not among the schemas (ids 0)"},
		{"duplicate schema ids", func(d doc) { d["schemas"] = append(d["schemas"].([]any), d["schemas"].([]any)[0]) }, "schema id 0 is used twice"},
		{"null schema", func(d doc) { d["schemas"] = []any{nil} }, "schemas[0] is null"},
		{"bad schema type", func(d doc) {
			d["schemas"] = []any{doc{"type": "struct", "schema-id": 0, "fields": []any{doc{"id": 1, "name": "x", "required": true, "type": "strin"}}}}
		}, `unknown iceberg type "strin"`},
		{"geometry in v2", func(d doc) {
			d["schemas"] = []any{doc{"type": "struct", "schema-id": 0, "fields": []any{doc{"id": 1, "name": "s", "required": false, "type": doc{
				"type": "struct", "fields": []any{doc{"id": 2, "name": "g", "required": false, "type": "geography(EPSG:4326)"}}}}}}}
		}, "column s.g is a geography(EPSG:4326, spherical), which needs format version 3"},
		{"v2 without partition-specs", func(d doc) { delete(d, "partition-specs") }, `missing field "partition-specs"`},
		{"default spec missing", func(d doc) { d["default-spec-id"] = 5 }, "default-spec-id 5 is not among the partition specs"},
		{"v2 without last-partition-id", func(d doc) { delete(d, "last-partition-id") }, `"last-partition-id"`},
		{"v2 without sort-orders", func(d doc) { delete(d, "sort-orders") }, `missing field "sort-orders"`},
		{"default sort order missing", func(d doc) { d["default-sort-order-id"] = 1 }, "default-sort-order-id 1 is not among the sort orders"},
		{"bad transform", func(d doc) {
			d["partition-specs"] = []any{doc{"spec-id": 0, "fields": []any{doc{"source-id": 1, "field-id": 1000, "name": "b", "transform": "bucket[0]"}}}}
		}, "bucket[0]"},
		{"properties not strings", func(d doc) { d["properties"] = doc{"a": 1} }, `field "properties"`},
		{"v3 without next-row-id", func(d doc) { d["format-version"] = 3 }, `missing required field "next-row-id"`},
		{"duplicate snapshot ids", func(d doc) { snapshot(d, 1)["snapshot-id"] = 1 }, "snapshot id 1 is used twice"},
		{"snapshot without id", func(d doc) { delete(snapshot(d, 1), "snapshot-id") }, `snapshots[1]: missing required field "snapshot-id"`},
		{"snapshot without timestamp", func(d doc) { delete(snapshot(d, 1), "timestamp-ms") }, `snapshot 2: missing required field "timestamp-ms"`},
		{"v2 snapshot without manifest-list", func(d doc) { delete(snapshot(d, 2), "manifest-list") }, `snapshot 3: missing field "manifest-list"`},
		{"v2 snapshot without summary", func(d doc) { delete(snapshot(d, 0), "summary") }, `snapshot 1: missing field "summary"`},
		{"v2 summary without operation", func(d doc) { snapshot(d, 0)["summary"] = doc{"added-records": "1"} }, `snapshot 1: summary has no "operation"`},
		{"summary value not a string", func(d doc) { snapshot(d, 0)["summary"] = doc{"operation": "append", "n": 1} }, `snapshot 1: field "summary"`},
		{"sequence number above last", func(d doc) { snapshot(d, 2)["sequence-number"] = 9 }, "sequence-number 9 is above last-sequence-number 3"},
		{"current snapshot missing", func(d doc) { d["current-snapshot-id"] = 8; delete(d["refs"].(doc), "main") }, "current-snapshot-id 8 is not among the snapshots"},
		{"ref to missing snapshot", func(d doc) { d["refs"].(doc)["v1"] = doc{"snapshot-id": 8, "type": "tag"} }, `ref "v1" points at snapshot 8`},
		{"ref of unknown type", func(d doc) { d["refs"].(doc)["v1"] = doc{"snapshot-id": 2, "type": "label"} }, `type must be "branch" or "tag", not "label"`},
		{"ref without type", func(d doc) { d["refs"].(doc)["v1"] = doc{"snapshot-id": 2} }, `ref "v1": missing required field "type"`},
		{"tag with branch retention", func(d doc) {
			d["refs"].(doc)["v1"] = doc{"snapshot-id": 2, "type": "tag", "min-snapshots-to-keep": 3}
		}, `tag "v1": min-snapshots-to-keep`},
		{"non-positive retention", func(d doc) {
			d["refs"].(doc)["dev"] = doc{"snapshot-id": 3, "type": "branch", "max-snapshot-age-ms": 0}
		}, "max-snapshot-age-ms must be positive"},
		{"main disagrees with current", func(d doc) { d["current-snapshot-id"] = 2 }, `current-snapshot-id 2 differs from branch "main" (snapshot 1)`},
		{"main without current", func(d doc) { delete(d, "current-snapshot-id") }, `branch "main" points at snapshot 1, but current-snapshot-id is not set`},
		{"main is a tag", func(d doc) { d["refs"].(doc)["main"] = doc{"snapshot-id": 1, "type": "tag"} }, `ref "main" must be a branch`},
		{"snapshot-log entry incomplete", func(d doc) { d["snapshot-log"] = []any{doc{"snapshot-id": 1}} }, `snapshot-log[0]: missing required field "timestamp-ms"`},
		{"metadata-log entry incomplete", func(d doc) { d["metadata-log"] = []any{doc{"timestamp-ms": 1}} }, `metadata-log[0]: missing required field "metadata-file"`},
		{"statistics without blobs", func(d doc) {
			d["statistics"] = []any{doc{"snapshot-id": 1, "statistics-path": "p", "file-size-in-bytes": 1, "file-footer-size-in-bytes": 1}}
		}, `statistics[0]: missing required field "blob-metadata"`},
		{"encryption key not base64", func(d doc) {
			d["encryption-keys"] = []any{doc{"key-id": "k", "encrypted-key-metadata": "not base64!"}}
		}, `encryption key "k": encrypted-key-metadata is not base64`},
		{"snapshots not a list", func(d doc) { d["snapshots"] = doc{} }, `field "snapshots"`},
	}
	for _, c := range edits {
		d := rollbackTable()
		c.edit(d)
		checkError(t, c.name, encode(t, d), c.want)
	}
}

func TestV1Errors(t *testing.T) {
	for _, c := range []struct {
		name, drop, want string
	}{
		{"no schema at all", "schema", `missing both "schemas" and the v1 field "schema"`},
		{"no spec at all", "partition-spec", `missing both "partition-specs" and the v1 field "partition-spec"`},
		{"no manifests", "manifests", `snapshot 5: has neither "manifest-list" nor the v1 field "manifests"`},
	} {
		input := strings.Replace(oldestV1, `"`+c.drop+`"`, `"x-dropped"`, 1)
		checkError(t, c.name, []byte(input), c.want)
	}
}

func checkError(t *testing.T, name string, input []byte, want string) {
	t.Helper()
	m, err := Parse(input)
	if err == nil {
		t.Errorf("%s: parsed without error: %+v", name, m)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %q does not mention %q", name, err, want)
	}
}

func TestMarshalRefusesInvalidMetadata(t *testing.T) {
	m := mustParse(t, rollbackTable())
	m.CurrentSchemaID = 42
	if _, err := m.MarshalJSON(); err == nil || !strings.Contains(err.Error(), "current-schema-id 42") {
		t.Errorf("err = %v", err)
	}
	m = mustParse(t, rollbackTable())
	m.FormatVersion = 1
	if _, err := m.MarshalJSON(); err == nil || !strings.Contains(err.Error(), "format version 1 has no sequence numbers") {
		t.Errorf("v1 with sequence numbers: err = %v", err)
	}
}
