package action

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// columnPropertyPrefixes are the table properties keyed by a column's full
// name, which follow it when it is renamed and go when it is deleted (as
// Java's SchemaUpdate keeps them). floe reads the metrics one
// (writer.PropMetricsColumnPrefix); the others are Java's.
var columnPropertyPrefixes = []string{
	"write.metadata.metrics.column.",
	"write.parquet.bloom-filter-enabled.column.",
	"write.parquet.stats-enabled.column.",
}

// propertyUpdates keep the properties that name columns in step with the
// evolved schema: the name mapping (schema.name-mapping.default) gets the
// added columns and the new names of renamed ones, beside their old names
// (files written before still use those), as Java's MappingUtil.update
// does; per-column properties are renamed or removed. A name mapping that
// does not parse is left alone, as Java leaves it.
func (e *schemaEdit) propertyUpdates() []metadata.Update {
	set := map[string]string{}
	if text, ok := e.md.Properties[metadata.PropertyNameMapping]; ok {
		if nm, err := iceberg.ParseNameMapping(text); err == nil {
			if out, changed := e.mapFields(nm, rootID); changed {
				if raw, err := json.Marshal(iceberg.NameMapping(out)); err == nil {
					set[metadata.PropertyNameMapping] = string(raw)
				}
			}
		}
	}
	newNames := fullNames(e.result)
	var remove []string
	for k, v := range e.md.Properties {
		for _, prefix := range columnPropertyPrefixes {
			col, ok := strings.CutPrefix(k, prefix)
			if !ok {
				continue
			}
			id, ok := e.byName[col]
			if !ok {
				continue
			}
			switch name, kept := newNames[id]; {
			case !kept:
				remove = append(remove, k)
			case name != col:
				remove = append(remove, k)
				set[prefix+name] = v
			}
		}
	}
	// Removals go first, so a key a swap of two names sets again stays.
	remove = slices.DeleteFunc(remove, func(k string) bool { _, again := set[k]; return again })
	var out []metadata.Update
	if len(remove) > 0 {
		out = append(out, metadata.RemoveProperties{Removals: slices.Sorted(slices.Values(remove))})
	}
	if len(set) > 0 {
		out = append(out, metadata.SetProperties{Updates: maps.Clone(set)})
	}
	return out
}

// mapFields updates the mapped fields under parent: renamed fields get
// their new name as well, added fields are mapped by their name, and a
// name given so is taken from any other field of the level (a deleted
// column's, say), so that it maps one field only (Java's MappingUtil).
func (e *schemaEdit) mapFields(m []iceberg.MappedField, parent int) ([]iceberg.MappedField, bool) {
	out := slices.Clone(m)
	changed := false
	assigned := map[string]int{}
	for i := range out {
		f := &out[i]
		if f.FieldID == nil {
			continue
		}
		id := *f.FieldID
		if b, ok := e.fields[id]; ok && b.kind == inStruct {
			if p, ok := e.pending[id]; ok && !slices.Contains(f.Names, p.Name) {
				f.Names = append(slices.Clone(f.Names), p.Name)
				assigned[p.Name] = id
				changed = true
			}
		}
		if sub, ch := e.mapFields(f.Fields, id); ch {
			f.Fields = sub
			changed = true
		}
	}
	for _, id := range e.added[parent] {
		out = append(out, iceberg.MappingFromFields([]iceberg.NestedField{e.pending[id]})...)
		assigned[e.pending[id].Name] = id
		changed = true
	}
	for i := range out {
		f := &out[i]
		taken := func(n string) bool {
			owner, ok := assigned[n]
			return ok && (f.FieldID == nil || *f.FieldID != owner)
		}
		if slices.ContainsFunc(f.Names, taken) {
			f.Names = slices.DeleteFunc(slices.Clone(f.Names), taken)
		}
	}
	return out, changed
}

// fullNames gives every field of s its dotted full name.
func fullNames(s *iceberg.Schema) map[int]string {
	out := map[int]string{}
	var walk func(prefix string, t iceberg.Type)
	walk = func(prefix string, t iceberg.Type) {
		for _, f := range iceberg.MappedChildren(t) {
			name := joinName(prefix, f.Name)
			out[f.ID] = name
			walk(name, f.Type)
		}
	}
	walk("", s.AsStruct())
	return out
}
