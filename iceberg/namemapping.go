package iceberg

import (
	"encoding/json"
	"fmt"
)

// MappedField maps the names a file may use for a column onto a field id
// (table property schema.name-mapping.default), for files written without
// field ids.
type MappedField struct {
	FieldID *int          `json:"field-id,omitempty"`
	Names   []string      `json:"names"`
	Fields  []MappedField `json:"fields,omitempty"`
}

// NameMapping is the top level of a name mapping.
type NameMapping []MappedField

// ParseNameMapping reads the JSON of schema.name-mapping.default.
func ParseNameMapping(s string) (NameMapping, error) {
	var m NameMapping
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("bad name mapping: %w", err)
	}
	return m, nil
}

// Find returns the mapped field for a name among these fields.
func (m NameMapping) Find(name string) (MappedField, bool) {
	for _, f := range m {
		for _, n := range f.Names {
			if n == name {
				return f, true
			}
		}
	}
	return MappedField{}, false
}

// EffectiveNameMapping is the name mapping to read files without field ids
// by: the table's schema.name-mapping.default when it agrees with the
// schema (every mapped name the schema has at that place carries the same
// id), else nil, which means the schema's own names. That is how Hive and
// Impala resolve migrated files (a Hive-migrated table whose mapping
// numbers fields depth-first, unlike its schema); reading by a mapping
// that contradicts the schema would return the wrong columns. fields are
// the whole schema's, so that every reader of a table, whatever it
// projects, decides alike.
func EffectiveNameMapping(m NameMapping, fields []NestedField) NameMapping {
	if m != nil && mappingAgrees(m, fields) {
		return m
	}
	return nil
}

func mappingAgrees(m NameMapping, fields []NestedField) bool {
	for _, f := range fields {
		mf, ok := m.Find(f.Name)
		if !ok {
			continue // the mapping may name fewer fields than the schema
		}
		if mf.FieldID == nil || *mf.FieldID != f.ID {
			return false
		}
		if !mappingAgrees(mf.Fields, MappedChildren(f.Type)) {
			return false
		}
	}
	return true
}

// MappingFromFields is the name mapping that maps every field by its own
// name.
func MappingFromFields(fields []NestedField) NameMapping {
	out := make(NameMapping, len(fields))
	for i, f := range fields {
		id := f.ID
		out[i] = MappedField{FieldID: &id, Names: []string{f.Name}, Fields: MappingFromFields(MappedChildren(f.Type))}
	}
	return out
}

// MappedChildren are the fields one level below a type, with list
// elements and map keys and values named as name mappings name them.
func MappedChildren(t Type) []NestedField {
	switch t := t.(type) {
	case *StructType:
		return t.Fields
	case *ListType:
		return []NestedField{{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired}}
	case *MapType:
		return []NestedField{
			{ID: t.KeyID, Name: "key", Type: t.Key, Required: true},
			{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired},
		}
	}
	return nil
}

// UnmappedFieldIDs lists the fields, at any depth, that a file without
// field ids cannot hold under mapping m (an effective mapping: nil maps
// every field by name): fields m leaves out, and everything below them.
// Such a field reads as its initial-default or null in those files,
// whatever their columns or the manifests' metrics say.
func UnmappedFieldIDs(m NameMapping, fields []NestedField) map[int]bool {
	if m == nil {
		return nil
	}
	out := map[int]bool{}
	var walk func(m NameMapping, fields []NestedField, lost bool)
	walk = func(m NameMapping, fields []NestedField, lost bool) {
		for _, f := range fields {
			var sub NameMapping
			found := false
			if !lost {
				for _, mf := range m {
					if mf.FieldID != nil && *mf.FieldID == f.ID {
						sub, found = mf.Fields, true
						break
					}
				}
			}
			if !found {
				out[f.ID] = true
			}
			walk(sub, MappedChildren(f.Type), !found)
		}
	}
	walk(m, fields, false)
	return out
}
