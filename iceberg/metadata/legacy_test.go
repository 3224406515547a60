package metadata

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// oldestV1 is v1 metadata as the earliest writers made it: no table-uuid,
// a single schema without schema-id, partition fields without field ids,
// no last-partition-id, no sort orders, no refs, and a snapshot listing its
// manifests inline with no summary.
const oldestV1 = `{
  "format-version": 1,
  "location": "hdfs://nn/warehouse/t",
  "last-updated-ms": 1550000000000,
  "last-column-id": 3,
  "schema": {"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long"},
    {"id": 2, "name": "ts", "required": false, "type": "timestamp"},
    {"id": 3, "name": "cat", "required": false, "type": "string"}]},
  "partition-spec": [
    {"name": "ts_day", "transform": "day", "source-id": 2},
    {"name": "cat_bucket", "transform": "bucket[16]", "source-id": 3}],
  "properties": {"write.format.default": "parquet"},
  "current-snapshot-id": 5,
  "snapshots": [
    {"snapshot-id": 5, "timestamp-ms": 1550000000000,
     "manifests": ["hdfs://nn/warehouse/t/metadata/m1.avro", "hdfs://nn/warehouse/t/metadata/m2.avro"]}]
}`

func TestOldestV1FormIsNormalised(t *testing.T) {
	m, err := Parse([]byte(oldestV1))
	if err != nil {
		t.Fatal(err)
	}
	if m.TableUUID != "" || m.LastSequenceNumber != 0 {
		t.Errorf("uuid %q seq %d", m.TableUUID, m.LastSequenceNumber)
	}
	if len(m.Schemas) != 1 || m.CurrentSchemaID != 0 || m.CurrentSchema().Fields[1].Name != "ts" {
		t.Errorf("schemas %v current %d", m.Schemas, m.CurrentSchemaID)
	}
	wantFields := []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "ts_day", Transform: iceberg.DayTransform{}},
		{SourceID: 3, FieldID: 1001, Name: "cat_bucket", Transform: iceberg.BucketTransform{N: 16}},
	}
	if len(m.PartitionSpecs) != 1 || m.DefaultSpecID != 0 || !reflect.DeepEqual(m.DefaultSpec().Fields, wantFields) {
		t.Errorf("specs %+v", m.PartitionSpecs)
	}
	if m.LastPartitionID != 1001 {
		t.Errorf("last-partition-id %d, want 1001", m.LastPartitionID)
	}
	if len(m.SortOrders) != 1 || m.DefaultSortOrder().OrderID != 0 || len(m.DefaultSortOrder().Fields) != 0 {
		t.Errorf("sort orders %+v", m.SortOrders)
	}
	s := m.CurrentSnapshot()
	if s == nil || s.ManifestList != "" || len(s.Manifests) != 2 || s.Summary != nil || s.Operation() != "" {
		t.Fatalf("snapshot %+v", s)
	}
	if main := m.Refs[MainBranch]; main.SnapshotID != 5 {
		t.Errorf("main %+v", main)
	}

	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var written map[string]json.RawMessage
	if err := json.Unmarshal(out, &written); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"schema", "partition-spec", "schemas", "partition-specs", "last-partition-id", "sort-orders"} {
		if _, ok := written[key]; !ok {
			t.Errorf("v1 output lacks %q", key)
		}
	}
	for _, key := range []string{"table-uuid", "last-sequence-number", "next-row-id"} {
		if _, ok := written[key]; ok {
			t.Errorf("v1 output has %q", key)
		}
	}
	var legacySpec []map[string]any
	if err := json.Unmarshal(written["partition-spec"], &legacySpec); err != nil || len(legacySpec) != 2 || legacySpec[1]["field-id"] != 1001.0 {
		t.Errorf("legacy partition-spec %s (%v)", written["partition-spec"], err)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, again) {
		t.Errorf("round trip differs")
	}
}

// TestV1PrefersSchemasOverLegacySchema follows the reference
// implementation: when both forms are present, the modern lists win.
func TestV1PrefersSchemasOverLegacySchema(t *testing.T) {
	var d doc
	if err := json.Unmarshal([]byte(oldestV1), &d); err != nil {
		t.Fatal(err)
	}
	d["current-schema-id"] = 4
	d["schemas"] = []any{doc{"type": "struct", "schema-id": 4, "fields": []any{doc{"id": 1, "name": "renamed", "required": true, "type": "long"}}}}
	d["default-spec-id"] = 2
	d["partition-specs"] = []any{doc{"spec-id": 2, "fields": []any{}}}
	m := mustParse(t, d)
	if m.CurrentSchemaID != 4 || m.CurrentSchema().Fields[0].Name != "renamed" {
		t.Errorf("current schema %v", m.CurrentSchema())
	}
	if m.DefaultSpecID != 2 || !m.DefaultSpec().IsUnpartitioned() || m.LastPartitionID != 999 {
		t.Errorf("default spec %+v, last-partition-id %d", m.DefaultSpec(), m.LastPartitionID)
	}
}

// TestV1IgnoresSequenceNumbers: v1 has none, so a stray
// last-sequence-number reads as 0, as in the reference implementation.
func TestV1IgnoresLastSequenceNumber(t *testing.T) {
	var d doc
	if err := json.Unmarshal([]byte(oldestV1), &d); err != nil {
		t.Fatal(err)
	}
	d["last-sequence-number"] = 9
	if m := mustParse(t, d); m.LastSequenceNumber != 0 {
		t.Errorf("last-sequence-number %d", m.LastSequenceNumber)
	}
}

func TestCurrentSnapshotIDMinusOneAndNull(t *testing.T) {
	for _, v := range []any{-1, nil} {
		d := rollbackTable()
		d["current-snapshot-id"] = v
		delete(d["refs"].(doc), "main")
		m := mustParse(t, d)
		if m.CurrentSnapshotID != nil || m.CurrentSnapshot() != nil {
			t.Errorf("current-snapshot-id %v: got %v", v, m.CurrentSnapshotID)
		}
		if _, ok := m.Refs[MainBranch]; ok {
			t.Errorf("no main branch without a current snapshot")
		}
	}
	// The writer spells "none" as -1 before v3 and null from v3, as the
	// reference implementation does.
	for version, want := range map[int]string{2: "-1", 3: "null"} {
		d := rollbackTable()
		d["format-version"] = version
		d["next-row-id"] = 0
		d["current-snapshot-id"] = -1
		delete(d["refs"].(doc), "main")
		out, err := mustParse(t, d).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(out, &top); err != nil {
			t.Fatal(err)
		}
		if got := string(top["current-snapshot-id"]); got != want {
			t.Errorf("v%d writes %s for no snapshot, want %s", version, got, want)
		}
	}
}

func TestStatisticsAndEncryptionKeysRoundTrip(t *testing.T) {
	d := richV3Table()
	m := mustParse(t, d)
	want := StatisticsFile{SnapshotID: 3, StatisticsPath: "s3://b/t/metadata/stats.puffin", FileSizeInBytes: 413,
		FileFooterSizeInBytes: 42, KeyMetadata: "aWNlYmVyZwo=",
		BlobMetadata: []BlobMetadata{{Type: "apache-datasketches-theta-v1", SnapshotID: 3, SequenceNumber: 3, Fields: []int{1}, Properties: map[string]string{"ndv": "3"}}}}
	if len(m.Statistics) != 1 || !reflect.DeepEqual(m.Statistics[0], want) {
		t.Errorf("statistics %+v", m.Statistics)
	}
	if len(m.PartitionStatistics) != 1 || m.PartitionStatistics[0].FileSizeInBytes != 43 {
		t.Errorf("partition statistics %+v", m.PartitionStatistics)
	}
	if len(m.EncryptionKeys) != 1 || m.EncryptionKeys[0].EncryptedByID != "kms" || m.EncryptionKeys[0].Properties["a"] != "b" {
		t.Errorf("encryption keys %+v", m.EncryptionKeys)
	}
	s := m.SnapshotByID(3)
	if *s.KeyID != "5f819b" || *s.FirstRowID != 10 || *s.AddedRows != 32 || m.NextRowID != 42 {
		t.Errorf("snapshot %+v next-row-id %d", s, m.NextRowID)
	}
	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, again) {
		t.Errorf("round trip differs:\n%s", out)
	}
}
