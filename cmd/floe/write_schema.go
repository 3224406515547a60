package main

import (
	"github.com/floedb/floe/iceberg"
)

// withoutFieldIDsSchema is s with every field id (list elements' and map
// keys' and values' too) set to 0, "no id given" for schema evolution by
// name (action.UnionByName).
func withoutFieldIDsSchema(s *iceberg.Schema) *iceberg.Schema {
	return iceberg.NewSchema(0, withoutIDs(s.Fields))
}

func withoutIDs(fields []iceberg.NestedField) []iceberg.NestedField {
	out := make([]iceberg.NestedField, len(fields))
	for i, f := range fields {
		f.ID = 0
		f.Type = withoutTypeIDs(f.Type)
		out[i] = f
	}
	return out
}

func withoutTypeIDs(t iceberg.Type) iceberg.Type {
	switch x := t.(type) {
	case *iceberg.StructType:
		return &iceberg.StructType{Fields: withoutIDs(x.Fields)}
	case *iceberg.ListType:
		c := *x
		c.ElementID = 0
		c.Element = withoutTypeIDs(x.Element)
		return &c
	case *iceberg.MapType:
		c := *x
		c.KeyID, c.ValueID = 0, 0
		c.Key = withoutTypeIDs(x.Key)
		c.Value = withoutTypeIDs(x.Value)
		return &c
	}
	return t
}

// adoptTypes is wanted with the type current gives each column it has (by
// name, at every depth), keeping wanted's new columns as they are.
func adoptTypes(wanted, current []iceberg.NestedField) []iceberg.NestedField {
	out := make([]iceberg.NestedField, len(wanted))
	for i, f := range wanted {
		for _, c := range current {
			if c.Name == f.Name {
				f.Type = adoptType(f.Type, c.Type)
				break
			}
		}
		out[i] = f
	}
	return out
}

func adoptType(wanted, current iceberg.Type) iceberg.Type {
	switch w := wanted.(type) {
	case *iceberg.StructType:
		if c, ok := current.(*iceberg.StructType); ok {
			return &iceberg.StructType{Fields: adoptTypes(w.Fields, c.Fields)}
		}
	case *iceberg.ListType:
		if c, ok := current.(*iceberg.ListType); ok {
			l := *w
			l.Element = adoptType(w.Element, c.Element)
			return &l
		}
	default:
		switch current.(type) {
		case *iceberg.StructType, *iceberg.ListType, *iceberg.MapType:
		default:
			return current
		}
	}
	return wanted
}
