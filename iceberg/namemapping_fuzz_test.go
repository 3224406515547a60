package iceberg

import (
	"testing"
)

// FuzzNameMapping: any schema.name-mapping.default text either fails to
// parse or yields an effective mapping and a set of unmapped fields that
// hold together: only the schema's fields, each struct's fields unmapped
// with it, and a mapping that contradicts the schema set aside.
func FuzzNameMapping(f *testing.F) {
	schema := NewSchema(0, []NestedField{
		{ID: 1, Name: "id", Type: LongType{}, Required: true},
		{ID: 2, Name: "st", Type: &StructType{Fields: []NestedField{
			{ID: 3, Name: "a", Type: IntType{}},
			{ID: 4, Name: "in", Type: &StructType{Fields: []NestedField{{ID: 5, Name: "x", Type: StringType{}}}}},
		}}},
		{ID: 6, Name: "l", Type: &ListType{ElementID: 7, Element: IntType{}}},
		{ID: 8, Name: "m", Type: &MapType{KeyID: 9, Key: StringType{}, ValueID: 10, Value: DoubleType{}}},
	})
	for _, s := range []string{
		`[]`, `[{"field-id": 1, "names": ["id"]}]`,
		`[{"field-id": 2, "names": ["st"], "fields": [{"field-id": 3, "names": ["a"]}, {"field-id": 4, "names": ["in"], "fields": [{"field-id": 5, "names": ["x"]}]}]}]`,
		`[{"field-id": 6, "names": ["l"], "fields": [{"field-id": 7, "names": ["element"]}]}, {"field-id": 8, "names": ["m"]}]`,
		`[{"field-id": 9, "names": ["id"]}]`, `[{"names": ["id"]}]`, `null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseNameMapping(text)
		if err != nil {
			return
		}
		eff := EffectiveNameMapping(m, schema.Fields)
		if eff != nil && !mappingAgrees(eff, schema.Fields) {
			t.Fatalf("effective mapping %v contradicts the schema", eff)
		}
		unmapped := UnmappedFieldIDs(eff, schema.Fields)
		if eff == nil && unmapped != nil {
			t.Fatalf("no mapping leaves out %v", unmapped)
		}
		for id := range unmapped {
			if _, ok := schema.FindField(id); !ok {
				t.Fatalf("unmapped field %d is not in the schema", id)
			}
			for _, c := range MappedChildren(fieldByID(schema, id).Type) {
				if !unmapped[c.ID] {
					t.Fatalf("field %d is unmapped but its child %d is not", id, c.ID)
				}
			}
		}
	})
}

func fieldByID(s *Schema, id int) NestedField {
	f, _ := s.FindField(id)
	return f
}
