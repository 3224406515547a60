package main

import (
	"path/filepath"
	"testing"
)

// floe append writes its data files where the table's properties say:
// write.data.path, else the legacy write.folder-storage.path, else
// <location>/data; the rows read back either way.
func TestAppendWritesWhereTheTablePropertiesSay(t *testing.T) {
	for _, key := range []string{"write.data.path", "write.folder-storage.path"} {
		t.Run(key, func(t *testing.T) {
			dir := t.TempDir()
			schema := filepath.Join(dir, "schema.json")
			writeTestFile(t, schema, `{"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "required": true, "type": "long"}]}`)
			loc, elsewhere := filepath.Join(dir, "t"), filepath.Join(dir, "elsewhere")
			mustRun(t, "create", loc, "--schema", schema, "--property", key+"="+elsewhere)
			rows := filepath.Join(dir, "rows.jsonl")
			writeTestFile(t, rows, `{"id": 1}`+"\n"+`{"id": 2}`+"\n")
			mustRun(t, "append", loc, rows)
			if got := dataFilesUnder(t, elsewhere); len(got) != 1 {
				t.Errorf("%d data files under %s=%s, want 1", len(got), key, elsewhere)
			}
			if got := dataFilesUnder(t, filepath.Join(loc, "data")); len(got) != 0 {
				t.Errorf("data files under the table's own data directory: %v", got)
			}
			if got := scanRows(t, loc); len(got) != 2 {
				t.Errorf("read back %d rows, want 2", len(got))
			}
		})
	}
}
