package arrowschema

import (
	"testing"

	"github.com/floedb/floe/iceberg"
)

// Every Iceberg type floe returns as Arrow maps back to itself, so a table
// created from floe's own batches gets the schema they were read with.
func TestIcebergArrowRoundTrip(t *testing.T) {
	types := []iceberg.Type{
		iceberg.BooleanType{}, iceberg.IntType{}, iceberg.LongType{}, iceberg.FloatType{}, iceberg.DoubleType{},
		iceberg.DateType{}, iceberg.TimeType{}, iceberg.TimestampType{}, iceberg.TimestamptzType{},
		iceberg.TimestampNsType{}, iceberg.TimestamptzNsType{}, iceberg.StringType{}, iceberg.BinaryType{},
		iceberg.FixedType{Length: 7}, iceberg.DecimalType{Precision: 38, Scale: 9}, iceberg.VariantType{},
		&iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 1, Name: "a", Type: iceberg.IntType{}, Required: true},
			{ID: 2, Name: "b", Type: &iceberg.ListType{ElementID: 3, Element: iceberg.StringType{}}},
		}},
		&iceberg.MapType{KeyID: 4, Key: iceberg.StringType{}, ValueID: 5, Value: iceberg.LongType{}, ValueRequired: true},
	}
	for _, typ := range types {
		at, err := ArrowType(typ)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		back, err := IcebergType("c", at)
		if err != nil {
			t.Fatalf("%s via %s: %v", typ, at, err)
		}
		if !sameIgnoringIDs(typ, back) {
			t.Errorf("%s became %s and came back as %s", typ, at, back)
		}
	}
}

// sameIgnoringIDs compares types by their string form with field ids
// dropped: IcebergType leaves ids to the table that numbers them.
func sameIgnoringIDs(a, b iceberg.Type) bool {
	return stripIDs(a).String() == stripIDs(b).String()
}

func stripIDs(t iceberg.Type) iceberg.Type {
	switch t := t.(type) {
	case *iceberg.StructType:
		fields := make([]iceberg.NestedField, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = iceberg.NestedField{Name: f.Name, Type: stripIDs(f.Type), Required: f.Required}
		}
		return &iceberg.StructType{Fields: fields}
	case *iceberg.ListType:
		return &iceberg.ListType{Element: stripIDs(t.Element), ElementRequired: t.ElementRequired}
	case *iceberg.MapType:
		return &iceberg.MapType{Key: stripIDs(t.Key), Value: stripIDs(t.Value), ValueRequired: t.ValueRequired}
	}
	return t
}
