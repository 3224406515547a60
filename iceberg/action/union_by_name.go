package action

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// highestAssignableFieldID is the largest id a new column may get: the spec
// reserves the ids above it for metadata columns (_file, _pos, …).
const highestAssignableFieldID = 2147483447

// SchemaUpdateError says why a table's schema cannot be changed as asked
// (by UnionByName or UpdateSchema), naming the table and the column by its
// dotted full name (list
// elements and map keys and values are "element", "key" and "value", as
// Schema.FindFieldByName spells them).
type SchemaUpdateError struct {
	Table  string
	Column string
	Reason string
}

func (e *SchemaUpdateError) Error() string {
	if e.Table == "" {
		return fmt.Sprintf("column %q: %s", e.Column, e.Reason)
	}
	return fmt.Sprintf("table %q: column %q: %s", e.Table, e.Column, e.Reason)
}

// Unwrap gives the error its kind: the wanted schema does not fit the
// table's.
func (e *SchemaUpdateError) Unwrap() error { return errkind.InvalidArgument }

// UnionByName brings current up to wanted by column name: what ensure_table
// does to an existing table before writing data of the wanted schema.
//
//   - Columns of wanted that current lacks are added at any depth (inside
//     structs, list elements and map values), each at the end of its struct.
//     New ids count up from lastColumnID, the table's highest id ever
//     assigned, so an id of a dropped column is never reused; a new struct's
//     own fields are numbered right after it, before their children.
//   - A column required in current but optional in wanted becomes optional.
//     A column optional in current but required in wanted stays optional:
//     the table already accepts every value wanted describes.
//   - Columns wanted lacks are kept, unless they are required with no
//     write-default: data of the wanted schema could not fill them.
//   - A type change is refused, except the spec's safe promotions int→long,
//     float→double, decimal(P,S)→decimal(P',S) with P'>P and unknown→any
//     type. date→timestamp(_ns) is refused too: it is v3 only and forbidden
//     on partition sources, neither of which is known here. A wanted type
//     narrower than the table's (int where the table has long) is accepted
//     and changes nothing, since the table's type holds its values. Map keys
//     never change.
//   - A new required column needs both an initial-default and a
//     write-default (rows written before it existed must read as something);
//     inside a new optional struct, required fields need none.
//   - A field id > 0 in wanted is a claim: on an existing column it must be
//     the table's id for it; on a new column it is honoured if above
//     lastColumnID and refused otherwise (that id belongs, or belonged, to
//     another column). An id ≤ 0 means "no id given".
//   - Docs and write-defaults given by wanted replace the table's; an
//     initial-default given by wanted must equal the table's, since it is
//     fixed when the column is added. New columns keep their doc and
//     defaults. Defaults follow a promotion (an int default becomes a long).
//
// The result keeps current's field order and identifier fields and has
// schema id current.ID+1; when nothing changes it is current itself,
// newLastColumnID is lastColumnID and changed is false. Neither input is
// modified. The caller must still check that the result suits the table's
// format version (defaults, unknown and nanosecond types need v3).
// Refusals are *SchemaUpdateError.
func UnionByName(current *iceberg.Schema, wanted *iceberg.Schema, lastColumnID int, tableName string) (updated *iceberg.Schema, newLastColumnID int, changed bool, err error) {
	if current == nil || wanted == nil {
		return nil, 0, false, fmt.Errorf("table %q: union by name needs both the table's schema and the wanted one", tableName)
	}
	u := &schemaUnion{table: tableName, lastColumnID: lastColumnID, next: lastColumnID,
		tableIDs: map[int]string{}, givenIDs: map[int]string{}, identifier: map[int]bool{}}
	if err := u.collectIDs(current.AsStruct(), "", u.tableIDs, true, 0); err != nil {
		return nil, 0, false, err
	}
	if highest := current.HighestFieldID(); highest > lastColumnID {
		return nil, 0, false, fmt.Errorf("table %q: last-column-id %d is below field id %d of the table's schema", tableName, lastColumnID, highest)
	}
	if err := u.collectIDs(wanted.AsStruct(), "", u.givenIDs, false, 0); err != nil {
		return nil, 0, false, err
	}
	for _, id := range current.IdentifierFieldIDs {
		u.identifier[id] = true
	}
	merged, changed, err := u.mergeStruct("", current.AsStruct(), wanted.AsStruct(), false, 0)
	if err != nil {
		return nil, 0, false, err
	}
	if !changed {
		return current, lastColumnID, false, nil
	}
	ids := append([]int(nil), current.IdentifierFieldIDs...)
	return iceberg.NewSchema(current.ID+1, merged.Fields, ids...), u.next, true, nil
}

// schemaUnion carries what one UnionByName call learns on its way down.
type schemaUnion struct {
	table        string
	lastColumnID int
	// next is the highest id handed out so far (or lastColumnID).
	next int
	// tableIDs names the table's columns by id, for messages; givenIDs holds
	// every id > 0 of the wanted schema, which fresh ids must skip.
	tableIDs   map[int]string
	givenIDs   map[int]string
	identifier map[int]bool
}

func (u *schemaUnion) refuse(column, format string, args ...any) error {
	return &SchemaUpdateError{Table: u.table, Column: column, Reason: fmt.Sprintf(format, args...)}
}

func joinName(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// collectIDs records every field id of a type by its full name. A duplicate
// id is refused: in the table it is corrupt metadata, in wanted two columns
// claiming one id. Ids ≤ 0 in wanted mean "none given" and are skipped.
func (u *schemaUnion) collectIDs(t iceberg.Type, path string, into map[int]string, inTable bool, depth int) error {
	if depth > iceberg.MaxTypeDepth {
		return u.refuse(path, "type nesting deeper than %d", iceberg.MaxTypeDepth)
	}
	whose := "the wanted schema"
	if inTable {
		whose = "the table's schema"
	}
	record := func(id int, name string) error {
		if id <= 0 && !inTable {
			return nil
		}
		if other, dup := into[id]; dup {
			return u.refuse(name, "field id %d is also given to column %q in %s", id, other, whose)
		}
		into[id] = name
		return nil
	}
	switch t := t.(type) {
	case *iceberg.StructType:
		names := make(map[string]bool, len(t.Fields))
		for _, f := range t.Fields {
			name := joinName(path, f.Name)
			if names[f.Name] {
				return u.refuse(name, "%s names two columns so", whose)
			}
			names[f.Name] = true
			if err := record(f.ID, name); err != nil {
				return err
			}
			if err := u.collectIDs(f.Type, name, into, inTable, depth+1); err != nil {
				return err
			}
		}
	case *iceberg.ListType:
		name := joinName(path, "element")
		if err := record(t.ElementID, name); err != nil {
			return err
		}
		return u.collectIDs(t.Element, name, into, inTable, depth+1)
	case *iceberg.MapType:
		key, value := joinName(path, "key"), joinName(path, "value")
		if err := record(t.KeyID, key); err != nil {
			return err
		}
		if err := record(t.ValueID, value); err != nil {
			return err
		}
		if err := u.collectIDs(t.Key, key, into, inTable, depth+1); err != nil {
			return err
		}
		return u.collectIDs(t.Value, value, into, inTable, depth+1)
	case nil:
		return u.refuse(path, "%s has a column without a type", whose)
	}
	return nil
}

// mergeStruct unions a struct of the table with the wanted struct of the
// same name: the table's fields in their order, then the new ones in wanted
// order.
func (u *schemaUnion) mergeStruct(path string, cur, want *iceberg.StructType, inMapKey bool, depth int) (*iceberg.StructType, bool, error) {
	wantByName := make(map[string]int, len(want.Fields))
	for i, f := range want.Fields {
		wantByName[f.Name] = i // names are unique: collectIDs checked
	}
	curNames := make(map[string]bool, len(cur.Fields))
	fields := make([]iceberg.NestedField, 0, len(cur.Fields)+len(want.Fields))
	changed := false
	for _, cf := range cur.Fields {
		curNames[cf.Name] = true
		i, ok := wantByName[cf.Name]
		if !ok {
			if cf.Required && cf.WriteDefault == nil {
				return nil, false, u.refuse(joinName(path, cf.Name), "required column (with no write-default) is missing from the wanted schema")
			}
			fields = append(fields, cf)
			continue
		}
		f, ch, err := u.mergeField(path, cf, want.Fields[i], inMapKey, depth)
		if err != nil {
			return nil, false, err
		}
		fields = append(fields, f)
		changed = changed || ch
	}
	for _, wf := range want.Fields {
		if curNames[wf.Name] {
			continue
		}
		name := joinName(path, wf.Name)
		if inMapKey {
			return nil, false, u.refuse(name, "cannot add a field to a map key")
		}
		// Each new column takes its id and then its children's, as Java's
		// UpdateSchema.addColumn numbers them.
		id, err := u.assignID(wf.ID, name)
		if err != nil {
			return nil, false, err
		}
		f := wf
		f.ID = id
		if err := u.freshField(path, &f, true, depth); err != nil {
			return nil, false, err
		}
		fields = append(fields, f)
		changed = true
	}
	return &iceberg.StructType{Fields: fields}, changed, nil
}

// mergeField unions one column present in both schemas.
func (u *schemaUnion) mergeField(path string, cf, wf iceberg.NestedField, inMapKey bool, depth int) (iceberg.NestedField, bool, error) {
	name := joinName(path, cf.Name)
	if wf.ID > 0 && wf.ID != cf.ID {
		return iceberg.NestedField{}, false, u.refuse(name, "the wanted field id %d differs from the table's id %d for this column", wf.ID, cf.ID)
	}
	out := cf
	changed := false
	if cf.Required && !wf.Required {
		if err := u.canChange(name, cf.ID, inMapKey, "become optional"); err != nil {
			return iceberg.NestedField{}, false, err
		}
		out.Required = false
		changed = true
	}
	t, typeChanged, err := u.mergeType(name, cf.Type, wf.Type, inMapKey, depth+1)
	if err != nil {
		return iceberg.NestedField{}, false, err
	}
	if typeChanged {
		out.Type = t
		out.InitialDefault, _ = convertValue(cf.Type, t, cf.InitialDefault)
		out.WriteDefault, _ = convertValue(cf.Type, t, cf.WriteDefault)
		changed = true
	}
	if wf.Doc != "" && wf.Doc != cf.Doc {
		if err := u.canChange(name, 0, inMapKey, "change its doc"); err != nil {
			return iceberg.NestedField{}, false, err
		}
		out.Doc = wf.Doc
		changed = true
	}
	if wf.InitialDefault != nil {
		v, err := u.wantedDefault(name, "initial-default", wf.Type, out.Type, wf.InitialDefault)
		if err != nil {
			return iceberg.NestedField{}, false, err
		}
		if !sameValue(out.Type, v, out.InitialDefault) {
			return iceberg.NestedField{}, false, u.refuse(name, "initial-default cannot change once the column exists (the table has %s, the wanted schema %s)",
				valueText(out.Type, out.InitialDefault), valueText(out.Type, v))
		}
	}
	if wf.WriteDefault != nil {
		v, err := u.wantedDefault(name, "write-default", wf.Type, out.Type, wf.WriteDefault)
		if err != nil {
			return iceberg.NestedField{}, false, err
		}
		if !sameValue(out.Type, v, out.WriteDefault) {
			if err := u.canChange(name, 0, inMapKey, "change its write-default"); err != nil {
				return iceberg.NestedField{}, false, err
			}
			out.WriteDefault = v
			changed = true
		}
	}
	return out, changed, nil
}

// canChange refuses changes to map keys and making identifier fields
// optional (identifier fields must be required).
func (u *schemaUnion) canChange(name string, id int, inMapKey bool, what string) error {
	if inMapKey {
		return u.refuse(name, "a map key cannot %s", what)
	}
	if id != 0 && u.identifier[id] {
		return u.refuse(name, "an identifier field cannot %s", what)
	}
	return nil
}

// wantedDefault brings a default given by the wanted schema into the form
// of the merged type (an int32 default of a wanted int column becomes int64
// when the table's column is a long) and checks it.
func (u *schemaUnion) wantedDefault(name, which string, from, to iceberg.Type, v any) (any, error) {
	out, ok := convertValue(from, to, v)
	if ok {
		if _, err := iceberg.ValueToJSON(to, out); err == nil {
			return out, nil
		}
	}
	return nil, u.refuse(name, "the wanted %s %v is not a valid %s value", which, v, to)
}

// mergeType unions the type of a column present in both schemas; changed
// says the result differs from cur.
func (u *schemaUnion) mergeType(name string, cur, want iceberg.Type, inMapKey bool, depth int) (iceberg.Type, bool, error) {
	if depth > iceberg.MaxTypeDepth {
		return nil, false, u.refuse(name, "type nesting deeper than %d", iceberg.MaxTypeDepth)
	}
	if want == nil {
		return nil, false, u.refuse(name, "the wanted schema gives no type")
	}
	if _, ok := want.(iceberg.UnknownType); ok {
		// unknown is always null: any table type holds it.
		return cur, false, nil
	}
	mismatch := func() (iceberg.Type, bool, error) {
		return nil, false, u.refuse(name, "cannot change type from %s to %s", typeText(cur), typeText(want))
	}
	switch c := cur.(type) {
	case *iceberg.StructType:
		w, ok := want.(*iceberg.StructType)
		if !ok {
			return mismatch()
		}
		return u.mergeStruct(name, c, w, inMapKey, depth)
	case *iceberg.ListType:
		w, ok := want.(*iceberg.ListType)
		if !ok {
			return mismatch()
		}
		return u.mergeList(name, c, w, inMapKey, depth)
	case *iceberg.MapType:
		w, ok := want.(*iceberg.MapType)
		if !ok {
			return mismatch()
		}
		return u.mergeMap(name, c, w, inMapKey, depth)
	case iceberg.PrimitiveType:
		if w, ok := want.(iceberg.PrimitiveType); ok {
			switch {
			case iceberg.Type(w) == iceberg.Type(c) || canPromote(w, c):
				return cur, false, nil
			case canPromote(c, w):
				if err := validPrimitive(w); err != nil {
					return nil, false, u.refuse(name, "%v", err)
				}
				if err := u.canChange(name, 0, inMapKey, "change type"); err != nil {
					return nil, false, err
				}
				return w, true, nil
			}
			return mismatch()
		}
		if _, ok := c.(iceberg.UnknownType); !ok {
			return mismatch()
		}
		// unknown → nested: the column has only ever held nulls, so its
		// new children are new columns with fresh ids.
		if err := u.canChange(name, 0, inMapKey, "change type"); err != nil {
			return nil, false, err
		}
		f := iceberg.NestedField{Type: want}
		if err := u.freshType(name, &f, false, depth); err != nil {
			return nil, false, err
		}
		return f.Type, true, nil
	case nil:
		return nil, false, u.refuse(name, "the table's schema gives no type")
	}
	return mismatch()
}

func (u *schemaUnion) mergeList(name string, cur, want *iceberg.ListType, inMapKey bool, depth int) (iceberg.Type, bool, error) {
	elemName := joinName(name, "element")
	if want.ElementID > 0 && want.ElementID != cur.ElementID {
		return nil, false, u.refuse(elemName, "the wanted field id %d differs from the table's id %d for this column", want.ElementID, cur.ElementID)
	}
	out := *cur
	changed := false
	if cur.ElementRequired && !want.ElementRequired {
		if err := u.canChange(elemName, 0, inMapKey, "become optional"); err != nil {
			return nil, false, err
		}
		out.ElementRequired = false
		changed = true
	}
	elem, ch, err := u.mergeType(elemName, cur.Element, want.Element, inMapKey, depth+1)
	if err != nil {
		return nil, false, err
	}
	if !changed && !ch {
		return cur, false, nil
	}
	out.Element = elem
	return &out, true, nil
}

func (u *schemaUnion) mergeMap(name string, cur, want *iceberg.MapType, inMapKey bool, depth int) (iceberg.Type, bool, error) {
	keyName, valueName := joinName(name, "key"), joinName(name, "value")
	if want.KeyID > 0 && want.KeyID != cur.KeyID {
		return nil, false, u.refuse(keyName, "the wanted field id %d differs from the table's id %d for this column", want.KeyID, cur.KeyID)
	}
	if want.ValueID > 0 && want.ValueID != cur.ValueID {
		return nil, false, u.refuse(valueName, "the wanted field id %d differs from the table's id %d for this column", want.ValueID, cur.ValueID)
	}
	out := *cur
	changed := false
	key, keyChanged, err := u.mergeType(keyName, cur.Key, want.Key, true, depth+1)
	if err != nil {
		return nil, false, err
	}
	if keyChanged {
		// mergeType refuses every change under a map key; this is a guard.
		return nil, false, u.refuse(keyName, "a map key cannot change")
	}
	if cur.ValueRequired && !want.ValueRequired {
		if err := u.canChange(valueName, 0, inMapKey, "become optional"); err != nil {
			return nil, false, err
		}
		out.ValueRequired = false
		changed = true
	}
	value, ch, err := u.mergeType(valueName, cur.Value, want.Value, inMapKey, depth+1)
	if err != nil {
		return nil, false, err
	}
	if !changed && !ch {
		return cur, false, nil
	}
	out.Key, out.Value = key, value
	return &out, true, nil
}

// assignID gives a new column its id: the wanted one when given (it must be
// unused by the table, past or present), else the next id no column of
// wanted claims.
func (u *schemaUnion) assignID(given int, name string) (int, error) {
	if given > 0 {
		if given <= u.lastColumnID {
			if other, ok := u.tableIDs[given]; ok {
				return 0, u.refuse(name, "the wanted field id %d belongs to the table's column %q", given, other)
			}
			return 0, u.refuse(name, "the wanted field id %d was already assigned by the table (last-column-id %d) to a column since dropped", given, u.lastColumnID)
		}
		if given > highestAssignableFieldID {
			return 0, u.refuse(name, "the wanted field id %d is in the range the spec reserves (above %d)", given, highestAssignableFieldID)
		}
		if given > u.next {
			u.next = given
		}
		return given, nil
	}
	for {
		if u.next >= highestAssignableFieldID {
			return 0, u.refuse(name, "no field id left to assign: ids above %d are reserved", highestAssignableFieldID)
		}
		u.next++
		if _, claimed := u.givenIDs[u.next]; !claimed {
			return u.next, nil
		}
	}
}

// freshField completes a new column whose own id is already assigned: its
// nested ids and its defaults. oldRowsSeeIt is true when rows written
// before the column existed read it (its parent is an existing struct, or a
// new struct that old rows read as its non-null initial-default); a
// required column they see needs defaults.
func (u *schemaUnion) freshField(path string, f *iceberg.NestedField, oldRowsSeeIt bool, depth int) error {
	name := joinName(path, f.Name)
	if f.Name == "" {
		return u.refuse(name, "a new column needs a name")
	}
	if f.Required && oldRowsSeeIt && (f.InitialDefault == nil || f.WriteDefault == nil) {
		return u.refuse(name, "cannot add a required column without both an initial-default and a write-default")
	}
	if err := u.freshType(name, f, oldRowsSeeIt && f.InitialDefault != nil, depth+1); err != nil {
		return err
	}
	for _, d := range []struct {
		which string
		v     any
	}{{"initial-default", f.InitialDefault}, {"write-default", f.WriteDefault}} {
		if d.v == nil {
			continue
		}
		if _, ok := f.Type.(iceberg.UnknownType); ok {
			return u.refuse(name, "an unknown-typed column must default to null, not %v", d.v)
		}
		if iceberg.IsGeo(f.Type) {
			return u.refuse(name, "a %s column must default to null", f.Type)
		}
		if _, err := iceberg.ValueToJSON(f.Type, d.v); err != nil {
			return u.refuse(name, "%s: %v", d.which, err)
		}
	}
	return nil
}

// freshType copies the type of a new column (f.Type) with new ids for
// every nested field: a struct's own fields first, then their children.
// Types are copied, never edited in place, so wanted is left as it was.
func (u *schemaUnion) freshType(name string, f *iceberg.NestedField, oldRowsSeeChildren bool, depth int) error {
	if depth > iceberg.MaxTypeDepth {
		return u.refuse(name, "type nesting deeper than %d", iceberg.MaxTypeDepth)
	}
	switch t := f.Type.(type) {
	case *iceberg.StructType:
		fields := make([]iceberg.NestedField, len(t.Fields))
		for i, sf := range t.Fields {
			childName := joinName(name, sf.Name)
			id, err := u.assignID(sf.ID, childName)
			if err != nil {
				return err
			}
			fields[i] = sf
			fields[i].ID = id
		}
		for i := range fields {
			if err := u.freshField(name, &fields[i], oldRowsSeeChildren, depth); err != nil {
				return err
			}
		}
		f.Type = &iceberg.StructType{Fields: fields}
	case *iceberg.ListType:
		out := *t
		elemName := joinName(name, "element")
		var err error
		if out.ElementID, err = u.assignID(t.ElementID, elemName); err != nil {
			return err
		}
		elem := iceberg.NestedField{Type: t.Element}
		if err := u.freshType(elemName, &elem, false, depth+1); err != nil {
			return err
		}
		out.Element = elem.Type
		f.Type = &out
	case *iceberg.MapType:
		out := *t
		keyName, valueName := joinName(name, "key"), joinName(name, "value")
		var err error
		if out.KeyID, err = u.assignID(t.KeyID, keyName); err != nil {
			return err
		}
		if out.ValueID, err = u.assignID(t.ValueID, valueName); err != nil {
			return err
		}
		key, value := iceberg.NestedField{Type: t.Key}, iceberg.NestedField{Type: t.Value}
		if err := u.freshType(keyName, &key, false, depth+1); err != nil {
			return err
		}
		if err := u.freshType(valueName, &value, false, depth+1); err != nil {
			return err
		}
		out.Key, out.Value = key.Type, value.Type
		f.Type = &out
	case iceberg.PrimitiveType:
		if err := validPrimitive(t); err != nil {
			return u.refuse(name, "%v", err)
		}
	case nil:
		return u.refuse(name, "the wanted schema gives no type")
	default:
		return errkind.Wrap(errkind.Unsupported, u.refuse(name, "unsupported type %v", t))
	}
	return nil
}

// validPrimitive checks the parameters a hand-built type may get wrong.
func validPrimitive(t iceberg.PrimitiveType) error {
	switch t := t.(type) {
	case iceberg.DecimalType:
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("invalid type %s: precision must be 1..38 and scale 0..precision", t)
		}
	case iceberg.FixedType:
		if t.Length < 1 {
			return fmt.Errorf("invalid type %s: length must be at least 1", t)
		}
	}
	return nil
}

// canPromote reports whether the spec lets a column of type from become a
// column of type to without rewriting data. date→timestamp is left out: it
// is v3 only and not allowed on partition sources, which UnionByName does
// not see.
func canPromote(from, to iceberg.PrimitiveType) bool {
	switch f := from.(type) {
	case iceberg.UnknownType:
		_, same := to.(iceberg.UnknownType)
		return !same
	case iceberg.IntType:
		return to == iceberg.LongType{}
	case iceberg.FloatType:
		return to == iceberg.DoubleType{}
	case iceberg.DecimalType:
		t, ok := to.(iceberg.DecimalType)
		return ok && t.Scale == f.Scale && t.Precision > f.Precision
	}
	return false
}

// convertValue brings a value of type from into the canonical form of type
// to, where to is from or a union of it with another schema: promoted
// primitives are widened, struct fields are matched by name (a field to has
// and from lacks is null). ok is false when v is not of the expected form.
func convertValue(from, to iceberg.Type, v any) (out any, ok bool) {
	if v == nil {
		return nil, true
	}
	switch t := to.(type) {
	case *iceberg.StructType:
		f, fok := from.(*iceberg.StructType)
		vals, vok := v.([]any)
		if !fok || !vok || len(vals) != len(f.Fields) {
			return v, false
		}
		res := make([]any, len(t.Fields))
		for i, tf := range t.Fields {
			for j, ff := range f.Fields {
				if ff.Name == tf.Name {
					if res[i], ok = convertValue(ff.Type, tf.Type, vals[j]); !ok {
						return v, false
					}
					break
				}
			}
		}
		return res, true
	case *iceberg.ListType:
		f, fok := from.(*iceberg.ListType)
		vals, vok := v.([]any)
		if !fok || !vok {
			return v, false
		}
		res := make([]any, len(vals))
		for i, e := range vals {
			if res[i], ok = convertValue(f.Element, t.Element, e); !ok {
				return v, false
			}
		}
		return res, true
	case *iceberg.MapType:
		f, fok := from.(*iceberg.MapType)
		m, mok := v.(iceberg.MapValue)
		if !fok || !mok || len(m.Keys) != len(m.Values) {
			return v, false
		}
		res := iceberg.MapValue{Keys: make([]any, len(m.Keys)), Values: make([]any, len(m.Values))}
		for i := range m.Keys {
			if res.Keys[i], ok = convertValue(f.Key, t.Key, m.Keys[i]); !ok {
				return v, false
			}
			if res.Values[i], ok = convertValue(f.Value, t.Value, m.Values[i]); !ok {
				return v, false
			}
		}
		return res, true
	case iceberg.LongType:
		if n, isInt := v.(int32); isInt {
			if _, wasInt := from.(iceberg.IntType); wasInt {
				return int64(n), true
			}
		}
	case iceberg.TimestampType, iceberg.TimestampNsType:
		// date→timestamp(_ns) (v3, UpdateSchema): the day's midnight.
		if d, isDate := v.(int32); isDate {
			if _, wasDate := from.(iceberg.DateType); wasDate {
				perDay := int64(86_400_000_000)
				if _, ns := to.(iceberg.TimestampNsType); ns {
					perDay *= 1000
				}
				return int64(d) * perDay, true
			}
		}
	case iceberg.DoubleType:
		if x, isFloat := v.(float32); isFloat {
			if _, wasFloat := from.(iceberg.FloatType); wasFloat {
				return float64(x), true
			}
		}
	}
	return v, true
}

// sameValue compares two canonical values of t by their JSON form, which is
// exact for every type (NaNs included) and needs no per-type code here.
func sameValue(t iceberg.Type, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ja, errA := iceberg.ValueToJSON(t, a)
	jb, errB := iceberg.ValueToJSON(t, b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// valueText shows a default in messages.
func valueText(t iceberg.Type, v any) string {
	if v == nil {
		return "none"
	}
	if j, err := iceberg.ValueToJSON(t, v); err == nil {
		return string(j)
	}
	return strconv.Quote(fmt.Sprint(v))
}

// typeText names a type in messages; nested types by their kind only, as
// their full form can be long.
func typeText(t iceberg.Type) string {
	switch t.(type) {
	case *iceberg.StructType:
		return "a struct"
	case *iceberg.ListType:
		return "a list"
	case *iceberg.MapType:
		return "a map"
	case nil:
		return "no type"
	}
	return t.String()
}
