package scan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// Filters on the Hive-written file without field ids (INDEX.md quirk 4):
// fields inside structs, read by name, and, in a copy whose name mapping
// agrees with the schema but leaves float_col out, a field that reads as
// null in that file, whatever its column of that name holds (0.5).
func TestFiltersOnHiveFileWithoutFieldIDs(t *testing.T) {
	const name = "impala_iceberg_migrated_complex_test"
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	count := func(tbl *table.Table, filter string) int {
		t.Helper()
		_, rows := scanTable(t, name, tbl, Options{Filter: textFilter(filter), Columns: []string{"struct_1_col.string_col"}})
		return len(rows)
	}
	asIs, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	for filter, want := range map[string]int{
		"struct_1_col.string_col = 'A'": 1, `"struct_1_col"."string_col" != 'A'`: 0, "struct_1_col.string_col is null": 0,
		"struct_2_col.struct_3_col.float_col > 0.25": 1, "struct_2_col.struct_3_col.float_col < 0.25": 0,
		"struct_2_col.struct_3_col.float_col is null": 0,
	} {
		if got := count(asIs, filter); got != want {
			t.Errorf("%s: %d rows, want %d", filter, got, want)
		}
	}

	// The copy: the mapping keeps struct_3_col but not its float_col (a
	// field missing from a struct the file has), or leaves struct_2_col
	// out altogether (a constant null struct).
	for mapping, label := range map[string]string{
		`[{"field-id": 1, "names": ["struct_1_col"], "fields": [{"field-id": 5, "names": ["string_col"]}]},
		  {"field-id": 3, "names": ["struct_2_col"], "fields": [{"field-id": 12, "names": ["struct_3_col"], "fields": [{"field-id": 16, "names": ["bigint_array_col"]}]}]}]`: "float_col unmapped",
		`[{"field-id": 1, "names": ["struct_1_col"], "fields": [{"field-id": 5, "names": ["string_col"]}]}]`: "struct_2_col unmapped",
	} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(fx.Dir)); err != nil {
			t.Fatal(err)
		}
		mdPath := filepath.Join(dir, "metadata", "v2.metadata.json")
		raw, err := os.ReadFile(mdPath)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		if err := json.Unmarshal(raw, &md); err != nil {
			t.Fatal(err)
		}
		md["properties"].(map[string]any)["schema.name-mapping.default"] = mapping
		out, err := json.Marshal(md)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mdPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		copied, err := table.Open(context.Background(), mdPath, table.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, rows := scanTable(t, name, copied, Options{Columns: []string{"struct_1_col.string_col", "struct_2_col.struct_3_col.float_col"}})
		if len(rows) != 1 || !strings.Contains(rows[0][0], `"A"`) || strings.Contains(rows[0][1], "0.5") {
			t.Fatalf("%s: the unfiltered scan reads %v, want string_col A and no float_col", label, rows)
		}
		for filter, want := range map[string]int{
			"struct_1_col.string_col = 'A'":                    1,
			"struct_2_col.struct_3_col.float_col is null":      1,
			"struct_2_col.struct_3_col.float_col is not null":  0,
			"struct_2_col.struct_3_col.float_col > 0.25":       0,
			"not (struct_2_col.struct_3_col.float_col < 0.25)": 0,
		} {
			if got := count(copied, filter); got != want {
				t.Errorf("%s: %s: %d rows, want %d", label, filter, got, want)
			}
		}
	}
}
