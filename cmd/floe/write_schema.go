package main

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
)

// withoutFieldIDs returns the batch with every field's metadata dropped, so
// the writer matches its columns to the table's by name: ids in an input
// file belong to whatever wrote it, not to the table.
func withoutFieldIDs(rec arrow.RecordBatch) arrow.RecordBatch {
	fields := make([]arrow.Field, rec.NumCols())
	cols := make([]arrow.Array, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		dt := bareType(f.Type)
		fields[i] = arrow.Field{Name: f.Name, Type: dt, Nullable: f.Nullable}
		data := retype(rec.Column(i).Data(), dt)
		cols[i] = array.MakeFromData(data)
		data.Release()
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// bareType is dt with the metadata of every nested field dropped.
func bareType(dt arrow.DataType) arrow.DataType {
	bare := func(f arrow.Field) arrow.Field {
		return arrow.Field{Name: f.Name, Type: bareType(f.Type), Nullable: f.Nullable}
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		fields := make([]arrow.Field, len(t.Fields()))
		for i, f := range t.Fields() {
			fields[i] = bare(f)
		}
		return arrow.StructOf(fields...)
	case *arrow.MapType:
		m := arrow.MapOfFields(bare(t.KeyField()), bare(t.ItemField()))
		m.KeysSorted = t.KeysSorted
		return m
	case *arrow.ListType:
		return arrow.ListOfField(bare(t.ElemField()))
	case *arrow.LargeListType:
		return arrow.LargeListOfField(bare(t.ElemField()))
	case *arrow.FixedSizeListType:
		return arrow.FixedSizeListOfField(t.Len(), bare(t.ElemField()))
	}
	return dt
}

// retype returns d's buffers under type dt (the same layout, nested
// metadata dropped), children retyped alike.
func retype(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	children := d.Children()
	var childTypes []arrow.DataType
	switch t := dt.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			childTypes = append(childTypes, f.Type)
		}
	case *arrow.MapType:
		childTypes = []arrow.DataType{t.Elem()}
	case arrow.ListLikeType:
		childTypes = []arrow.DataType{t.Elem()}
	}
	newChildren := make([]arrow.ArrayData, len(children))
	for i, c := range children {
		if i < len(childTypes) {
			newChildren[i] = retype(c, childTypes[i])
		} else {
			c.Retain()
			newChildren[i] = c
		}
	}
	out := array.NewData(dt, d.Len(), d.Buffers(), newChildren, d.NullN(), d.Offset())
	for _, c := range newChildren {
		c.Release()
	}
	return out
}

// withoutFieldIDsSchema is s with every field id (list elements' and map
// keys' and values' too) set to 0, "no id given" for schema evolution by
// name (iceberg.UnionByName).
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
