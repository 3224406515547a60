package scan

import (
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// Reserved field ids of the metadata columns a scan can select by name
// (spec: "Reserved Field IDs").
const (
	FieldIDFile                      = 2147483646
	FieldIDPos                       = 2147483645
	FieldIDSpecID                    = 2147483643
	FieldIDPartition                 = 2147483642
	FieldIDRowID                     = 2147483540
	FieldIDLastUpdatedSequenceNumber = 2147483539
)

// metadataField describes the metadata column with the given name; the
// _partition column's type is the table's unified partition type.
func metadataField(name string, partitionType *iceberg.StructType) (iceberg.NestedField, bool) {
	switch name {
	case "_file":
		return iceberg.NestedField{ID: FieldIDFile, Name: name, Type: iceberg.StringType{}, Required: true}, true
	case "_pos":
		return iceberg.NestedField{ID: FieldIDPos, Name: name, Type: iceberg.LongType{}, Required: true}, true
	case "_spec_id":
		return iceberg.NestedField{ID: FieldIDSpecID, Name: name, Type: iceberg.IntType{}, Required: true}, true
	case "_partition":
		if partitionType == nil {
			partitionType = &iceberg.StructType{}
		}
		return iceberg.NestedField{ID: FieldIDPartition, Name: name, Type: partitionType, Required: true}, true
	case "_row_id":
		return iceberg.NestedField{ID: FieldIDRowID, Name: name, Type: iceberg.LongType{}}, true
	case "_last_updated_sequence_number":
		return iceberg.NestedField{ID: FieldIDLastUpdatedSequenceNumber, Name: name, Type: iceberg.LongType{}}, true
	}
	return iceberg.NestedField{}, false
}

func isMetadataFieldID(id int) bool {
	switch id {
	case FieldIDFile, FieldIDPos, FieldIDSpecID, FieldIDPartition, FieldIDRowID, FieldIDLastUpdatedSequenceNumber:
		return true
	}
	return false
}

// checkMetadataFieldTypes refuses fields (a serialised task's) that give
// a metadata column of fixed type another type: the reader builds those
// columns itself, and a batch of them under another type is a panic.
func checkMetadataFieldTypes(fields []iceberg.NestedField) error {
	for _, f := range fields {
		var want iceberg.Type
		switch f.ID {
		case FieldIDFile:
			want = iceberg.StringType{}
		case FieldIDPos, FieldIDRowID, FieldIDLastUpdatedSequenceNumber:
			want = iceberg.LongType{}
		case FieldIDSpecID:
			want = iceberg.IntType{}
		default:
			continue
		}
		if f.Type != want {
			return errkind.Errorf(errkind.InvalidArgument, "metadata column %s (field %d) has type %s, not %s", f.Name, f.ID, f.Type, want)
		}
	}
	return nil
}
