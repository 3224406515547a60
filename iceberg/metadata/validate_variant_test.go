package metadata

import "testing"

// withVariant gives the table's schemas a variant column (nested in a
// struct, to show the walk reaches it).
func withVariant(d doc) doc {
	for _, s := range d["schemas"].([]any) {
		s := s.(doc)
		s["fields"] = append(s["fields"].([]any), doc{"id": 100, "name": "payload", "required": false,
			"type": doc{"type": "struct", "fields": []any{doc{"id": 101, "name": "v", "required": false, "type": "variant"}}}})
	}
	return d
}

func TestVariantColumnsNeedFormatVersion3(t *testing.T) {
	m := mustParse(t, withVariant(richV3Table()))
	if f, ok := m.CurrentSchema().FindFieldByName("payload.v"); !ok || f.Type.String() != "variant" {
		t.Fatalf("v3 variant column: %+v", f)
	}
	if _, err := m.MarshalJSON(); err != nil {
		t.Fatalf("writing a v3 table with a variant back: %v", err)
	}
	checkError(t, "v2 with a variant", encode(t, withVariant(rollbackTable())), "column payload.v is a variant, which needs format version 3")
}
