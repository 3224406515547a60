package manifest

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// These manifests are written by the Avro library's own generic encoder
// with schemas no Iceberg writer would produce: misleading names, shuffled
// fields, extra fields, a partition tuple in another order, logical types
// missing or different, and no Iceberg header. Only the field ids are
// right, and reading must follow them.

const oddEntrySchema = `{"type":"record","name":"whatever","fields":[
 {"name":"df","field-id":2,"type":{"type":"record","name":"dfrec","fields":[
   {"name":"extra","type":"string","field-id":9999},
   {"name":"partition_data","field-id":102,"type":{"type":"record","name":"p","fields":[
     {"name":"zz_second","type":["null","string"],"field-id":1001},
     {"name":"day_of_thing","type":["null","int"],"field-id":1000},
     {"name":"amount","type":["null",{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}],"field-id":1002},
     {"name":"u","type":["null",{"type":"fixed","name":"uu","size":16}],"field-id":1003},
     {"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"field-id":1004}]}},
   {"name":"path","type":"string","field-id":100},
   {"name":"fmt","type":"string","field-id":101},
   {"name":"rows","type":"long","field-id":103},
   {"name":"size","type":"long","field-id":104},
   {"name":"kind","type":"int","field-id":134},
   {"name":"mins","field-id":125,"type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"kv1","fields":[{"name":"k","type":"int"},{"name":"v","type":"bytes"}]}}]},
   {"name":"sequence_number","type":["null","string"],"field-id":7777}]}},
 {"name":"file_sequence_number","type":["null","long"],"field-id":3},
 {"name":"sequence_number","type":["null","long"],"field-id":4},
 {"name":"st","type":"int","field-id":0},
 {"name":"snapshot_id","type":["null","long"],"field-id":1}]}`

func oddSpec(t *testing.T) (iceberg.PartitionSpec, *iceberg.StructType) {
	t.Helper()
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "d", Type: iceberg.DateType{}},
		{ID: 2, Name: "s", Type: iceberg.StringType{}},
		{ID: 3, Name: "amount", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
		{ID: 4, Name: "u", Type: iceberg.UUIDType{}},
		{ID: 5, Name: "ts", Type: iceberg.TimestampType{}},
	})
	var fields []iceberg.PartitionField
	for i, name := range []string{"d", "s", "amount", "u", "ts"} {
		fields = append(fields, iceberg.PartitionField{SourceID: i + 1, FieldID: 1000 + i, Name: name, Transform: iceberg.IdentityTransform{}})
	}
	spec := iceberg.PartitionSpec{ID: 3, Fields: fields}
	pt, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	return spec, pt
}

func writeGenericAvro(t *testing.T, schemaJSON string, records ...map[string]any) []byte {
	t.Helper()
	return writeGenericAvroWith(t, schemaJSON, nil, records...)
}

func writeGenericAvroWith(t *testing.T, schemaJSON string, codec ocf.Codec, records ...map[string]any) []byte {
	t.Helper()
	schema, err := avro.Parse(schemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var opts []ocf.WriterOpt
	if codec != nil {
		opts = append(opts, ocf.WithCodec(codec), ocf.WithBlockCount(2))
	}
	w, err := ocf.NewWriter(&buf, schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := w.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func oddRecord(status int32, dataSeq, fileSeq any) map[string]any {
	return map[string]any{
		"st": status, "snapshot_id": nil,
		"file_sequence_number": dataSeq, // field id 3: the data sequence number
		"sequence_number":      fileSeq, // field id 4: the file sequence number
		"df": map[string]any{
			"extra": "ignored",
			"partition_data": map[string]any{
				"zz_second": "x", "day_of_thing": int32(19715), "amount": big.NewRat(-12345, 100),
				"u": [16]byte{0xf7, 0x9c, 0x3e, 0x09}, "ts": int64(1700000000123456),
			},
			"path": "s3://b/t/data/f.parquet", "fmt": "PARQUET", "rows": int64(42), "size": int64(4096), "kind": int32(0),
			"mins":            []any{map[string]any{"k": int32(7), "v": []byte{1, 2}}},
			"sequence_number": "not a sequence number",
		},
	}
}

func TestReadByFieldID(t *testing.T) {
	spec, pt := oddSpec(t)
	data := writeGenericAvro(t, oddEntrySchema, oddRecord(1, int64(5), int64(6)))
	mf := ManifestFile{Path: "odd", PartitionSpecID: 3, AddedSnapshotID: 77, SequenceNumber: 9}
	es, err := ReadManifest(data, mf, spec, pt, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("%d entries", len(es))
	}
	e := es[0]
	if e.Status != StatusAdded || e.SequenceNumber != 5 || e.FileSequenceNumber != 6 || e.SnapshotID != 77 ||
		!e.SnapshotIDInherited || e.SequenceNumberInherited || e.FileSequenceNumberInherited {
		t.Errorf("tracking fields %+v", e)
	}
	df := e.DataFile
	if df.FilePath != "s3://b/t/data/f.parquet" || df.FileFormat != "PARQUET" || df.RecordCount != 42 || df.FileSizeInBytes != 4096 ||
		df.Content != ContentData || df.SpecID != 3 || !bytes.Equal(df.Metrics.Maps().LowerBounds[7], []byte{1, 2}) || len(df.Metrics.Maps().LowerBounds) != 1 {
		t.Errorf("data file %+v", df)
	}
	want := []any{int32(19715), "x", iceberg.DecimalFromInt64(-12345, 2), [16]byte{0xf7, 0x9c, 0x3e, 0x09}, int64(1700000000123456)}
	for i := range want {
		if df.Partition[i] != want[i] {
			t.Errorf("partition field %d: %#v, want %#v", i, df.Partition[i], want[i])
		}
	}
}

func TestSequenceNumberInheritanceRules(t *testing.T) {
	spec, pt := oddSpec(t)
	mf := ManifestFile{Path: "odd", PartitionSpecID: 3, AddedSnapshotID: 77, SequenceNumber: 9}
	read := func(records ...map[string]any) ([]Entry, error) {
		return ReadManifest(writeGenericAvro(t, oddEntrySchema, records...), mf, spec, pt, 2)
	}
	es, err := read(oddRecord(1, nil, nil), oddRecord(0, int64(4), nil), oddRecord(2, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	added, existing, deleted := es[0], es[1], es[2]
	if added.SequenceNumber != 9 || added.FileSequenceNumber != 9 || !added.SequenceNumberInherited || !added.FileSequenceNumberInherited {
		t.Errorf("ADDED inherits both sequence numbers: %+v", added)
	}
	if existing.SequenceNumber != 4 || existing.FileSequenceNumber != UnassignedSequenceNumber || existing.FileSequenceNumberInherited {
		t.Errorf("EXISTING keeps its data sequence number and inherits no file sequence number: %+v", existing)
	}
	if deleted.SequenceNumber != UnassignedSequenceNumber || deleted.SequenceNumberInherited {
		t.Errorf("DELETED does not inherit: %+v", deleted)
	}
	if _, err := read(oddRecord(0, nil, int64(3))); err == nil || !strings.Contains(err.Error(), "data sequence number") {
		t.Errorf("EXISTING without a data sequence number: %v", err)
	}
	// A manifest whose list entry has sequence number 0 predates sequence
	// numbers: every null is 0.
	mf.SequenceNumber = 0
	es, err = read(oddRecord(0, nil, nil))
	if err != nil || es[0].SequenceNumber != 0 || es[0].FileSequenceNumber != 0 {
		t.Errorf("v1-era manifest: %+v, %v", es, err)
	}
}

func TestFirstRowIDInheritance(t *testing.T) {
	// Spec example: manifest first_row_id 1000; an EXISTING file with id
	// 800 keeps it, two ADDED files of 50 rows get 1000 and 1050. A DELETED
	// file with a null id gets none and takes no ids (as Java does).
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "i", Type: iceberg.IntType{}}})
	spec := iceberg.PartitionSpec{}
	id := func(v int64) *int64 { return &v }
	entries := []Entry{
		{Status: StatusExisting, SnapshotID: 5, SequenceNumber: 1, FileSequenceNumber: 1, DataFile: DataFile{FilePath: "data1", FileFormat: "parquet", RecordCount: 25, FirstRowID: id(800)}},
		{Status: StatusAdded, DataFile: DataFile{FilePath: "data2", FileFormat: "parquet", RecordCount: 50}},
		{Status: StatusDeleted, SequenceNumber: 1, FileSequenceNumber: 1, DataFile: DataFile{FilePath: "gone", FileFormat: "parquet", RecordCount: 7}},
		{Status: StatusAdded, DataFile: DataFile{FilePath: "data3", FileFormat: "parquet", RecordCount: 50}},
	}
	var buf bytes.Buffer
	written, err := WriteManifest(&buf, ManifestWriteOptions{FormatVersion: 3, Spec: spec, PartitionType: &iceberg.StructType{}, Schema: schema, SnapshotID: 9}, entries)
	if err != nil {
		t.Fatal(err)
	}
	written.Path = "m.avro"
	var list bytes.Buffer
	assigned, rows, err := WriteManifestList(&list, ManifestListWriteOptions{FormatVersion: 3, SnapshotID: 9, SequenceNumber: 2, FirstRowID: 1000}, []ManifestFile{written})
	if err != nil {
		t.Fatal(err)
	}
	if *assigned[0].FirstRowID != 1000 || rows != 125 {
		t.Errorf("manifest first row id %d, %d rows assigned; want 1000 and 125 (added 100 + existing 25)", *assigned[0].FirstRowID, rows)
	}
	mfs, err := ReadManifestList(list.Bytes(), 3)
	if err != nil {
		t.Fatal(err)
	}
	es, err := ReadManifest(buf.Bytes(), mfs[0], spec, &iceberg.StructType{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, e := range es {
		if e.DataFile.FirstRowID == nil {
			got = append(got, nil)
		} else {
			got = append(got, *e.DataFile.FirstRowID)
		}
	}
	want := []any{int64(800), int64(1000), nil, int64(1050)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("first row ids %v, want %v", got, want)
			break
		}
	}
	// A manifest without a first_row_id (from before a v3 upgrade) assigns
	// nothing.
	noIDs := mfs[0]
	noIDs.FirstRowID = nil
	es, err = ReadManifest(buf.Bytes(), noIDs, spec, &iceberg.StructType{}, 3)
	if err != nil || es[1].DataFile.FirstRowID != nil || *es[0].DataFile.FirstRowID != 800 {
		t.Errorf("manifest without first_row_id: %+v, %v", es, err)
	}
}

func TestReadRefusesAmbiguousSchemas(t *testing.T) {
	spec, pt := oddSpec(t)
	mf := ManifestFile{Path: "odd", PartitionSpecID: 3, AddedSnapshotID: 77, SequenceNumber: 9}
	bad := map[string]string{
		"duplicate id":         strings.Replace(oddEntrySchema, `"field-id":4}`, `"field-id":3}`, 1),
		"missing required id":  strings.Replace(oddEntrySchema, `"name":"rows","type":"long","field-id":103`, `"name":"rows","type":"long","field-id":1103`, 1),
		"path is not a string": strings.Replace(oddEntrySchema, `{"name":"path","type":"string"`, `{"name":"path","type":"int"`, 1),
		"two-type union":       strings.Replace(oddEntrySchema, `{"name":"rows","type":"long"`, `{"name":"rows","type":["long","string"]`, 1),
		"unknown partition id": strings.Replace(oddEntrySchema, `"field-id":1004`, `"field-id":1010`, 1),
		"non-integer id":       strings.Replace(oddEntrySchema, `"field-id":0}`, `"field-id":"zero"}`, 1),
	}
	for name, schema := range bad {
		rec := oddRecord(1, nil, nil)
		if name == "path is not a string" {
			rec["df"].(map[string]any)["path"] = int32(1)
		}
		_, err := ReadManifest(writeGenericAvro(t, schema, rec), mf, spec, pt, 2)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestReadCodecs reads containers of several blocks in each codec readers
// must support.
func TestReadCodecs(t *testing.T) {
	spec, pt := oddSpec(t)
	mf := ManifestFile{Path: "odd", PartitionSpecID: 3, AddedSnapshotID: 77, SequenceNumber: 9}
	records := []map[string]any{oddRecord(1, nil, nil), oddRecord(1, nil, nil), oddRecord(1, nil, nil), oddRecord(1, nil, nil), oddRecord(1, nil, nil)}
	for _, codec := range []ocf.Codec{ocf.SnappyCodec(), ocf.MustZstdCodec(nil, nil), ocf.DeflateCodec(1)} {
		name := codec.Name()
		es, err := ReadManifest(writeGenericAvroWith(t, oddEntrySchema, codec, records...), mf, spec, pt, 2)
		if err != nil || len(es) != 5 || es[4].DataFile.RecordCount != 42 {
			t.Errorf("%s: %d entries, %v", name, len(es), err)
		}
	}
}
