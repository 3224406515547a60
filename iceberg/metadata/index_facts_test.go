package metadata

import (
	"reflect"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg"
)

// Facts in this file come from testdata/fixtures/INDEX.md (and the engines'
// test files it quotes), not from floe's output.

func TestLegacyV1PartitionedTable(t *testing.T) {
	m := parseFixture(t, "impala_iceberg_partitioned/metadata/v2.metadata.json")
	if m.FormatVersion != 1 {
		t.Fatalf("format version %d, INDEX.md says v1", m.FormatVersion)
	}
	if len(m.Schemas) != 1 || m.CurrentSchema() == nil {
		t.Fatalf("legacy schema not normalised into Schemas: %d schemas", len(m.Schemas))
	}
	schema := m.CurrentSchema()
	spec := m.DefaultSpec()
	if len(m.PartitionSpecs) != 1 || spec == nil || len(spec.Fields) != 2 {
		t.Fatalf("want one spec with 2 fields, got %+v", m.PartitionSpecs)
	}
	// INDEX.md: the spec is hour(event_time) plus identity(action), and
	// event_time is timestamptz.
	want := []struct {
		source    string
		transform iceberg.Transform
	}{{"event_time", iceberg.HourTransform{}}, {"action", iceberg.IdentityTransform{}}}
	for i, w := range want {
		f := spec.Fields[i]
		src, ok := schema.FindField(f.SourceID)
		if !ok || src.Name != w.source || f.Transform != w.transform {
			t.Errorf("spec field %d: %s(%s), want %s(%s)", i, f.Transform, src.Name, w.transform, w.source)
		}
		if f.FieldID != iceberg.PartitionFieldIDStart+i {
			t.Errorf("spec field %d has id %d", i, f.FieldID)
		}
	}
	if f, _ := schema.FindFieldByName("event_time"); f.Type != (iceberg.TimestamptzType{}) {
		t.Errorf("event_time is %v, want timestamptz", f.Type)
	}
	// SHOW PARTITIONS lists 20 rows over 3 partitions in one append.
	snap := m.CurrentSnapshot()
	if snap == nil || snap.Operation() != "append" || snap.Summary["total-records"] != "20" {
		t.Fatalf("current snapshot %+v, want an append of 20 rows", snap)
	}
	if snap.SequenceNumber != 0 || m.LastSequenceNumber != 0 {
		t.Errorf("v1 sequence numbers must read as 0")
	}
	// No refs in the file: main is implied by current-snapshot-id.
	main, err := m.SnapshotByRef(MainBranch)
	if err != nil || main != snap {
		t.Errorf("main = %v, %v; want the current snapshot", main, err)
	}
	if m.LastPartitionID != 1001 {
		t.Errorf("last-partition-id %d, want 1001 (highest field id)", m.LastPartitionID)
	}
	if len(m.SortOrders) != 1 || m.DefaultSortOrder() == nil || len(m.DefaultSortOrder().Fields) != 0 {
		t.Errorf("missing sort orders should read as unsorted, got %+v", m.SortOrders)
	}
}

func TestLegacyV1TimestamptzTable(t *testing.T) {
	m := parseFixture(t, "impala_iceberg_timestamptz_part/metadata/v2.metadata.json")
	spec := m.DefaultSpec()
	if m.FormatVersion != 1 || len(spec.Fields) != 1 || spec.Fields[0].Transform != (iceberg.HourTransform{}) {
		t.Fatalf("want v1 with an hour spec, got v%d %+v", m.FormatVersion, spec)
	}
	src, _ := m.CurrentSchema().FindField(spec.Fields[0].SourceID)
	if src.Type != (iceberg.TimestamptzType{}) {
		t.Errorf("hour source is %v, want timestamptz", src.Type)
	}
	// "7 rows in 6 files".
	if s := m.CurrentSnapshot(); s.Summary["total-records"] != "7" || s.Summary["total-data-files"] != "6" {
		t.Errorf("summary %v, want 7 records in 6 files", s.Summary)
	}
}

func TestV3InitialDefaults(t *testing.T) {
	m := parseFixture(t, "impala_iceberg_v3_all_types/metadata/v4.metadata.json")
	schema := m.CurrentSchema()
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	// Row 1 of iceberg-v3-default-values.test was written before these
	// columns existed, so its values are the initial defaults.
	want := map[string]any{
		"col_boolean":         false,
		"col_int":             int32(-1),
		"col_bigint":          int64(-1),
		"col_float":           float32(1.5),
		"col_double":          2.5,
		"col_decimal":         iceberg.DecimalFromInt64(12345, 2),
		"col_string":          "initial_default",
		"col_date":            int32(utc(2024, 1, 1, 0, 0, 0, 0).Unix() / 86400),
		"col_timestamp":       utc(1969, 12, 31, 23, 59, 59, 123456000).UnixMicro(),
		"col_timestamp_epoch": int64(0),
		"col_timestamp_iso":   utc(2024, 1, 15, 10, 30, 45, 123456000).UnixMicro(),
	}
	for name, w := range want {
		f, ok := schema.FindFieldByName(name)
		if !ok {
			t.Errorf("no column %s", name)
			continue
		}
		if !reflect.DeepEqual(f.InitialDefault, w) {
			t.Errorf("%s initial-default = %#v, want %#v", name, f.InitialDefault, w)
		}
	}
	ts, _ := schema.FindFieldByName("col_timestamp")
	if us, _ := ts.InitialDefault.(int64); us >= 0 || us != -876544 {
		t.Errorf("1969-12-31T23:59:59.123456 should be -876544 µs, got %d", us)
	}
	// Row 1 has id only: it was written under schema 0.
	first := m.Ancestors(m.CurrentSnapshot())
	if len(first) != 2 {
		t.Fatalf("want 2 snapshots in the ancestry, got %d", len(first))
	}
	old, err := m.SchemaForSnapshot(first[1])
	if err != nil || len(old.Fields) != 1 || old.Fields[0].Name != "id" {
		t.Errorf("schema of the first snapshot = %v, %v; want just id", old, err)
	}
}

func TestPartitionEvolutionSpecs(t *testing.T) {
	m := parseFixture(t, "impala_test_default_part/metadata/v6.metadata.json")
	if len(m.PartitionSpecs) != 2 {
		t.Fatalf("%d specs, want 2", len(m.PartitionSpecs))
	}
	if s0 := m.SpecByID(0); s0 == nil || !s0.IsUnpartitioned() {
		t.Errorf("spec 0 should be unpartitioned: %+v", s0)
	}
	s1 := m.SpecByID(1)
	if s1 == nil || len(s1.Fields) != 1 || s1.Fields[0].Transform != (iceberg.IdentityTransform{}) {
		t.Fatalf("spec 1 should be identity(j): %+v", s1)
	}
	if src, _ := m.CurrentSchema().FindField(s1.Fields[0].SourceID); src.Name != "j" || src.InitialDefault != int32(-1) {
		t.Errorf("spec 1 source %+v, want j with initial-default -1", src)
	}
	if m.DefaultSpec() != s1 {
		t.Errorf("default spec should be 1")
	}
	if len(m.Snapshots) != 3 {
		t.Errorf("%d snapshots, want 3", len(m.Snapshots))
	}
	if m.SpecByID(2) != nil {
		t.Errorf("spec 2 should not exist")
	}
}

func TestLineitemSnapshots(t *testing.T) {
	m := parseFixture(t, "duckdb_lineitem_iceberg/metadata/v2.metadata.json")
	if len(m.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(m.Snapshots))
	}
	// The current snapshot holds 51793 records after an overwrite, and
	// "version 1" held 60175.
	cur := m.CurrentSnapshot()
	if cur.Operation() != "overwrite" || cur.Summary["total-records"] != "51793" {
		t.Errorf("current snapshot summary %v", cur.Summary)
	}
	anc := m.Ancestors(cur)
	if len(anc) != 2 || anc[1].SequenceNumber != 1 || anc[1].Summary["total-records"] != "60175" {
		t.Errorf("parent of current: %+v", anc)
	}
	if m.Property("write.parquet.compression-codec", "") != "zstd" {
		t.Errorf("zstd compression property missing")
	}
}

func TestV3RowLineageAndDeletionVectorSnapshots(t *testing.T) {
	dv := parseFixture(t, "impala_iceberg_v3_deletion_vectors/metadata/v3.metadata.json")
	if dv.NextRowID != 5 || len(dv.Snapshots) != 2 {
		t.Errorf("next-row-id %d with %d snapshots, want 5 and 2", dv.NextRowID, len(dv.Snapshots))
	}
	if dv.SnapshotByID(2700858159721908397) == nil {
		t.Errorf("time-travel snapshot 2700858159721908397 missing")
	}

	rl := parseFixture(t, "impala_iceberg_v3_row_lineage/metadata/v5.metadata.json")
	anc := rl.Ancestors(rl.CurrentSnapshot())
	if len(anc) != 4 {
		t.Fatalf("%d ancestors, want 4", len(anc))
	}
	// Newest first: seq 4 is the replace, seq 1-3 the appends.
	for i, s := range anc {
		wantOp := "append"
		if i == 0 {
			wantOp = "replace"
		}
		if s.SequenceNumber != int64(4-i) || s.Operation() != wantOp {
			t.Errorf("ancestor %d: seq %d %s, want seq %d %s", i, s.SequenceNumber, s.Operation(), 4-i, wantOp)
		}
		if s.FirstRowID == nil || s.AddedRows == nil {
			t.Errorf("v3 snapshot %d lacks first-row-id or added-rows", s.SnapshotID)
		}
	}
	// Three single-row inserts got row ids 0, 1 and 2.
	for i, s := range anc[1:] {
		if *s.FirstRowID != int64(2-i) || *s.AddedRows != 1 {
			t.Errorf("append seq %d: first-row-id %d added-rows %d", s.SequenceNumber, *s.FirstRowID, *s.AddedRows)
		}
	}
}

func TestSchemaEvolutionTimeTravelSchema(t *testing.T) {
	m := parseFixture(t, "impala_iceberg_v2_equality_delete_schema_evolution/metadata/v6.metadata.json")
	if len(m.Schemas) != 3 || len(m.Snapshots) != 3 {
		t.Fatalf("%d schemas and %d snapshots, want 3 and 3", len(m.Schemas), len(m.Snapshots))
	}
	cur := m.CurrentSchema()
	if f, ok := cur.FindField(3); !ok || f.Name != "str" {
		t.Errorf("field 3 is %q now, want str", f.Name)
	}
	if f, ok := cur.FindField(4); !ok || f.Name != "j" {
		t.Errorf("field 4 should be the added column j")
	}
	// INDEX.md: as of 3986738438831924669 the table had the old 3 columns.
	old, err := m.SchemaForSnapshot(m.SnapshotByID(3986738438831924669))
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Fields) != 3 || old.Fields[2].Name != "s" {
		t.Errorf("old schema %v, want i, d, s", old)
	}
}

func TestSnapshotCountsOfTimeTravelTables(t *testing.T) {
	for _, c := range []struct {
		file      string
		snapshots int
		asOfID    int64
	}{
		{"impala_iceberg_v2_delete_pos_and_multi_eq_ids/metadata/v5.metadata.json", 4, 152862018760071153},
		{"impala_iceberg_v2_delete_equality_partitioned/metadata/v5.metadata.json", 4, 0},
		{"impala_iceberg_v2_partitioned_position_deletes/metadata/v3.metadata.json", 2, 2057976186205897384},
		{"impala_iceberg_v2_positional_not_all_data_files_have_delete_files/metadata/v7.metadata.json", 6, 0},
		{"duckdb_equality_deletes/warehouse/mydb/mytable/metadata/v7.metadata.json", 6, 7342794868382145167},
		{"duckdb_equality_deletes/warehouse/mydb/mytable_partitioned/metadata/v6.metadata.json", 5, 0},
	} {
		m := parseFixture(t, c.file)
		if len(m.Snapshots) != c.snapshots {
			t.Errorf("%s: %d snapshots, want %d", c.file, len(m.Snapshots), c.snapshots)
		}
		if c.asOfID != 0 && m.SnapshotByID(c.asOfID) == nil {
			t.Errorf("%s: snapshot %d missing", c.file, c.asOfID)
		}
	}
	// duckdb_equality_deletes: that snapshot is sequence number 2.
	m := parseFixture(t, "duckdb_equality_deletes/warehouse/mydb/mytable/metadata/v7.metadata.json")
	if s := m.SnapshotByID(7342794868382145167); s.SequenceNumber != 2 {
		t.Errorf("snapshot 7342794868382145167 has seq %d, want 2", s.SequenceNumber)
	}
	// mytable_partitioned is partitioned by identity(name).
	p := parseFixture(t, "duckdb_equality_deletes/warehouse/mydb/mytable_partitioned/metadata/v6.metadata.json")
	f := p.DefaultSpec().Fields
	if len(f) != 1 || f[0].Transform != (iceberg.IdentityTransform{}) {
		t.Fatalf("spec %+v, want identity(name)", f)
	}
	if src, _ := p.CurrentSchema().FindField(f[0].SourceID); src.Name != "name" {
		t.Errorf("partition source %q, want name", src.Name)
	}
}

func TestMigratedTableNameMapping(t *testing.T) {
	m := parseFixture(t, "impala_iceberg_migrated_complex_test/metadata/v2.metadata.json")
	nm, err := m.NameMapping()
	if err != nil || nm == nil {
		t.Fatalf("name mapping: %v, %v", nm, err)
	}
	// INDEX.md quirk 4: struct_1_col.int_array_col is id 4 in the schema
	// but 2 in the mapping.
	if f, _ := m.CurrentSchema().FindFieldByName("struct_1_col.int_array_col"); f.ID != 4 {
		t.Errorf("schema id %d, want 4", f.ID)
	}
	outer, ok := nm.Find("struct_1_col")
	if !ok {
		t.Fatal("struct_1_col not in the mapping")
	}
	inner, ok := iceberg.NameMapping(outer.Fields).Find("int_array_col")
	if !ok || inner.FieldID == nil || *inner.FieldID != 2 {
		t.Errorf("mapping of int_array_col: %+v", inner)
	}

	if nm, err := parseFixture(t, "duckdb_uuid/metadata/00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json").NameMapping(); nm != nil || err != nil {
		t.Errorf("a table without the property has no mapping, got %v, %v", nm, err)
	}
}

func TestUUIDTable(t *testing.T) {
	m := parseFixture(t, "duckdb_uuid/metadata/00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json")
	f, ok := m.CurrentSchema().FindFieldByName("uuid")
	if !ok || f.Type != (iceberg.UUIDType{}) || !f.Required {
		t.Errorf("uuid column %+v, want a required uuid", f)
	}
	// The first version of the table has no snapshot yet.
	empty := parseFixture(t, "duckdb_uuid/metadata/00000-e8729e86-fe06-4ffc-835b-283f0d3e9921.metadata.json")
	if empty.CurrentSnapshot() != nil || empty.CurrentSnapshotID != nil || len(empty.Refs) != 0 {
		t.Errorf("empty table should have no current snapshot or refs")
	}
}
