package iceberg

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/floedb/floe/errkind"
)

// Schema is a numbered struct type: the table's columns at one point of its
// evolution.
type Schema struct {
	ID                 int
	Fields             []NestedField
	IdentifierFieldIDs []int

	byID   map[int]NestedField
	byName map[string]int
	parent map[int]int
}

// NewSchema builds a schema and its lookup indexes.
func NewSchema(id int, fields []NestedField, identifierFieldIDs ...int) *Schema {
	s := &Schema{ID: id, Fields: fields, IdentifierFieldIDs: identifierFieldIDs}
	s.index()
	return s
}

// AsStruct views the schema's top-level fields as a struct type.
func (s *Schema) AsStruct() *StructType { return &StructType{Fields: s.Fields} }

func (s *Schema) index() {
	s.byID = map[int]NestedField{}
	s.byName = map[string]int{}
	s.parent = map[int]int{}
	var walk func(prefix string, parent int, t Type)
	add := func(prefix string, parent int, f NestedField) {
		name := f.Name
		if prefix != "" {
			name = prefix + "." + f.Name
		}
		s.byID[f.ID] = f
		if _, dup := s.byName[name]; !dup {
			s.byName[name] = f.ID
		}
		if parent != 0 {
			s.parent[f.ID] = parent
		}
		walk(name, f.ID, f.Type)
	}
	walk = func(prefix string, parent int, t Type) {
		switch t := t.(type) {
		case *StructType:
			for _, f := range t.Fields {
				add(prefix, parent, f)
			}
		case *ListType:
			add(prefix, parent, NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired})
		case *MapType:
			add(prefix, parent, NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true})
			add(prefix, parent, NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired})
		}
	}
	for _, f := range s.Fields {
		add("", 0, f)
	}
}

// FindField returns the field with the given id at any depth; list elements
// and map keys and values are fields named "element", "key" and "value".
func (s *Schema) FindField(id int) (NestedField, bool) {
	if s.byID == nil {
		s.index()
	}
	f, ok := s.byID[id]
	return f, ok
}

// FindFieldByName finds a field by its dotted full name ("a.b.c").
func (s *Schema) FindFieldByName(name string) (NestedField, bool) {
	if s.byName == nil {
		s.index()
	}
	id, ok := s.byName[name]
	if !ok {
		return NestedField{}, false
	}
	return s.byID[id], true
}

// FindFieldByNameCaseInsensitive is FindFieldByName ignoring ASCII and
// Unicode case; an ambiguous name is an error.
func (s *Schema) FindFieldByNameCaseInsensitive(name string) (NestedField, error) {
	if s.byName == nil {
		s.index()
	}
	var found []int
	for n, id := range s.byName {
		if strings.EqualFold(n, name) {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 0:
		return NestedField{}, errkind.Errorf(errkind.InvalidArgument, "no column named %q", name)
	case 1:
		return s.byID[found[0]], nil
	}
	return NestedField{}, &AmbiguousNameError{Name: name}
}

// AmbiguousNameError: a name matches several columns when case is ignored.
type AmbiguousNameError struct{ Name string }

func (e *AmbiguousNameError) Error() string {
	return fmt.Sprintf("column name %q is ambiguous when case is ignored", e.Name)
}

// Unwrap gives the error its kind: the caller must spell the name exactly.
func (e *AmbiguousNameError) Unwrap() error { return errkind.InvalidArgument }

// FullName gives the dotted name of the field with the given id.
func (s *Schema) FullName(id int) (string, bool) {
	if s.byName == nil {
		s.index()
	}
	for n, fid := range s.byName {
		if fid == id {
			return n, true
		}
	}
	return "", false
}

// ParentID gives the id of the field that contains the given one (0 for a
// top-level field).
func (s *Schema) ParentID(id int) int {
	if s.parent == nil {
		s.index()
	}
	return s.parent[id]
}

// HighestFieldID is the largest field id used anywhere in the schema.
func (s *Schema) HighestFieldID() int {
	if s.byID == nil {
		s.index()
	}
	max := 0
	for id := range s.byID {
		if id > max {
			max = id
		}
	}
	return max
}

func (s *Schema) String() string {
	return fmt.Sprintf("schema %d %s", s.ID, s.AsStruct())
}

type jsonSchema struct {
	Type               string      `json:"type"`
	SchemaID           *int        `json:"schema-id,omitempty"`
	IdentifierFieldIDs []int       `json:"identifier-field-ids,omitempty"`
	Fields             []jsonField `json:"fields"`
}

// UnmarshalJSON reads a schema object of table metadata.
func (s *Schema) UnmarshalJSON(b []byte) error {
	var js jsonSchema
	if err := json.Unmarshal(b, &js); err != nil {
		return fmt.Errorf("bad schema: %w", err)
	}
	if js.Type != "" && js.Type != "struct" {
		return fmt.Errorf("schema type must be struct, not %q", js.Type)
	}
	st, err := parseStructFields(js.Fields, 0)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	id := 0
	if js.SchemaID != nil {
		id = *js.SchemaID
	}
	*s = *NewSchema(id, st.Fields, js.IdentifierFieldIDs...)
	return nil
}

// MarshalJSON writes the schema as table metadata stores it.
func (s *Schema) MarshalJSON() ([]byte, error) {
	id := s.ID
	js := jsonSchema{Type: "struct", SchemaID: &id, IdentifierFieldIDs: s.IdentifierFieldIDs, Fields: make([]jsonField, len(s.Fields))}
	for i, f := range s.Fields {
		jf, err := fieldToJSON(f)
		if err != nil {
			return nil, err
		}
		js.Fields[i] = jf
	}
	return json.Marshal(js)
}
