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
