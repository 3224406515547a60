package manifest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// bigQueryEntry is a BigQuery-shaped manifest entry (bigQueryShapedEntrySchema)
// whose data_file.partition is the given value: an empty record or null.
func bigQueryEntry(partition any) map[string]any {
	return map[string]any{
		"status": int32(1),
		"data_file": map[string]any{
			"content": int32(0), "file_path": "gs://b/t/data/f.parquet", "file_format": "PARQUET",
			"partition": partition, "record_count": int64(3), "file_size_in_bytes": int64(600),
			"lower_bounds": []any{map[string]any{"key": int32(1), "value": []byte{9}}},
		},
	}
}

// TestNullPartitionOfAnUnpartitionedSpec: BigQuery writes partition: null
// for the data files of an unpartitioned spec. With no partition fields the
// null is the empty tuple, and the entry reads as the same entry with an
// empty record does; under a spec with fields it stays an error naming
// data_file.partition.
func TestNullPartitionOfAnUnpartitionedSpec(t *testing.T) {
	mf := ManifestFile{Path: "bq", AddedSnapshotID: 41, SequenceNumber: 6, MinSequenceNumber: 6}
	want, err := ReadManifest(writeGenericAvro(t, bigQueryShapedEntrySchema, bigQueryEntry(map[string]any{})), mf, iceberg.PartitionSpec{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	nullData := writeGenericAvro(t, bigQueryShapedEntrySchema, bigQueryEntry(nil))
	got, err := ReadManifest(nullData, mf, iceberg.PartitionSpec{}, nil, 2)
	if err != nil {
		t.Fatalf("a null partition under an unpartitioned spec: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("null partition read as\n%+v\nan empty record as\n%+v", got, want)
	}

	// The same null where the spec has a field.
	spec, pt, _ := unionTable(t)
	mf.PartitionSpecID = spec.ID
	_, err = ReadManifest(nullData, mf, spec, pt, 2)
	var ne *nullFieldError
	if !errors.As(err, &ne) || ne.field != "data_file.partition" {
		t.Fatalf("a null partition under a partitioned spec: %v, want the null data_file.partition named", err)
	}
}
