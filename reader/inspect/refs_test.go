package inspect

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
)

// wantRefs is the refs table as the JSON gives it, by name; a table
// without refs but with a current snapshot has its main branch (the
// spec's rule for metadata written before refs).
func wantRefs(t *testing.T, doc jsonTable) [][]any {
	refs := doc.Refs
	if _, ok := refs["main"]; !ok && id(t, doc.Current) != -1 {
		refs = map[string]jsonRef{"main": {ID: *doc.Current, Type: "branch"}}
		for k, v := range doc.Refs {
			refs[k] = v
		}
	}
	var out [][]any
	for name, r := range refs {
		row := []any{name, strings.ToUpper(r.Type), id(t, &r.ID), nil, nil, nil}
		if r.MaxRefAge != nil {
			row[3] = *r.MaxRefAge
		}
		if r.MinSnapshots != nil {
			row[4] = *r.MinSnapshots
		}
		if r.MaxSnapshotAge != nil {
			row[5] = *r.MaxSnapshotAge
		}
		out = append(out, row)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0].(string) < out[j][0].(string) })
	return out
}

func TestRefsMatchTheMetadataJSON(t *testing.T) {
	for _, f := range allFixtures(t) {
		doc := readJSONTable(t, f.Metadata)
		got := tableRows(readAll(t, openFixture(t, f), Refs, Options{}))
		if want := wantRefs(t, doc); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: refs\n got %v\nwant %v", f.Name, got, want)
		}
	}
}

// Branches and tags with retention settings, as the JSON spells them;
// a filter on the type and a column selection.
func TestRefsWithRetention(t *testing.T) {
	const name = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
	var doc jsonTable
	tbl := editedFixture(t, name, func(m map[string]any) {
		snaps := m["snapshots"].([]any)
		first := snaps[0].(map[string]any)["snapshot-id"]
		second := snaps[1].(map[string]any)["snapshot-id"]
		m["refs"] = map[string]any{
			"main":     map[string]any{"snapshot-id": m["current-snapshot-id"], "type": "branch", "min-snapshots-to-keep": 3, "max-snapshot-age-ms": 86400000},
			"audit":    map[string]any{"snapshot-id": second, "type": "branch", "max-ref-age-ms": 604800000},
			"v1.0":     map[string]any{"snapshot-id": first, "type": "tag", "max-ref-age-ms": 31536000000},
			"baseline": map[string]any{"snapshot-id": first, "type": "tag"},
		}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytesReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
	})
	got := tableRows(readAll(t, tbl, Refs, Options{}))
	want := wantRefs(t, doc)
	if len(want) != 4 || !reflect.DeepEqual(got, want) {
		t.Fatalf("refs\n got %v\nwant %v", got, want)
	}
	tags, err := expr.NewPredicate(expr.OpEq, "type", "TAG")
	if err != nil {
		t.Fatal(err)
	}
	got = tableRows(readAll(t, tbl, Refs, Options{Columns: []string{"max_reference_age_in_ms", "name"}, Filter: tags}))
	if !reflect.DeepEqual(got, [][]any{{nil, "baseline"}, {int64(31536000000), "v1.0"}}) {
		t.Fatalf("tags: %v", got)
	}
}
