package scan

import (
	"github.com/floedb/floe/iceberg"
)

// Projection is the part of a table schema a scan returns: top-level fields
// in the order asked for, each pruned to the nested fields asked for.
type Projection struct {
	Fields []iceberg.NestedField
}

// ProjectColumns prunes schema to the named columns. Names are dotted paths
// ("a", "a.b", "m.value.x"); nil means every column, an empty list none (a
// count). Asking for a struct returns all of it; asking for a field inside
// returns the struct with just that field. Top-level columns keep the order
// of first mention; nested fields keep the schema's order.
//
// Metadata columns (_file, _pos, _spec_id, _partition, _row_id,
// _last_updated_sequence_number) are selected by name like any other
// column unless the table has a column of that name; partitionType is the
// type of _partition.
func ProjectColumns(schema *iceberg.Schema, columns []string, caseInsensitive bool, partitionType *iceberg.StructType) (*Projection, error) {
	if columns == nil {
		return &Projection{Fields: schema.Fields}, nil
	}
	selected := map[int]bool{}
	var order []int
	meta := map[int]iceberg.NestedField{}
	for _, name := range columns {
		if _, inSchema := schema.FindFieldByName(name); !inSchema {
			if f, ok := metadataField(name, partitionType); ok {
				meta[f.ID] = f
				order = appendOnce(order, f.ID)
				continue
			}
		}
		if name == "*" {
			for _, f := range schema.Fields {
				selected[f.ID] = true
				order = appendOnce(order, f.ID)
			}
			continue
		}
		f, err := findColumn(schema, name, caseInsensitive)
		if err != nil {
			return nil, err
		}
		// Select the field and every ancestor up to the top level.
		id := f.ID
		selected[id] = true
		markWhole(f.Type, selected)
		for p := schema.ParentID(id); p != 0; p = schema.ParentID(p) {
			selected[p] = true
			id = p
		}
		order = appendOnce(order, id)
	}
	out := make([]iceberg.NestedField, 0, len(order))
	for _, id := range order {
		if f, ok := meta[id]; ok {
			out = append(out, f)
			continue
		}
		f, _ := schema.FindField(id)
		out = append(out, pruneField(f, selected))
	}
	return &Projection{Fields: out}, nil
}

func appendOnce(ids []int, id int) []int {
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

// markWhole selects every field nested under t: asking for a struct, list
// or map column returns all of it.
func markWhole(t iceberg.Type, selected map[int]bool) {
	switch t := t.(type) {
	case *iceberg.StructType:
		for _, f := range t.Fields {
			selected[f.ID] = true
			markWhole(f.Type, selected)
		}
	case *iceberg.ListType:
		selected[t.ElementID] = true
		markWhole(t.Element, selected)
	case *iceberg.MapType:
		selected[t.KeyID] = true
		selected[t.ValueID] = true
		markWhole(t.Key, selected)
		markWhole(t.Value, selected)
	}
}

// pruneField keeps the selected parts of a field. A list or map keeps its
// element, key and value whole in shape (they cannot be dropped), pruned
// inside.
func pruneField(f iceberg.NestedField, selected map[int]bool) iceberg.NestedField {
	f.Type = pruneType(f.Type, selected)
	return f
}

func pruneType(t iceberg.Type, selected map[int]bool) iceberg.Type {
	switch t := t.(type) {
	case *iceberg.StructType:
		var fields []iceberg.NestedField
		for _, f := range t.Fields {
			if selected[f.ID] {
				fields = append(fields, pruneField(f, selected))
			}
		}
		return &iceberg.StructType{Fields: fields}
	case *iceberg.ListType:
		c := *t
		c.Element = pruneOrKeep(t.Element, selected)
		return &c
	case *iceberg.MapType:
		c := *t
		c.Value = pruneOrKeep(t.Value, selected)
		return &c
	}
	return t
}

// pruneOrKeep prunes a list element or map value, but keeps it whole when
// nothing inside it was asked for (the path went through a sibling, such
// as a map's key): an element or value cannot be left empty. Map keys are
// always kept whole.
func pruneOrKeep(t iceberg.Type, selected map[int]bool) iceberg.Type {
	pruned := pruneType(t, selected)
	if st, ok := pruned.(*iceberg.StructType); ok && len(st.Fields) == 0 {
		return t
	}
	return pruned
}
