package arrowschema

import (
	"fmt"

	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/floedb/floe/iceberg"
)

// FieldIDKey is the Arrow field metadata key that carries an Iceberg field
// id, as pyarrow and Parquet writers spell it.
const FieldIDKey = "PARQUET:field_id"

// ArrowType is the Arrow type floe returns for an Iceberg type: timestamps
// in µs or ns with "UTC" for the zoned ones, uuid as 16-byte fixed binary,
// geometry and geography as WKB binary (ArrowField tags them geoarrow.wkb),
// lists and maps with the element/key/value fields carrying their ids.
func ArrowType(t iceberg.Type) (arrow.DataType, error) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return arrow.FixedWidthTypes.Boolean, nil
	case iceberg.IntType:
		return arrow.PrimitiveTypes.Int32, nil
	case iceberg.LongType:
		return arrow.PrimitiveTypes.Int64, nil
	case iceberg.FloatType:
		return arrow.PrimitiveTypes.Float32, nil
	case iceberg.DoubleType:
		return arrow.PrimitiveTypes.Float64, nil
	case iceberg.DecimalType:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case iceberg.DateType:
		return arrow.FixedWidthTypes.Date32, nil
	case iceberg.TimeType:
		return arrow.FixedWidthTypes.Time64us, nil
	case iceberg.TimestampType:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case iceberg.TimestamptzType:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case iceberg.TimestampNsType:
		return &arrow.TimestampType{Unit: arrow.Nanosecond}, nil
	case iceberg.TimestamptzNsType:
		return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, nil
	case iceberg.StringType:
		return arrow.BinaryTypes.String, nil
	case iceberg.UUIDType:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}, nil
	case iceberg.FixedType:
		return &arrow.FixedSizeBinaryType{ByteWidth: t.Length}, nil
	case iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		return arrow.BinaryTypes.Binary, nil
	case iceberg.UnknownType:
		return arrow.Null, nil
	case iceberg.VariantType:
		return variantArrowType(), nil
	case *iceberg.StructType:
		fields := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			af, err := ArrowField(f)
			if err != nil {
				return nil, err
			}
			fields[i] = af
		}
		return arrow.StructOf(fields...), nil
	case *iceberg.ListType:
		elem, err := ArrowField(iceberg.NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired})
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(elem), nil
	case *iceberg.MapType:
		key, err := ArrowField(iceberg.NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true})
		if err != nil {
			return nil, err
		}
		val, err := ArrowField(iceberg.NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired})
		if err != nil {
			return nil, err
		}
		mt := arrow.MapOfWithMetadata(key.Type, key.Metadata, val.Type, val.Metadata)
		mt.SetItemNullable(val.Nullable)
		return mt, nil
	}
	return nil, fmt.Errorf("no Arrow type for iceberg type %v", t)
}

// ArrowField is the Arrow field for an Iceberg field: its name, type,
// nullability, and its field id in the metadata.
func ArrowField(f iceberg.NestedField) (arrow.Field, error) {
	dt, err := ArrowType(f.Type)
	if err != nil {
		return arrow.Field{}, fmt.Errorf("column %q: %w", f.Name, err)
	}
	keys, vals := []string{FieldIDKey}, []string{strconv.Itoa(f.ID)}
	if iceberg.IsGeo(f.Type) {
		keys, vals = appendGeoArrowMetadata(keys, vals, f.Type)
	}
	return arrow.Field{
		Name:     f.Name,
		Type:     dt,
		Nullable: !f.Required,
		Metadata: arrow.NewMetadata(keys, vals),
	}, nil
}

// ArrowSchema is the Arrow schema of a list of Iceberg fields.
func ArrowSchema(fields []iceberg.NestedField) (*arrow.Schema, error) {
	out := make([]arrow.Field, len(fields))
	for i, f := range fields {
		af, err := ArrowField(f)
		if err != nil {
			return nil, err
		}
		out[i] = af
	}
	return arrow.NewSchema(out, nil), nil
}

// variantArrowType is the Arrow type of every variant column floe returns.
func variantArrowType() arrow.DataType { return extensions.NewDefaultVariantType() }
