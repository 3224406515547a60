package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/floedb/floe/iceberg"
)

// icebergSchema is the Iceberg schema of an Arrow schema, for a table
// created from an input file. Field ids are left 0: the new table numbers
// them, and rows are then matched to columns by name.
func icebergSchema(s *arrow.Schema) (*iceberg.Schema, error) {
	fields := make([]iceberg.NestedField, len(s.Fields()))
	for i, f := range s.Fields() {
		t, err := icebergType(f.Name, f.Type)
		if err != nil {
			return nil, err
		}
		fields[i] = iceberg.NestedField{Name: f.Name, Type: t, Required: !f.Nullable}
	}
	return iceberg.NewSchema(0, fields), nil
}

func icebergType(name string, dt arrow.DataType) (iceberg.Type, error) {
	switch t := dt.(type) {
	case *extensions.VariantType:
		return iceberg.VariantType{}, nil
	case *arrow.BooleanType:
		return iceberg.BooleanType{}, nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Uint8Type, *arrow.Uint16Type:
		return iceberg.IntType{}, nil
	case *arrow.Int64Type, *arrow.Uint32Type:
		return iceberg.LongType{}, nil
	case *arrow.Float32Type:
		return iceberg.FloatType{}, nil
	case *arrow.Float64Type:
		return iceberg.DoubleType{}, nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return iceberg.StringType{}, nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return iceberg.BinaryType{}, nil
	case *arrow.FixedSizeBinaryType:
		return iceberg.FixedType{Length: t.ByteWidth}, nil
	case *arrow.Date32Type:
		return iceberg.DateType{}, nil
	case *arrow.Time64Type:
		return iceberg.TimeType{}, nil
	case *arrow.TimestampType:
		switch {
		case t.Unit == arrow.Nanosecond && t.TimeZone != "":
			return iceberg.TimestamptzNsType{}, nil
		case t.Unit == arrow.Nanosecond:
			return iceberg.TimestampNsType{}, nil
		case t.TimeZone != "":
			return iceberg.TimestamptzType{}, nil
		}
		return iceberg.TimestampType{}, nil
	case *arrow.Decimal128Type:
		return iceberg.DecimalType{Precision: int(t.Precision), Scale: int(t.Scale)}, nil
	case *arrow.StructType:
		fields := make([]iceberg.NestedField, len(t.Fields()))
		for i, f := range t.Fields() {
			ft, err := icebergType(name+"."+f.Name, f.Type)
			if err != nil {
				return nil, err
			}
			fields[i] = iceberg.NestedField{Name: f.Name, Type: ft, Required: !f.Nullable}
		}
		return &iceberg.StructType{Fields: fields}, nil
	case *arrow.MapType:
		k, err := icebergType(name+".key", t.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := icebergType(name+".value", t.ItemType())
		if err != nil {
			return nil, err
		}
		return &iceberg.MapType{Key: k, Value: v, ValueRequired: !t.ItemField().Nullable}, nil
	case arrow.ListLikeType:
		e, err := icebergType(name+".element", t.Elem())
		if err != nil {
			return nil, err
		}
		return &iceberg.ListType{Element: e, ElementRequired: !t.ElemField().Nullable}, nil
	}
	return nil, fmt.Errorf("column %s: Arrow type %s has no Iceberg equivalent", name, dt)
}

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
