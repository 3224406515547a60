package manifest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// TestReadManifestReusesNoBlock: ReadManifest decompresses into a buffer
// the next read reuses, so nothing an entry keeps may point into it.
// Entries with every kind of byte value (binary partition values, key
// metadata, bounds, paths) read from one manifest must stay as they were
// while other manifests are read through the same buffers.
func TestReadManifestReusesNoBlock(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "b", Type: iceberg.BinaryType{}}, {ID: 2, Name: "f", Type: iceberg.FixedType{Length: 3}}})
	spec := iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "b", Transform: iceberg.IdentityTransform{}},
		{SourceID: 2, FieldID: 1001, Name: "f", Transform: iceberg.IdentityTransform{}}}}
	pt, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	write := func(fill byte) ([]byte, ManifestFile) {
		var entries []Entry
		for i := range 300 {
			v := bytes.Repeat([]byte{fill + byte(i)}, 3)
			entries = append(entries, Entry{Status: StatusAdded, DataFile: DataFile{
				FilePath: fmt.Sprintf("%c/%d.parquet", 'a'+fill%20, i), FileFormat: "PARQUET", RecordCount: 1,
				Partition: []any{v, v}, KeyMetadata: v,
				Metrics: MetricsOf(MetricMaps{LowerBounds: map[int][]byte{1: v}, UpperBounds: map[int][]byte{2: v}}),
			}})
		}
		var buf bytes.Buffer
		mf, err := WriteManifest(&buf, ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: pt, Schema: schema, SnapshotID: 1}, entries)
		if err != nil {
			t.Fatal(err)
		}
		mf.Path, mf.SequenceNumber = "m.avro", 1
		return buf.Bytes(), mf
	}
	data, mf := write(1)
	kept, err := ReadManifest(data, mf, spec, pt, 2)
	if err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprintf("%+v", kept)
	for fill := byte(2); fill < 20; fill++ {
		other, omf := write(fill * 7)
		if _, err := ReadManifest(other, omf, spec, pt, 2); err != nil {
			t.Fatal(err)
		}
	}
	if after := fmt.Sprintf("%+v", kept); after != before {
		t.Fatal("entries changed when other manifests were read: they point into a reused block")
	}
}
