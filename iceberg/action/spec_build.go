package action

import (
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// specBuild replays UpdateSpec's calls on one metadata, with the rules of
// Java's BaseUpdatePartitionSpec: what is added, removed and renamed is
// kept apart from the default spec until result() lays them out, so a
// field removed and added back in one update is simply kept.
type specBuild struct {
	md            *metadata.Metadata
	schema        *iceberg.Schema
	spec          *iceberg.PartitionSpec
	caseSensitive bool

	byName      map[string]iceberg.PartitionField       // the default spec's fields
	byTransform map[transformKey]iceberg.PartitionField // the default spec's fields

	adds             []iceberg.PartitionField
	addedByName      map[string]iceberg.PartitionField
	addedByTransform map[transformKey]iceberg.PartitionField
	addedTime        map[int]iceberg.PartitionField // source id → the time field added on it
	deletes          map[int]bool                   // field ids
	renames          map[string]string
	lastAssigned     int
}

// transformKey is a source column and a transform's name.
type transformKey struct {
	source    int
	transform string
}

func keyOf(source int, t iceberg.Transform) transformKey {
	return transformKey{source, t.String()}
}

func newSpecBuild(md *metadata.Metadata, caseSensitive bool) (*specBuild, error) {
	schema, spec := md.CurrentSchema(), md.DefaultSpec()
	if schema == nil || spec == nil {
		return nil, invalid("the table has no current schema or default partition spec")
	}
	b := &specBuild{
		md: md, schema: schema, spec: spec, caseSensitive: caseSensitive,
		byName:           map[string]iceberg.PartitionField{},
		byTransform:      map[transformKey]iceberg.PartitionField{},
		addedByName:      map[string]iceberg.PartitionField{},
		addedByTransform: map[transformKey]iceberg.PartitionField{},
		addedTime:        map[int]iceberg.PartitionField{},
		deletes:          map[int]bool{},
		renames:          map[string]string{},
		lastAssigned:     max(md.LastPartitionID, iceberg.PartitionFieldIDStart-1),
	}
	for _, f := range spec.Fields {
		if _, unknown := f.Transform.(iceberg.UnknownTransform); unknown {
			return nil, errkind.Errorf(errkind.Unsupported, "partition field %q of spec %d uses transform %q, which floe does not know", f.Name, spec.ID, f.Transform)
		}
		b.byName[f.Name] = f
		b.byTransform[keyOf(f.SourceID, f.Transform)] = f
	}
	return b, nil
}

// resolve binds a source name and checks the transform applies to it.
func (b *specBuild) resolve(source string, t iceberg.Transform, what string) (iceberg.NestedField, error) {
	src, err := sourceColumn(b.schema, source, b.caseSensitive, what)
	if err != nil {
		return src, err
	}
	return src, checkSourceType(src, source, t, what)
}

func (b *specBuild) add(source string, t iceberg.Transform, name string) error {
	what := fmt.Sprintf("add partition field %s(%s)", t, source)
	if name != "" {
		what = fmt.Sprintf("add partition field %q", name)
		if added, ok := b.addedByName[name]; ok {
			return invalid("%s: a field of that name was already added (%s of column %d)", what, added.Transform, added.SourceID)
		}
	}
	src, err := b.resolve(source, t, what)
	if err != nil {
		return err
	}
	key := keyOf(src.ID, t)
	if existing, ok := b.byTransform[key]; ok {
		if b.deletes[existing.FieldID] {
			// Removed and added back in one update: the field stays.
			delete(b.deletes, existing.FieldID)
			if name == "" || name == existing.Name {
				return nil
			}
			return b.rename(existing.Name, name)
		}
		return invalid("%s: the spec already has field %q, %s of column %q", what, existing.Name, existing.Transform, source)
	}
	if added, ok := b.addedByTransform[key]; ok {
		return invalid("%s: field %q, %s of column %q, was already added", what, added.Name, added.Transform, source)
	}
	field := b.newField(src, t, name)
	if added, ok := b.addedByName[field.Name]; ok {
		return invalid("%s: a field named %q was already added (%s of column %d)", what, field.Name, added.Transform, added.SourceID)
	}
	if isTimeTransform(t) {
		if other, ok := b.addedTime[src.ID]; ok {
			return invalid("%s: redundant with the %s field %q added on the same column", what, other.Transform, other.Name)
		}
		b.addedTime[src.ID] = field
	}
	b.addedByTransform[key] = field
	if existing, ok := b.byName[field.Name]; ok {
		switch {
		case b.deletes[existing.FieldID]:
			// v1 keeps a removed field, voided: it gives up its name.
			b.renames[existing.Name] = fmt.Sprintf("%s_%d", existing.Name, existing.FieldID)
		case isVoid(existing.Transform):
			if err := b.rename(existing.Name, fmt.Sprintf("%s_%d", existing.Name, existing.FieldID)); err != nil {
				return err
			}
		default:
			return invalid("%s: the spec already has a field named %q (%s of column %d)", what, field.Name, existing.Transform, existing.SourceID)
		}
	}
	b.addedByName[field.Name] = field
	b.adds = append(b.adds, field)
	return nil
}

// newField is the field an add makes: from v2 on, a field an earlier spec
// had for the same source and transform (and name, when one is given) is
// reused with its id, as Java and pyiceberg do, so data written under
// both specs shares the partition field; otherwise a new id. v1 ids are
// positions, assigned in result().
func (b *specBuild) newField(src iceberg.NestedField, t iceberg.Transform, name string) iceberg.PartitionField {
	if b.md.FormatVersion >= 2 {
		for _, s := range b.md.PartitionSpecs {
			for _, f := range s.Fields {
				if f.SourceID == src.ID && f.Transform.String() == t.String() && (name == "" || f.Name == name) && !b.idTaken(f.FieldID) {
					return iceberg.PartitionField{SourceID: src.ID, FieldID: f.FieldID, Name: f.Name, Transform: t}
				}
			}
		}
	}
	if name == "" {
		full, _ := b.schema.FullName(src.ID)
		name = iceberg.DefaultPartitionName(full, t)
	}
	id := 0
	if b.md.FormatVersion >= 2 {
		b.lastAssigned++
		id = b.lastAssigned
	}
	return iceberg.PartitionField{SourceID: src.ID, FieldID: id, Name: name, Transform: t}
}

// idTaken: a field the new spec keeps or adds has the id. A table
// upgraded from v1, whose ids were positions, may have used one id for
// different fields in different specs; such an id is not reused.
func (b *specBuild) idTaken(id int) bool {
	for _, f := range b.spec.Fields {
		if f.FieldID == id && !b.deletes[id] {
			return true
		}
	}
	for _, f := range b.adds {
		if f.FieldID == id {
			return true
		}
	}
	return false
}

func (b *specBuild) removeByName(name string) error {
	what := fmt.Sprintf("remove partition field %q", name)
	if _, ok := b.addedByName[name]; ok {
		return invalid("%s: it is added by this same update", what)
	}
	if _, ok := b.renames[name]; ok {
		return invalid("%s: it is renamed by this same update", what)
	}
	f, ok := b.byName[name]
	if !ok {
		return b.noField(what, name)
	}
	b.deletes[f.FieldID] = true
	return nil
}

func (b *specBuild) removeByTransform(source string, t iceberg.Transform) error {
	what := fmt.Sprintf("remove partition field %s(%s)", t, source)
	src, err := sourceColumn(b.schema, source, b.caseSensitive, what)
	if err != nil {
		return err
	}
	key := keyOf(src.ID, t)
	if _, ok := b.addedByTransform[key]; ok {
		return invalid("%s: it is added by this same update", what)
	}
	f, ok := b.byTransform[key]
	if !ok {
		return invalid("%s: spec %d has no such field (fields: %s)", what, b.spec.ID, b.fieldList())
	}
	if _, ok := b.renames[f.Name]; ok {
		return invalid("%s: field %q is renamed by this same update", what, f.Name)
	}
	b.deletes[f.FieldID] = true
	return nil
}

func (b *specBuild) rename(name, newName string) error {
	what := fmt.Sprintf("rename partition field %q to %q", name, newName)
	if existing, ok := b.byName[newName]; ok && isVoid(existing.Transform) && existing.Name != name {
		// A voided field (v1's removed fields) gives up its name.
		if err := b.rename(existing.Name, fmt.Sprintf("%s_%d", existing.Name, existing.FieldID)); err != nil {
			return err
		}
	}
	if _, ok := b.addedByName[name]; ok {
		return invalid("%s: it is added by this same update; give AddField the name instead", what)
	}
	f, ok := b.byName[name]
	if !ok {
		return b.noField(what, name)
	}
	if b.deletes[f.FieldID] {
		return invalid("%s: it is removed by this same update", what)
	}
	b.renames[name] = newName
	return nil
}

func (b *specBuild) noField(what, name string) error {
	names := make([]string, len(b.spec.Fields))
	for i, f := range b.spec.Fields {
		names[i] = f.Name
	}
	if c := iceberg.ClosestName(name, names); c != "" {
		return invalid("%s: spec %d has no such field; did you mean %q?", what, b.spec.ID, c)
	}
	return invalid("%s: spec %d has no fields", what, b.spec.ID)
}

func (b *specBuild) fieldList() string {
	out := ""
	for i, f := range b.spec.Fields {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s=%s(%d)", f.Name, f.Transform, f.SourceID)
	}
	if out == "" {
		return "none"
	}
	return out
}

// result lays the spec out as Java's apply does: the default spec's
// fields in order, renamed, removed ones dropped (v2+) or voided in place
// (v1), then the added fields. Names are checked as Java's spec builder
// checks them: unique, not empty, and not another column's name (an
// identity or void field may bear its own source's name).
func (b *specBuild) result() (iceberg.PartitionSpec, error) {
	out := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{}}
	for _, f := range b.spec.Fields {
		if b.deletes[f.FieldID] {
			if b.md.FormatVersion >= 2 {
				continue
			}
			f.Transform = iceberg.VoidTransform{}
		}
		if n, ok := b.renames[f.Name]; ok {
			f.Name = n
		}
		out.Fields = append(out.Fields, f)
	}
	for _, f := range b.adds {
		if b.md.FormatVersion < 2 {
			// v1 ids are positions: the reader of a v1 manifest may number
			// fields from 1000 in spec order.
			f.FieldID = iceberg.PartitionFieldIDStart + len(out.Fields)
		}
		out.Fields = append(out.Fields, f)
	}
	names := map[string]bool{}
	for _, f := range out.Fields {
		what := fmt.Sprintf("partition field %q", f.Name)
		if f.Name == "" {
			return out, invalid("a partition field of column %d has an empty name", f.SourceID)
		}
		if names[f.Name] {
			return out, invalid("%s: the name is used twice", what)
		}
		names[f.Name] = true
		if col, ok := b.schema.FindFieldByName(f.Name); ok {
			ownName := isVoid(f.Transform) || f.Transform.String() == "identity"
			if !ownName {
				return out, invalid("%s: the name is a column's; a %s field cannot bear a column's name", what, f.Transform)
			}
			if col.ID != f.SourceID {
				return out, invalid("%s: the name is column %d's, but the field's source is column %d", what, col.ID, f.SourceID)
			}
		}
	}
	if _, err := out.PartitionType(b.schema); err != nil {
		return out, invalid("%v", err)
	}
	if b.md.FormatVersion < 2 {
		for i, f := range out.Fields {
			if f.FieldID != iceberg.PartitionFieldIDStart+i {
				return out, invalid("partition field %q has id %d at position %d; format version 1 needs ids numbered from %d in order", f.Name, f.FieldID, i, iceberg.PartitionFieldIDStart)
			}
		}
	}
	return out, nil
}

func isVoid(t iceberg.Transform) bool { _, ok := t.(iceberg.VoidTransform); return ok }

func isTimeTransform(t iceberg.Transform) bool {
	switch t.(type) {
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform:
		return true
	}
	return false
}
