package reader

import "github.com/floedb/floe/iceberg"

// effectiveNameMapping is the name mapping used to read a file without
// field ids. It is the table's schema.name-mapping.default when that agrees
// with the schema: every mapped name that the schema has at that place
// carries the same id. Otherwise, or with no mapping at all, the mapping is
// derived from the schema's own names, which is how Hive and Impala resolve
// migrated files (INDEX.md quirk 4: a Hive-migrated table whose mapping
// numbers fields depth-first, unlike its schema). Reading by a mapping that
// contradicts the schema would return the wrong columns.
func effectiveNameMapping(m iceberg.NameMapping, fields []iceberg.NestedField) iceberg.NameMapping {
	if m != nil && mappingAgrees(m, fields) {
		return m
	}
	return mappingFromFields(fields)
}

func mappingAgrees(m iceberg.NameMapping, fields []iceberg.NestedField) bool {
	for _, f := range fields {
		mf, ok := m.Find(f.Name)
		if !ok {
			continue // the mapping may name fewer fields than the schema
		}
		if mf.FieldID == nil || *mf.FieldID != f.ID {
			return false
		}
		if !mappingAgrees(mf.Fields, nestedFields(f.Type)) {
			return false
		}
	}
	return true
}

func mappingFromFields(fields []iceberg.NestedField) iceberg.NameMapping {
	out := make(iceberg.NameMapping, len(fields))
	for i, f := range fields {
		id := f.ID
		out[i] = iceberg.MappedField{FieldID: &id, Names: []string{f.Name}, Fields: mappingFromFields(nestedFields(f.Type))}
	}
	return out
}

// nestedFields are the fields one level below a type, with list elements
// and map keys and values named as name mappings name them.
func nestedFields(t iceberg.Type) []iceberg.NestedField {
	switch t := t.(type) {
	case *iceberg.StructType:
		return t.Fields
	case *iceberg.ListType:
		return []iceberg.NestedField{{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired}}
	case *iceberg.MapType:
		return []iceberg.NestedField{
			{ID: t.KeyID, Name: "key", Type: t.Key, Required: true},
			{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired},
		}
	}
	return nil
}
