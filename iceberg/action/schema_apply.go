package action

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// apply builds the evolved schema from the pending changes and checks it
// as a whole: names, identifier fields, partition and sort sources and
// what the format version holds.
func (e *schemaEdit) apply() error {
	st, err := e.applyStruct(rootID, e.base.AsStruct())
	if err != nil {
		return err
	}
	if err := checkNames("", st); err != nil {
		return err
	}
	draft := iceberg.NewSchema(0, st.Fields)
	ids, err := e.identifierIDs(draft)
	if err != nil {
		return err
	}
	e.result = iceberg.NewSchema(0, st.Fields, ids...)
	if err := checkIdentifierFields(e.result); err != nil {
		return err
	}
	if err := e.checkSources(); err != nil {
		return err
	}
	if err := CheckSchemaForVersion(e.result, e.md.FormatVersion); err != nil {
		// A table another engine wrote may already hold what its version
		// does not allow; only what this update brings in is refused.
		if CheckSchemaForVersion(e.base, e.md.FormatVersion) == nil {
			return err
		}
	}
	return nil
}

// applyStruct is a struct of the base (or a new one) with its deletes,
// changes, additions and moves applied; parent is its field's id.
func (e *schemaEdit) applyStruct(parent int, st *iceberg.StructType) (*iceberg.StructType, error) {
	fields := make([]iceberg.NestedField, 0, len(st.Fields)+len(e.added[parent]))
	for _, f := range st.Fields {
		if e.deletes[f.ID] {
			continue
		}
		if p, ok := e.pending[f.ID]; ok {
			f = p
		}
		t, err := e.applyType(f.ID, f.Type)
		if err != nil {
			return nil, err
		}
		f.Type = t
		fields = append(fields, f)
	}
	for _, id := range e.added[parent] {
		fields = append(fields, e.pending[id])
	}
	fields, err := e.moveFields(fields, e.moves[parent])
	if err != nil {
		return nil, err
	}
	return &iceberg.StructType{Fields: fields}, nil
}

// applyType applies the changes inside the type of field id: the fields
// of a struct, a list's element, a map's value (keys never change).
func (e *schemaEdit) applyType(id int, t iceberg.Type) (iceberg.Type, error) {
	switch t := t.(type) {
	case *iceberg.StructType:
		return e.applyStruct(id, t)
	case *iceberg.ListType:
		out := *t
		if p, ok := e.pending[t.ElementID]; ok {
			out.Element, out.ElementRequired = p.Type, p.Required
		}
		var err error
		if out.Element, err = e.applyType(t.ElementID, out.Element); err != nil {
			return nil, err
		}
		return &out, nil
	case *iceberg.MapType:
		out := *t
		if p, ok := e.pending[t.ValueID]; ok {
			out.Value, out.ValueRequired = p.Type, p.Required
		}
		var err error
		if out.Value, err = e.applyType(t.ValueID, out.Value); err != nil {
			return nil, err
		}
		return &out, nil
	}
	return t, nil
}

// moveFields applies a struct's moves in the order they were asked for.
func (e *schemaEdit) moveFields(fields []iceberg.NestedField, moves []schemaMove) ([]iceberg.NestedField, error) {
	index := func(id int) int {
		return slices.IndexFunc(fields, func(f iceberg.NestedField) bool { return f.ID == id })
	}
	for _, m := range moves {
		from := index(m.id)
		if from < 0 {
			return nil, refuse(e.nameOf(m.id), "cannot move the column: it is deleted by this update")
		}
		f := fields[from]
		fields = slices.Delete(fields, from, from+1)
		at := 0
		if m.kind != moveFirst {
			if at = index(m.ref); at < 0 {
				return nil, refuse(e.nameOf(m.id), "cannot move the column next to %q: it is deleted by this update", e.nameOf(m.ref))
			}
			if m.kind == moveAfter {
				at++
			}
		}
		fields = slices.Insert(fields, at, f)
	}
	return fields, nil
}

// nameOf names a base or added column in messages.
func (e *schemaEdit) nameOf(id int) string {
	if b, ok := e.fields[id]; ok {
		return b.name
	}
	for n, added := range e.addedName {
		if added == id {
			return n
		}
	}
	return ""
}

// checkNames refuses two columns of one struct with the same name (a
// rename or an addition onto a name in use).
func checkNames(prefix string, t iceberg.Type) error {
	switch t := t.(type) {
	case *iceberg.StructType:
		seen := make(map[string]bool, len(t.Fields))
		for _, f := range t.Fields {
			name := joinName(prefix, f.Name)
			if seen[f.Name] {
				return refuse(name, "two columns would have this name")
			}
			seen[f.Name] = true
			if err := checkNames(name, f.Type); err != nil {
				return err
			}
		}
	case *iceberg.ListType:
		return checkNames(joinName(prefix, "element"), t.Element)
	case *iceberg.MapType:
		return checkNames(joinName(prefix, "value"), t.Value)
	}
	return nil
}

// identifierIDs are the evolved schema's identifier fields: the base's,
// which must not be deleted, or those SetIdentifierFields names in the
// evolved schema.
func (e *schemaEdit) identifierIDs(evolved *iceberg.Schema) ([]int, error) {
	if !e.identifierSet {
		for _, id := range e.base.IdentifierFieldIDs {
			if e.deleted(id) {
				return nil, refuse(e.nameOf(id), "cannot delete an identifier field (or a column holding one); set the identifier fields without it first")
			}
		}
		return slices.Clone(e.base.IdentifierFieldIDs), nil
	}
	ids := make([]int, 0, len(e.identifierNames))
	for _, name := range e.identifierNames {
		var f iceberg.NestedField
		var ok bool
		if e.caseSensitive {
			f, ok = evolved.FindFieldByName(name)
		} else {
			var err error
			f, err = evolved.FindFieldByNameCaseInsensitive(name)
			ok = err == nil
		}
		if !ok {
			return nil, refuse(name, "cannot be an identifier field: no such column in the evolved schema")
		}
		if !slices.Contains(ids, f.ID) {
			ids = append(ids, f.ID)
		}
	}
	return ids, nil
}

// checkIdentifierFields applies the spec's rules to identifier fields:
// required primitives, not float or double, reached through required
// struct fields only (not lists, maps or optional structs).
func checkIdentifierFields(s *iceberg.Schema) error {
	for _, id := range s.IdentifierFieldIDs {
		f, ok := s.FindField(id)
		name, _ := s.FullName(id)
		if !ok {
			return refuse(name, "identifier field id %d is not in the schema", id)
		}
		switch f.Type.(type) {
		case iceberg.FloatType, iceberg.DoubleType:
			return refuse(name, "a %s column cannot be an identifier field", f.Type)
		case iceberg.PrimitiveType:
		default:
			return refuse(name, "a %s cannot be an identifier field: only primitive columns can", typeText(f.Type))
		}
		if !f.Required {
			return refuse(name, "an identifier field must be required")
		}
		// Schema indexes a list's element and a map's key and value as
		// fields under it, so a list or map shows as an ancestor that is
		// not a struct.
		for p := s.ParentID(id); p != 0; p = s.ParentID(p) {
			if parent, _ := s.FindField(p); !isStructType(parent.Type) {
				pname, _ := s.FullName(p)
				return refuse(name, "an identifier field cannot be inside a list or a map (%s)", pname)
			}
		}
		for p := s.ParentID(id); p != 0; p = s.ParentID(p) {
			if parent, _ := s.FindField(p); !parent.Required {
				pname, _ := s.FullName(p)
				return refuse(name, "an identifier field cannot be inside the optional struct %s", pname)
			}
		}
	}
	return nil
}

func isStructType(t iceberg.Type) bool { _, ok := t.(*iceberg.StructType); return ok }

// updates are the metadata updates that make the evolved schema current,
// then those of the properties that name columns.
func (e *schemaEdit) updates() ([]metadata.Update, error) {
	if sameSchema(e.result, e.base) {
		return nil, nil
	}
	props := e.propertyUpdates()
	next := 0
	for _, s := range e.md.Schemas {
		if sameSchema(e.result, s) {
			return append([]metadata.Update{metadata.SetCurrentSchema{SchemaID: s.ID}}, props...), nil
		}
		next = max(next, s.ID+1)
	}
	s := iceberg.NewSchema(next, e.result.Fields, e.result.IdentifierFieldIDs...)
	return append([]metadata.Update{metadata.AddSchema{Schema: s}, metadata.SetCurrentSchema{SchemaID: -1}}, props...), nil
}

// sameSchema compares two schemas but for their ids, by their JSON form
// (which covers docs and defaults exactly).
func sameSchema(a, b *iceberg.Schema) bool {
	form := func(s *iceberg.Schema) []byte {
		ids := slices.Sorted(slices.Values(s.IdentifierFieldIDs))
		raw, err := json.Marshal(iceberg.NewSchema(0, s.Fields, ids...))
		if err != nil {
			return nil
		}
		return raw
	}
	fa, fb := form(a), form(b)
	return fa != nil && bytes.Equal(fa, fb)
}
