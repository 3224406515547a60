package arrowschema

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/floedb/floe/iceberg"
)

// IcebergSchema is the Iceberg schema of an Arrow schema, for a table
// created from Arrow data (the CLI's input files, say). Field ids are left
// 0: the new table numbers them, and rows are then matched to columns by
// name.
func IcebergSchema(s *arrow.Schema) (*iceberg.Schema, error) {
	fields := make([]iceberg.NestedField, len(s.Fields()))
	for i, f := range s.Fields() {
		t, err := IcebergType(f.Name, f.Type)
		if err != nil {
			return nil, err
		}
		fields[i] = iceberg.NestedField{Name: f.Name, Type: t, Required: !f.Nullable}
	}
	return iceberg.NewSchema(0, fields), nil
}

// IcebergType is the Iceberg type of an Arrow type (name, the column's
// dotted path, is for the error message); unsigned integers widen.
func IcebergType(name string, dt arrow.DataType) (iceberg.Type, error) {
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
			ft, err := IcebergType(name+"."+f.Name, f.Type)
			if err != nil {
				return nil, err
			}
			fields[i] = iceberg.NestedField{Name: f.Name, Type: ft, Required: !f.Nullable}
		}
		return &iceberg.StructType{Fields: fields}, nil
	case *arrow.MapType:
		k, err := IcebergType(name+".key", t.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := IcebergType(name+".value", t.ItemType())
		if err != nil {
			return nil, err
		}
		return &iceberg.MapType{Key: k, Value: v, ValueRequired: !t.ItemField().Nullable}, nil
	case arrow.ListLikeType:
		e, err := IcebergType(name+".element", t.Elem())
		if err != nil {
			return nil, err
		}
		return &iceberg.ListType{Element: e, ElementRequired: !t.ElemField().Nullable}, nil
	}
	return nil, fmt.Errorf("column %s: Arrow type %s has no Iceberg equivalent", name, dt)
}
