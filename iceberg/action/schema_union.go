package action

import (
	"github.com/floedb/floe/iceberg"
)

// unionByName runs the function UnionByName on the base schema and takes
// what it changed in as pending changes, as Java's union visitor calls
// its UpdateSchema: new columns are additions (with the ids the union
// gave them, counted on from the ids this update already handed out),
// and changed columns are updates, refused when this update deletes them.
func (e *schemaEdit) unionByName(wanted *iceberg.Schema) error {
	merged, last, changed, err := UnionByName(e.base, wanted, e.last, "")
	if err != nil || !changed {
		return err
	}
	if err := e.absorbStruct(rootID, e.base.AsStruct(), merged.AsStruct()); err != nil {
		return err
	}
	e.last = max(e.last, last)
	return nil
}

// absorbStruct takes in the union of one struct: parent is its field.
func (e *schemaEdit) absorbStruct(parent int, base, merged *iceberg.StructType) error {
	prefix := ""
	if parent != rootID {
		prefix = e.fields[parent].name
	}
	for _, m := range merged.Fields {
		b, ok := base.Field(m.ID)
		if !ok {
			name := joinName(prefix, m.Name)
			if _, dup := e.addedName[e.aware(name)]; dup {
				return refuse(name, "cannot add the column twice (the union adds it too)")
			}
			e.pending[m.ID] = m
			e.added[parent] = append(e.added[parent], m.ID)
			e.addedName[e.aware(name)] = m.ID
			e.addedParent[m.ID] = parent
			continue
		}
		if err := e.absorbField(b, m); err != nil {
			return err
		}
	}
	return nil
}

// absorbField takes in the union of one base field (a struct's column, a
// list's element or a map's value): its type when a primitive changed,
// else what changed inside it; becoming optional; doc and write-default.
func (e *schemaEdit) absorbField(b, m iceberg.NestedField) error {
	name := e.fields[b.ID].name
	f := b
	if p, ok := e.pending[b.ID]; ok {
		f = p
	}
	changed := false
	if _, primitive := b.Type.(iceberg.PrimitiveType); primitive {
		if m.Type != b.Type {
			f.Type, f.InitialDefault, f.WriteDefault = m.Type, m.InitialDefault, m.WriteDefault
			changed = true
		}
	} else if err := e.absorbType(b.ID, b.Type, m.Type); err != nil {
		return err
	}
	if f.Required && !m.Required {
		f.Required = false
		delete(e.madeRequired, b.ID)
		changed = true
	}
	if m.Doc != b.Doc {
		f.Doc = m.Doc
		changed = true
	}
	if !sameValue(m.Type, m.WriteDefault, b.WriteDefault) && m.Type == b.Type {
		f.WriteDefault = m.WriteDefault
		changed = true
	}
	if !changed {
		return nil
	}
	if e.deleted(b.ID) {
		return refuse(name, "cannot change a column this update deletes (the union changes it)")
	}
	e.pending[b.ID] = f
	return nil
}

// absorbType takes in what the union changed inside a nested type.
func (e *schemaEdit) absorbType(id int, base, merged iceberg.Type) error {
	switch b := base.(type) {
	case *iceberg.StructType:
		return e.absorbStruct(id, b, merged.(*iceberg.StructType))
	case *iceberg.ListType:
		m := merged.(*iceberg.ListType)
		return e.absorbField(
			iceberg.NestedField{ID: b.ElementID, Name: "element", Type: b.Element, Required: b.ElementRequired},
			iceberg.NestedField{ID: m.ElementID, Name: "element", Type: m.Element, Required: m.ElementRequired})
	case *iceberg.MapType:
		m := merged.(*iceberg.MapType)
		return e.absorbField(
			iceberg.NestedField{ID: b.ValueID, Name: "value", Type: b.Value, Required: b.ValueRequired},
			iceberg.NestedField{ID: m.ValueID, Name: "value", Type: m.Value, Required: m.ValueRequired})
	}
	return nil
}
