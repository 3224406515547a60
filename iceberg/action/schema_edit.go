package action

import (
	"fmt"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// rootID is the parent of top-level columns.
const rootID = -1

// Where a field sits in its parent.
const (
	inStruct = iota
	isElement
	isKey
	isValue
)

// baseField is a field of the schema an update starts from.
type baseField struct {
	field  iceberg.NestedField
	parent int // rootID at the top level
	kind   int
	name   string // full dotted name
}

// schemaEdit is one build of an UpdateSchema: the pending changes to the
// base schema, kept by field id as Java's SchemaUpdate keeps them, so
// that names always mean the base schema's columns (or added ones).
type schemaEdit struct {
	md   *metadata.Metadata
	base *iceberg.Schema
	// fields indexes the base schema by id; byName by full name.
	fields map[int]*baseField
	byName map[string]int
	// last is the highest field id assigned (last-column-id, then each
	// new id).
	last int

	caseSensitive     bool
	allowIncompatible bool

	deletes map[int]bool
	// pending holds each changed or added field as it will be (its type
	// is the base type unless a primitive's type changed).
	pending map[int]iceberg.NestedField
	// added lists the ids added to each parent, in order; addedName
	// finds them by full name, addedParent gives their parent.
	added       map[int][]int
	addedName   map[string]int
	addedParent map[int]int
	moves       map[int][]schemaMove
	// madeRequired are base columns this update makes required.
	madeRequired map[int]bool

	identifierNames []string
	identifierSet   bool

	// result is the evolved schema (apply).
	result *iceberg.Schema
}

func newSchemaEdit(md *metadata.Metadata) (*schemaEdit, error) {
	base := md.CurrentSchema()
	if base == nil {
		return nil, invalid("the table has no current schema (%d)", md.CurrentSchemaID)
	}
	e := &schemaEdit{md: md, base: base, last: md.LastColumnID, caseSensitive: true,
		fields: map[int]*baseField{}, byName: map[string]int{},
		deletes: map[int]bool{}, pending: map[int]iceberg.NestedField{},
		added: map[int][]int{}, addedName: map[string]int{}, addedParent: map[int]int{},
		moves: map[int][]schemaMove{}, madeRequired: map[int]bool{}}
	if err := e.index(rootID, "", base.AsStruct(), 0); err != nil {
		return nil, err
	}
	if h := base.HighestFieldID(); h > e.last {
		e.last = h
	}
	return e, nil
}

// index records every field of t under parent.
func (e *schemaEdit) index(parent int, prefix string, t iceberg.Type, depth int) error {
	if depth > iceberg.MaxTypeDepth {
		return refuse(prefix, "type nesting deeper than %d", iceberg.MaxTypeDepth)
	}
	put := func(f iceberg.NestedField, kind int) error {
		name := joinName(prefix, f.Name)
		if _, dup := e.fields[f.ID]; dup {
			return refuse(name, "field id %d is used twice in the table's schema", f.ID)
		}
		e.fields[f.ID] = &baseField{field: f, parent: parent, kind: kind, name: name}
		if _, dup := e.byName[name]; !dup {
			e.byName[name] = f.ID
		}
		return e.index(f.ID, name, f.Type, depth+1)
	}
	switch t := t.(type) {
	case *iceberg.StructType:
		for _, f := range t.Fields {
			if err := put(f, inStruct); err != nil {
				return err
			}
		}
	case *iceberg.ListType:
		return put(iceberg.NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired}, isElement)
	case *iceberg.MapType:
		if err := put(iceberg.NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true}, isKey); err != nil {
			return err
		}
		return put(iceberg.NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired}, isValue)
	}
	return nil
}

// refuse is a refusal naming the column; the table is named by Build.
func refuse(column, format string, args ...any) error {
	return &SchemaUpdateError{Column: column, Reason: fmt.Sprintf(format, args...)}
}

// aware is a name as the case sensitivity in force compares it.
func (e *schemaEdit) aware(name string) string {
	if e.caseSensitive {
		return name
	}
	return strings.ToLower(name)
}

// find resolves a name of the base schema.
func (e *schemaEdit) find(name string) (*baseField, error) {
	if e.caseSensitive {
		if id, ok := e.byName[name]; ok {
			return e.fields[id], nil
		}
		return nil, nil
	}
	var found *baseField
	for n, id := range e.byName {
		if strings.EqualFold(n, name) {
			if found != nil {
				return nil, refuse(name, "the name is ambiguous when case is ignored (%q, %q)", found.name, n)
			}
			found = e.fields[id]
		}
	}
	return found, nil
}

// deleted reports whether the field or one holding it is deleted.
func (e *schemaEdit) deleted(id int) bool {
	for id != rootID {
		if e.deletes[id] {
			return true
		}
		if f, ok := e.fields[id]; ok {
			id = f.parent
		} else if p, ok := e.addedParent[id]; ok {
			id = p
		} else {
			return false
		}
	}
	return false
}

// inMapKey reports whether a base field is a map key or inside one.
func (e *schemaEdit) inMapKey(id int) bool {
	for id != rootID {
		f := e.fields[id]
		if f == nil {
			return false
		}
		if f.kind == isKey {
			return true
		}
		id = f.parent
	}
	return false
}

// forUpdate finds a column to change: a base column (with its pending
// changes) or one this update added. It refuses a missing column, a
// deleted one and map keys, which never change.
func (e *schemaEdit) forUpdate(name, what string) (id int, f iceberg.NestedField, kind int, err error) {
	b, err := e.find(name)
	if err != nil {
		return 0, f, 0, err
	}
	if b == nil {
		addedID, ok := e.addedName[e.aware(name)]
		if !ok {
			return 0, f, 0, refuse(name, "cannot %s: no such column", what)
		}
		return addedID, e.pending[addedID], inStruct, nil
	}
	if e.deleted(b.field.ID) {
		return 0, f, 0, refuse(name, "cannot %s: the column is deleted by this update", what)
	}
	if e.inMapKey(b.field.ID) {
		return 0, f, 0, refuse(name, "cannot %s: map keys cannot change", what)
	}
	if p, ok := e.pending[b.field.ID]; ok {
		return b.field.ID, p, b.kind, nil
	}
	return b.field.ID, b.field, b.kind, nil
}

// nextID hands out the next field id.
func (e *schemaEdit) nextID(name string) (int, error) {
	if e.last >= highestAssignableFieldID {
		return 0, refuse(name, "no field id left to assign: ids above %d are reserved", highestAssignableFieldID)
	}
	e.last++
	return e.last, nil
}

func (e *schemaEdit) addColumn(parentName, name string, t iceberg.Type, o ColumnOptions) error {
	path := joinName(parentName, name)
	parentID, fullName := rootID, name
	if parentName != "" {
		p, err := e.find(parentName)
		if err != nil {
			return err
		}
		if p == nil {
			return refuse(path, "cannot add a column to %q: no such column", parentName)
		}
		id, pt := p.field.ID, p.field.Type
		switch x := pt.(type) {
		case *iceberg.ListType:
			id, pt = x.ElementID, x.Element
		case *iceberg.MapType:
			id, pt = x.ValueID, x.Value
		}
		if _, ok := pt.(*iceberg.StructType); !ok {
			return refuse(path, "cannot add a column to %q, a %s: only structs have columns", parentName, typeText(pt))
		}
		if e.deleted(id) {
			return refuse(path, "cannot add a column to %q: it is deleted by this update", parentName)
		}
		if e.inMapKey(id) {
			return refuse(path, "cannot add a column to a map key")
		}
		parentID, fullName = id, joinName(e.fields[id].name, name)
	}
	if existing, err := e.find(fullName); err != nil {
		return err
	} else if existing != nil && !e.deletes[existing.field.ID] {
		return refuse(fullName, "cannot add the column: the name exists")
	}
	if _, dup := e.addedName[e.aware(fullName)]; dup {
		return refuse(fullName, "cannot add the column twice")
	}
	if t == nil {
		return refuse(fullName, "a new column needs a type")
	}
	if o.WriteDefault == nil {
		o.WriteDefault = o.InitialDefault
	}
	if o.Required && o.InitialDefault == nil && !e.allowIncompatible {
		return refuse(fullName, "cannot add a required column without an initial-default: rows written before it would have no value (allow incompatible changes to add it anyway)")
	}
	id, err := e.nextID(fullName)
	if err != nil {
		return err
	}
	f := iceberg.NestedField{ID: id, Name: name, Required: o.Required, Doc: o.Doc,
		InitialDefault: o.InitialDefault, WriteDefault: o.WriteDefault}
	if f.Type, err = e.freshType(fullName, t, 0); err != nil {
		return err
	}
	for _, d := range []struct {
		which string
		v     any
	}{{"initial-default", f.InitialDefault}, {"write-default", f.WriteDefault}} {
		if err := e.checkDefault(fullName, d.which, f.Type, d.v); err != nil {
			return err
		}
	}
	e.pending[id] = f
	e.added[parentID] = append(e.added[parentID], id)
	e.addedName[e.aware(fullName)] = id
	e.addedParent[id] = parentID
	return nil
}

// freshType copies a new column's type with fresh ids: a struct's own
// fields first, then what each holds (Java's assignFreshIds order).
func (e *schemaEdit) freshType(name string, t iceberg.Type, depth int) (iceberg.Type, error) {
	if depth > iceberg.MaxTypeDepth {
		return nil, refuse(name, "type nesting deeper than %d", iceberg.MaxTypeDepth)
	}
	var err error
	switch t := t.(type) {
	case *iceberg.StructType:
		out := &iceberg.StructType{Fields: make([]iceberg.NestedField, len(t.Fields))}
		seen := map[string]bool{}
		for i, f := range t.Fields {
			child := joinName(name, f.Name)
			if f.Name == "" || seen[f.Name] {
				return nil, refuse(child, "a new struct's fields need distinct, non-empty names")
			}
			seen[f.Name] = true
			out.Fields[i] = f
			if out.Fields[i].ID, err = e.nextID(child); err != nil {
				return nil, err
			}
		}
		for i := range out.Fields {
			f := &out.Fields[i]
			child := joinName(name, f.Name)
			if f.Type, err = e.freshType(child, f.Type, depth+1); err != nil {
				return nil, err
			}
			if err := e.checkDefault(child, "initial-default", f.Type, f.InitialDefault); err != nil {
				return nil, err
			}
			if err := e.checkDefault(child, "write-default", f.Type, f.WriteDefault); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *iceberg.ListType:
		out := *t
		if out.ElementID, err = e.nextID(joinName(name, "element")); err != nil {
			return nil, err
		}
		if out.Element, err = e.freshType(joinName(name, "element"), t.Element, depth+1); err != nil {
			return nil, err
		}
		return &out, nil
	case *iceberg.MapType:
		out := *t
		if out.KeyID, err = e.nextID(joinName(name, "key")); err != nil {
			return nil, err
		}
		if out.ValueID, err = e.nextID(joinName(name, "value")); err != nil {
			return nil, err
		}
		if out.Key, err = e.freshType(joinName(name, "key"), t.Key, depth+1); err != nil {
			return nil, err
		}
		if out.Value, err = e.freshType(joinName(name, "value"), t.Value, depth+1); err != nil {
			return nil, err
		}
		return &out, nil
	case iceberg.PrimitiveType:
		if err := validPrimitive(t); err != nil {
			return nil, refuse(name, "%v", err)
		}
		return t, nil
	case nil:
		return nil, refuse(name, "a new column needs a type")
	}
	return nil, refuse(name, "unsupported type %v", t)
}

// checkDefault checks a default value: format version 3 only, of the
// column's type, and null for the types that have no other default.
func (e *schemaEdit) checkDefault(name, which string, t iceberg.Type, v any) error {
	if v == nil {
		return nil
	}
	if e.md.FormatVersion < 3 {
		return refuse(name, "a %s needs format version 3 (the table is version %d)", which, e.md.FormatVersion)
	}
	if _, ok := t.(iceberg.UnknownType); ok || iceberg.IsGeo(t) || iceberg.IsVariant(t) {
		return refuse(name, "a %s column must default to null, not %v", t, v)
	}
	if _, err := iceberg.ValueToJSON(t, v); err != nil {
		return refuse(name, "%s %v is not a %s value: %v", which, v, typeText(t), err)
	}
	return nil
}

func (e *schemaEdit) deleteColumn(name string) error {
	b, err := e.find(name)
	if err != nil {
		return err
	}
	if b == nil {
		if _, ok := e.addedName[e.aware(name)]; ok {
			return refuse(name, "cannot delete a column this update adds")
		}
		return refuse(name, "cannot delete: no such column")
	}
	switch b.kind {
	case isElement, isKey, isValue:
		return refuse(name, "cannot delete a list element or a map key or value; delete the list or map")
	}
	id := b.field.ID
	if len(e.added[id]) > 0 {
		return refuse(name, "cannot delete a column this update adds columns to")
	}
	if _, ok := e.pending[id]; ok {
		return refuse(name, "cannot delete a column this update changes")
	}
	e.deletes[id] = true
	return nil
}

func (e *schemaEdit) renameColumn(name, newName string) error {
	id, f, kind, err := e.forUpdate(name, "rename")
	if err != nil {
		return err
	}
	if kind != inStruct {
		return refuse(name, "cannot rename a list element or a map key or value")
	}
	f.Name = newName
	e.pending[id] = f
	return nil
}

func (e *schemaEdit) updateType(name string, t iceberg.PrimitiveType) error {
	id, f, _, err := e.forUpdate(name, "change its type")
	if err != nil {
		return err
	}
	if t == nil {
		return refuse(name, "cannot change type to no type")
	}
	if f.Type == iceberg.Type(t) {
		return nil
	}
	from, ok := f.Type.(iceberg.PrimitiveType)
	if !ok || !e.promotable(from, t) {
		return refuse(name, "cannot change type from %s to %s: not one of the spec's promotions%s", typeText(f.Type), t, e.promotionHint(f.Type, t))
	}
	if err := validPrimitive(t); err != nil {
		return refuse(name, "%v", err)
	}
	old := f.Type
	f.Type = t
	f.InitialDefault, _ = convertValue(old, t, f.InitialDefault)
	f.WriteDefault, _ = convertValue(old, t, f.WriteDefault)
	e.pending[id] = f
	return nil
}

// promotable extends the promotions of every format version with v3's
// date→timestamp(_ns) (unknown exists only in v3).
func (e *schemaEdit) promotable(from, to iceberg.PrimitiveType) bool {
	if canPromote(from, to) {
		return true
	}
	if _, isDate := from.(iceberg.DateType); isDate && e.md.FormatVersion >= 3 {
		switch to.(type) {
		case iceberg.TimestampType, iceberg.TimestampNsType:
			return true
		}
	}
	return false
}

func (e *schemaEdit) promotionHint(from iceberg.Type, to iceberg.PrimitiveType) string {
	if _, isDate := from.(iceberg.DateType); isDate && e.md.FormatVersion < 3 {
		switch to.(type) {
		case iceberg.TimestampType, iceberg.TimestampNsType:
			return fmt.Sprintf(" (date→%s needs format version 3; the table is version %d)", to, e.md.FormatVersion)
		}
	}
	return ""
}

func (e *schemaEdit) updateDoc(name, doc string) error {
	id, f, kind, err := e.forUpdate(name, "change its doc")
	if err != nil {
		return err
	}
	if kind != inStruct {
		return refuse(name, "a list element or a map key or value has no doc")
	}
	if f.Doc == doc {
		return nil
	}
	f.Doc = doc
	e.pending[id] = f
	return nil
}

func (e *schemaEdit) updateDefault(name string, v any) error {
	id, f, kind, err := e.forUpdate(name, "change its write-default")
	if err != nil {
		return err
	}
	if kind != inStruct {
		return refuse(name, "a list element or a map key or value has no default")
	}
	if err := e.checkDefault(name, "write-default", f.Type, v); err != nil {
		return err
	}
	if sameValue(f.Type, v, f.WriteDefault) {
		return nil
	}
	f.WriteDefault = v
	e.pending[id] = f
	return nil
}

func (e *schemaEdit) setRequired(name string, required bool) error {
	what := "make it optional"
	if required {
		what = "make it required"
	}
	id, f, _, err := e.forUpdate(name, what)
	if err != nil {
		return err
	}
	if f.Required == required {
		return nil
	}
	_, isAdded := e.addedParent[id]
	if required && isAdded && f.InitialDefault == nil && !e.allowIncompatible {
		return refuse(name, "cannot require a column this update adds without an initial-default: rows written before have no value (allow incompatible changes to do it anyway)")
	}
	if required && !isAdded {
		e.madeRequired[id] = true
	}
	if !required {
		delete(e.madeRequired, id)
	}
	f.Required = required
	e.pending[id] = f
	return nil
}

// The kinds of move.
const (
	moveFirst = iota
	moveBefore
	moveAfter
)

type schemaMove struct {
	id, kind, ref int
}

// forMove finds a column to move: one this update added, else a base
// column. parent is its struct.
func (e *schemaEdit) forMove(name string) (id, parent int, err error) {
	if id, ok := e.addedName[e.aware(name)]; ok {
		return id, e.addedParent[id], nil
	}
	b, err := e.find(name)
	if err != nil {
		return 0, 0, err
	}
	if b == nil {
		return 0, 0, refuse(name, "cannot move: no such column")
	}
	if b.kind != inStruct {
		return 0, 0, refuse(name, "cannot move a list element or a map key or value")
	}
	if e.deleted(b.field.ID) {
		return 0, 0, refuse(name, "cannot move: the column is deleted by this update")
	}
	return b.field.ID, b.parent, nil
}

func (e *schemaEdit) move(name string, kind int, ref string) error {
	id, parent, err := e.forMove(name)
	if err != nil {
		return err
	}
	m := schemaMove{id: id, kind: kind}
	if kind != moveFirst {
		refID, refParent, err := e.forMove(ref)
		if err != nil {
			return err
		}
		if refID == id {
			return refuse(name, "cannot move a column relative to itself")
		}
		if refParent != parent {
			return refuse(name, "cannot move the column relative to %q, which is in another struct", ref)
		}
		m.ref = refID
	}
	e.moves[parent] = append(e.moves[parent], m)
	return nil
}
