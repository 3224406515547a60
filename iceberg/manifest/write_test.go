package manifest

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/twmb/avro/ocf"
)

func fileHeader(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	r, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return r.Metadata()
}

// TestWrittenSchemasMatchJava compares our Avro schemas with those Java
// (Iceberg 1.5 to 1.10) wrote into the fixtures, byte for byte. Older
// writers (Iceberg 1.0, pre-1.0 v1) used other names and are left out.
func TestWrittenSchemasMatchJava(t *testing.T) {
	older := map[string]bool{"duckdb_lineitem_iceberg": true, "impala_iceberg_partitioned": true}
	matched := map[string]int{}
	for _, ft := range fixtureTables(t) {
		lists, manifests := ft.avroFiles(t)
		for _, p := range append(lists, manifests...) {
			md := fileHeader(t, readFile(t, p))
			v, err := strconv.Atoi(string(md["format-version"]))
			if err != nil || older[ft.name] {
				continue // no Iceberg header, or an older writer
			}
			var ours, kind string
			if specID, ok := md["partition-spec-id"]; ok {
				id, _ := strconv.Atoi(string(specID))
				_, pt := ft.spec(t, id)
				if ours, err = manifestEntrySchema(v, pt); err != nil {
					t.Fatal(err)
				}
				kind = "manifest"
			} else {
				ours, kind = manifestListSchema(v), "list"
			}
			if got := string(md["avro.schema"]); got != ours {
				t.Errorf("%s: Java wrote\n%s\nwe write\n%s", p, got, ours)
			}
			matched[kind+" v"+strconv.Itoa(v)]++
		}
	}
	for _, kind := range []string{"manifest v2", "manifest v3", "list v2", "list v3"} {
		if matched[kind] == 0 {
			t.Errorf("no fixture to compare our %s schema with", kind)
		}
	}
	t.Logf("schemas identical to Java's: %v", matched)
}

// TestRewriteFixtureManifests writes every fixture manifest again and
// reads it back: the entries must be identical, and the returned list
// entry must agree with the one the original engine wrote.
func TestRewriteFixtureManifests(t *testing.T) {
	rewritten := 0
	for _, ft := range fixtureTables(t) {
		lists, _ := ft.avroFiles(t)
		for _, l := range lists {
			for _, mf := range ft.readList(t, l) {
				spec, pt := ft.spec(t, mf.PartitionSpecID)
				original := ft.readManifest(t, mf)
				var buf bytes.Buffer
				opts := ManifestWriteOptions{FormatVersion: ft.formatVersion, Spec: spec, PartitionType: pt, Schema: ft.schema, Content: mf.Content, SnapshotID: mf.AddedSnapshotID}
				out, err := WriteManifest(&buf, opts, original)
				if err != nil {
					t.Fatalf("%s: %v", mf.Path, err)
				}
				back, err := ReadManifest(buf.Bytes(), mf, spec, pt, ft.formatVersion)
				if err != nil {
					t.Fatalf("%s: reading the rewrite: %v", mf.Path, err)
				}
				if !reflect.DeepEqual(back, original) {
					t.Errorf("%s: rewrite reads back differently:\n%+v\n%+v", mf.Path, back, original)
				}
				if out.Length != int64(buf.Len()) || out.PartitionSpecID != mf.PartitionSpecID || out.Content != mf.Content || out.AddedSnapshotID != mf.AddedSnapshotID {
					t.Errorf("%s: returned %+v", mf.Path, out)
				}
				// Sequence numbers are assigned by the list writer at commit.
				if out.SequenceNumber != UnassignedSequenceNumber {
					t.Errorf("%s: sequence number %d before the commit", mf.Path, out.SequenceNumber)
				}
				if out.MinSequenceNumber == UnassignedSequenceNumber {
					out.MinSequenceNumber = mf.SequenceNumber
				}
				if out.MinSequenceNumber != mf.MinSequenceNumber && ft.formatVersion > 1 {
					t.Errorf("%s: min sequence number %d, the engine wrote %d", mf.Path, out.MinSequenceNumber, mf.MinSequenceNumber)
				}
				out.Path, out.SequenceNumber = mf.Path, mf.SequenceNumber
				checkCounts(t, out, back)
				for i, want := range mf.Partitions {
					got := out.Partitions[i]
					if got.ContainsNull != want.ContainsNull || !bytes.Equal(got.LowerBound, want.LowerBound) || !bytes.Equal(got.UpperBound, want.UpperBound) {
						t.Errorf("%s: summary %d is %+v, the engine wrote %+v", mf.Path, i, got, want)
					}
				}
				md := fileHeader(t, buf.Bytes())
				if string(md["format-version"]) != strconv.Itoa(ft.formatVersion) || string(md["partition-spec-id"]) != strconv.Itoa(spec.ID) ||
					!strings.Contains(string(md["schema"]), `"fields"`) || !strings.HasPrefix(string(md["partition-spec"]), "[") ||
					ft.formatVersion >= 2 && string(md["content"]) != mf.Content.String() {
					t.Errorf("%s: header %q", mf.Path, md)
				}
				rewritten++
			}
		}
	}
	if rewritten < 100 {
		t.Errorf("only %d manifests rewritten", rewritten)
	}
}

// TestRewriteFixtureManifestLists writes every fixture manifest list again
// and reads it back.
func TestRewriteFixtureManifestLists(t *testing.T) {
	for _, ft := range fixtureTables(t) {
		lists, _ := ft.avroFiles(t)
		for _, l := range lists {
			data := readFile(t, l)
			original := ft.readList(t, l)
			md := fileHeader(t, data)
			// Some lists predate the table's upgrade to v3.
			version := ft.formatVersion
			if v, err := strconv.Atoi(string(md["format-version"])); err == nil {
				version = v
			}
			opts := ManifestListWriteOptions{FormatVersion: version, SnapshotID: 1}
			if id, err := strconv.ParseInt(string(md["snapshot-id"]), 10, 64); err == nil {
				opts.SnapshotID = id
			}
			if id, err := strconv.ParseInt(string(md["parent-snapshot-id"]), 10, 64); err == nil {
				opts.ParentSnapshotID = &id
			}
			var buf bytes.Buffer
			written, _, err := WriteManifestList(&buf, opts, original)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			back, err := ReadManifestList(buf.Bytes(), version)
			if err != nil {
				t.Fatalf("%s: reading the rewrite: %v", l, err)
			}
			if !reflect.DeepEqual(back, original) || !reflect.DeepEqual(written, original) {
				t.Errorf("%s: rewrite differs:\n%+v\n%+v", l, back, original)
			}
			wmd := fileHeader(t, buf.Bytes())
			for _, key := range []string{"snapshot-id", "parent-snapshot-id", "sequence-number", "first-row-id", "format-version"} {
				if want, ok := md[key]; ok && key != "sequence-number" && key != "first-row-id" && !bytes.Equal(wmd[key], want) {
					t.Errorf("%s: header %s=%q, Java wrote %q", l, key, wmd[key], want)
				}
			}
		}
	}
}

// allTypesPartition has a partition field of every primitive type, with
// names that need sanitizing and a named Avro type used twice.
func allTypesPartition(t *testing.T) (iceberg.PartitionSpec, *iceberg.StructType, *iceberg.Schema) {
	t.Helper()
	types := []iceberg.Type{
		iceberg.BooleanType{}, iceberg.IntType{}, iceberg.LongType{}, iceberg.FloatType{}, iceberg.DoubleType{},
		iceberg.DecimalType{Precision: 9, Scale: 2}, iceberg.DecimalType{Precision: 38, Scale: 10}, iceberg.DecimalType{Precision: 9, Scale: 2},
		iceberg.DateType{}, iceberg.TimeType{}, iceberg.TimestampType{}, iceberg.TimestamptzType{}, iceberg.TimestampNsType{},
		iceberg.TimestamptzNsType{}, iceberg.StringType{}, iceberg.UUIDType{}, iceberg.FixedType{Length: 3}, iceberg.BinaryType{},
	}
	var cols []iceberg.NestedField
	var fields []iceberg.PartitionField
	for i, typ := range types {
		name := "c" + strconv.Itoa(i)
		if i == 1 {
			name = "1st-col.x"
		}
		cols = append(cols, iceberg.NestedField{ID: i + 1, Name: name, Type: typ})
		fields = append(fields, iceberg.PartitionField{SourceID: i + 1, FieldID: 1000 + i, Name: name, Transform: iceberg.IdentityTransform{}})
	}
	schema := iceberg.NewSchema(4, cols)
	spec := iceberg.PartitionSpec{ID: 2, Fields: fields}
	pt, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	return spec, pt, schema
}

func mustDecimal(t *testing.T, s string, scale int) iceberg.Decimal {
	t.Helper()
	d, err := iceberg.ParseDecimal(s, scale)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPartitionTypesRoundTrip(t *testing.T) {
	spec, pt, schema := allTypesPartition(t)
	tuples := [][]any{
		{true, int32(-7), int64(1) << 40, float32(math.Copysign(0, -1)), 2.5, mustDecimal(t, "-123.45", 2), mustDecimal(t, "12345678901234567890.0123456789", 10), mustDecimal(t, "9999999.99", 2),
			int32(-1), int64(86399999999), int64(-1), int64(1700000000000000), int64(-5), int64(1700000000000000001), "héllo", [16]byte{0xf7, 0x9c}, []byte{1, 2, 3}, []byte{}},
		{false, int32(math.MaxInt32), int64(math.MinInt64), float32(math.NaN()), math.Inf(-1), mustDecimal(t, "0.01", 2), mustDecimal(t, "-99999999999999999999999999.9999999999", 10), mustDecimal(t, "-9999999.99", 2),
			int32(20000), int64(0), int64(0), int64(0), int64(0), int64(0), "", [16]byte{}, []byte{0, 0, 0}, []byte{0xff}},
		make([]any, len(spec.Fields)),
	}
	var entries []Entry
	for i, tuple := range tuples {
		entries = append(entries, Entry{Status: StatusAdded, DataFile: DataFile{FilePath: "f" + strconv.Itoa(i), FileFormat: "parquet", RecordCount: 1, FileSizeInBytes: 10, Partition: tuple}})
	}
	var buf bytes.Buffer
	out, err := WriteManifest(&buf, ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: pt, Schema: schema, SnapshotID: 3}, entries)
	if err != nil {
		t.Fatal(err)
	}
	out.Path, out.SequenceNumber, out.MinSequenceNumber = "m", 4, 4
	back, err := ReadManifest(buf.Bytes(), out, spec, pt, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range back {
		for j, v := range e.DataFile.Partition {
			want := tuples[i][j]
			if f, ok := want.(float32); ok && f != f {
				if g, ok := v.(float32); !ok || g == g {
					t.Errorf("entry %d field %d: %v, want NaN", i, j, v)
				}
				continue
			}
			if !reflect.DeepEqual(v, want) && !(j == 17 && len(want.([]byte)) == 0 && len(v.([]byte)) == 0) {
				t.Errorf("entry %d field %d (%s): %#v, want %#v", i, j, pt.Fields[j].Type, v, want)
			}
			if math.Signbit(float64(asFloat32(v))) != math.Signbit(float64(asFloat32(want))) {
				t.Errorf("entry %d field %d: sign of zero lost", i, j)
			}
		}
	}
	// Summaries: every field has a null (the third tuple); the float field
	// has a NaN; bounds are the Appendix D encodings of min and max.
	s := out.Partitions
	for i, fs := range s {
		if !fs.ContainsNull {
			t.Errorf("summary %d lacks contains_null", i)
		}
	}
	if !*s[3].ContainsNaN || !bytes.Equal(s[3].LowerBound, []byte{0, 0, 0, 0x80}) || !bytes.Equal(s[3].UpperBound, []byte{0, 0, 0, 0x80}) {
		t.Errorf("float summary %+v: -0.0 is the only non-NaN value", s[3])
	}
	if !bytes.Equal(s[5].LowerBound, []byte{0xcf, 0xc7}) || !bytes.Equal(s[5].UpperBound, []byte{0x01}) {
		t.Errorf("decimal summary %x..%x, want cfc7 (-12345) .. 01", s[5].LowerBound, s[5].UpperBound)
	}
	if !bytes.Equal(s[14].LowerBound, []byte("")) || !bytes.Equal(s[14].UpperBound, []byte("héllo")) {
		t.Errorf("string summary %+v", s[14])
	}
	if !bytes.Equal(s[1].LowerBound, []byte{0xf9, 0xff, 0xff, 0xff}) || !bytes.Equal(s[1].UpperBound, []byte{0xff, 0xff, 0xff, 0x7f}) {
		t.Errorf("int summary %x..%x", s[1].LowerBound, s[1].UpperBound)
	}
	// The header schema names the sanitized field as Java does.
	if schema := string(fileHeader(t, buf.Bytes())["avro.schema"]); !strings.Contains(schema, `"name":"_1st_x2Dcol_x2Ex"`) ||
		!strings.Contains(schema, `"iceberg-field-name":"1st-col.x"`) || strings.Count(schema, `"name":"decimal_9_2"`) != 1 {
		t.Errorf("partition record: %s", schema)
	}
}

func asFloat32(v any) float32 {
	if f, ok := v.(float32); ok {
		return f
	}
	return 1
}

func TestWriteNewManifestAndCommit(t *testing.T) {
	// A v2 append: a new manifest of two added files written before the
	// commit (no snapshot id, no sequence numbers), listed next to an
	// existing manifest, then read back as a scan would.
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "s", Type: iceberg.StringType{}}})
	spec := iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "s", Transform: iceberg.IdentityTransform{}}}}
	pt, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	entries := []Entry{
		{Status: StatusAdded, DataFile: DataFile{FilePath: "a", FileFormat: "parquet", RecordCount: 3, FileSizeInBytes: 100, Partition: []any{"x"},
			Metrics: MetricsOf(MetricMaps{ColumnSizes: map[int]int64{1: 10}, LowerBounds: map[int][]byte{1: []byte("a")}}), SplitOffsets: []int64{4}}},
		{Status: StatusAdded, SequenceNumber: 2, DataFile: DataFile{FilePath: "b", FileFormat: "parquet", RecordCount: 4, FileSizeInBytes: 100, Partition: []any{nil}}},
		{Status: StatusExisting, SnapshotID: 11, SequenceNumber: 1, FileSequenceNumber: 1, DataFile: DataFile{FilePath: "c", FileFormat: "parquet", RecordCount: 5, FileSizeInBytes: 100, Partition: []any{"y"}}},
	}
	var mbuf bytes.Buffer
	mf, err := WriteManifest(&mbuf, ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: pt, Schema: schema}, entries)
	if err != nil {
		t.Fatal(err)
	}
	if mf.AddedFilesCount != 2 || mf.AddedRowsCount != 7 || mf.ExistingFilesCount != 1 || mf.ExistingRowsCount != 5 || mf.MinSequenceNumber != 1 ||
		mf.SequenceNumber != UnassignedSequenceNumber || mf.AddedSnapshotID != 0 || !mf.Partitions[0].ContainsNull {
		t.Errorf("returned manifest file %+v", mf)
	}
	mf.Path = "new.avro"
	old := ManifestFile{Path: "old.avro", Length: 10, AddedSnapshotID: 11, SequenceNumber: 1, MinSequenceNumber: 1, Content: ManifestContentDeletes}
	parent := int64(11)
	var lbuf bytes.Buffer
	written, _, err := WriteManifestList(&lbuf, ManifestListWriteOptions{FormatVersion: 2, SnapshotID: 12, ParentSnapshotID: &parent, SequenceNumber: 3}, []ManifestFile{mf, old})
	if err != nil {
		t.Fatal(err)
	}
	if written[0].SequenceNumber != 3 || written[0].MinSequenceNumber != 1 || written[0].AddedSnapshotID != 12 || !reflect.DeepEqual(written[1], old) {
		t.Errorf("assigned %+v", written)
	}
	md := fileHeader(t, lbuf.Bytes())
	if string(md["snapshot-id"]) != "12" || string(md["parent-snapshot-id"]) != "11" || string(md["sequence-number"]) != "3" || string(md["format-version"]) != "2" {
		t.Errorf("list header %q", md)
	}
	mfs, err := ReadManifestList(lbuf.Bytes(), 2)
	if err != nil || !reflect.DeepEqual(mfs, written) {
		t.Fatalf("list read back %+v, %v", mfs, err)
	}
	es, err := ReadManifest(mbuf.Bytes(), mfs[0], spec, pt, 2)
	if err != nil {
		t.Fatal(err)
	}
	type tracking struct {
		snap, seq, fseq int64
		inh             [3]bool
	}
	want := []tracking{
		{12, 3, 3, [3]bool{true, true, true}},
		{12, 2, 3, [3]bool{true, false, true}},
		{11, 1, 1, [3]bool{false, false, false}},
	}
	for i, e := range es {
		got := tracking{e.SnapshotID, e.SequenceNumber, e.FileSequenceNumber, [3]bool{e.SnapshotIDInherited, e.SequenceNumberInherited, e.FileSequenceNumberInherited}}
		if got != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got, want[i])
		}
	}
	if !reflect.DeepEqual(es[0].DataFile.Metrics.Maps().ColumnSizes, map[int]int64{1: 10}) || string(es[0].DataFile.Metrics.Maps().LowerBounds[1]) != "a" || es[0].DataFile.Partition[0] != "x" || es[1].DataFile.Partition[0] != nil {
		t.Errorf("data file %+v", es[0].DataFile)
	}
}

func TestRowIDAssignmentSpecExample(t *testing.T) {
	// Spec "Row lineage example": next-row-id 1000; an existing manifest
	// keeps 925; new manifests (100+25), (0+100), (125+25) get 1000, 1125
	// and 1225, and 375 ids are assigned. Delete manifests get none.
	existingID := int64(925)
	manifests := []ManifestFile{
		{Path: "existing", AddedSnapshotID: 1, SequenceNumber: 1, MinSequenceNumber: 1, AddedRowsCount: 75, FirstRowID: &existingID},
		{Path: "added1", AddedRowsCount: 100, ExistingRowsCount: 25, SequenceNumber: UnassignedSequenceNumber, MinSequenceNumber: UnassignedSequenceNumber},
		{Path: "deletes", Content: ManifestContentDeletes, AddedRowsCount: 9, SequenceNumber: UnassignedSequenceNumber, MinSequenceNumber: UnassignedSequenceNumber},
		{Path: "added2", ExistingRowsCount: 100, SequenceNumber: UnassignedSequenceNumber, MinSequenceNumber: UnassignedSequenceNumber},
		{Path: "added3", AddedRowsCount: 125, ExistingRowsCount: 25, SequenceNumber: UnassignedSequenceNumber, MinSequenceNumber: UnassignedSequenceNumber},
	}
	var buf bytes.Buffer
	written, rows, err := WriteManifestList(&buf, ManifestListWriteOptions{FormatVersion: 3, SnapshotID: 2, SequenceNumber: 2, FirstRowID: 1000}, manifests)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 375 {
		t.Errorf("%d row ids assigned, want 375", rows)
	}
	want := []any{int64(925), int64(1000), nil, int64(1125), int64(1225)}
	back, err := ReadManifestList(buf.Bytes(), 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range back {
		var got any
		if m.FirstRowID != nil {
			got = *m.FirstRowID
		}
		if got != want[i] || !reflect.DeepEqual(m, written[i]) {
			t.Errorf("%s: first_row_id %v, want %v", m.Path, got, want[i])
		}
	}
	if md := fileHeader(t, buf.Bytes()); string(md["first-row-id"]) != "1000" || string(md["parent-snapshot-id"]) != "null" {
		t.Errorf("header %q", md)
	}
}

func TestWriteRejects(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "i", Type: iceberg.IntType{}}})
	spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "i", Transform: iceberg.IdentityTransform{}}}}
	pt, _ := spec.PartitionType(schema)
	data := func(p any) DataFile {
		return DataFile{FilePath: "f", FileFormat: "parquet", RecordCount: 1, Partition: []any{p}}
	}
	opts := ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: pt, Schema: schema, SnapshotID: 1}
	cases := map[string]struct {
		opts ManifestWriteOptions
		e    Entry
	}{
		"wrong partition type":      {opts, Entry{Status: StatusAdded, DataFile: data("x")}},
		"partition arity":           {opts, Entry{Status: StatusAdded, DataFile: DataFile{FilePath: "f", FileFormat: "parquet"}}},
		"delete file in data":       {opts, Entry{Status: StatusAdded, DataFile: DataFile{Content: ContentPositionDeletes, FilePath: "f", Partition: []any{nil}}}},
		"equality without ids":      {ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: pt, Schema: schema, Content: ManifestContentDeletes}, Entry{Status: StatusAdded, DataFile: DataFile{Content: ContentEqualityDeletes, FilePath: "f", Partition: []any{nil}}}},
		"v1 delete manifest":        {ManifestWriteOptions{FormatVersion: 1, Spec: spec, PartitionType: pt, Schema: schema, Content: ManifestContentDeletes}, Entry{}},
		"existing without snapshot": {opts, Entry{Status: StatusExisting, SequenceNumber: 1, DataFile: data(int32(1))}},
		"existing without sequence": {opts, Entry{Status: StatusExisting, SnapshotID: 1, SequenceNumber: UnassignedSequenceNumber, DataFile: data(int32(1))}},
		"bad status":                {opts, Entry{Status: 3, DataFile: data(int32(1))}},
		"no schema":                 {ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: pt}, Entry{}},
		"version 4":                 {ManifestWriteOptions{FormatVersion: 4, Spec: spec, PartitionType: pt, Schema: schema}, Entry{}},
		"offset without size":       {ManifestWriteOptions{FormatVersion: 3, Spec: spec, PartitionType: pt, Schema: schema, Content: ManifestContentDeletes}, Entry{Status: StatusAdded, DataFile: DataFile{Content: ContentPositionDeletes, FilePath: "f", Partition: []any{nil}, ContentOffset: new(int64)}}},
	}
	for name, c := range cases {
		if _, err := WriteManifest(&bytes.Buffer{}, c.opts, []Entry{c.e}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	other := []ManifestFile{{Path: "m", AddedSnapshotID: 5, SequenceNumber: UnassignedSequenceNumber, MinSequenceNumber: UnassignedSequenceNumber}}
	if _, _, err := WriteManifestList(&bytes.Buffer{}, ManifestListWriteOptions{FormatVersion: 2, SnapshotID: 6, SequenceNumber: 2}, other); err == nil {
		t.Error("a manifest of another snapshot got this snapshot's sequence number")
	}
	unknown := []ManifestFile{{Path: "m", AddedSnapshotID: 5, SequenceNumber: 1, MinSequenceNumber: 1, AddedFilesCount: UnknownCount}}
	if _, _, err := WriteManifestList(&bytes.Buffer{}, ManifestListWriteOptions{FormatVersion: 2, SnapshotID: 6, SequenceNumber: 2}, unknown); err == nil {
		t.Error("v2 list with an unknown count accepted")
	}
	if _, _, err := WriteManifestList(&bytes.Buffer{}, ManifestListWriteOptions{FormatVersion: 1, SnapshotID: 6}, unknown); err != nil {
		t.Errorf("v1 list with an unknown count: %v", err)
	}
}

func TestV1RoundTrip(t *testing.T) {
	spec, pt, schema := allTypesPartition(t)
	tuple := make([]any, len(spec.Fields))
	tuple[14] = "v1"
	entries := []Entry{{Status: StatusAdded, DataFile: DataFile{FilePath: "f", FileFormat: "PARQUET", RecordCount: 2, FileSizeInBytes: 9, Partition: tuple, Metrics: MetricsOf(MetricMaps{NaNValueCounts: map[int]int64{4: 0}})}}}
	var mbuf bytes.Buffer
	mf, err := WriteManifest(&mbuf, ManifestWriteOptions{FormatVersion: 1, Spec: spec, PartitionType: pt, Schema: schema, SnapshotID: 8}, entries)
	if err != nil {
		t.Fatal(err)
	}
	mf.Path = "m1"
	mf.ExistingRowsCount = UnknownCount
	var lbuf bytes.Buffer
	written, _, err := WriteManifestList(&lbuf, ManifestListWriteOptions{FormatVersion: 1, SnapshotID: 8}, []ManifestFile{mf})
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := ReadManifestList(lbuf.Bytes(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if mfs[0].SequenceNumber != UnassignedSequenceNumber && mfs[0].SequenceNumber != 0 || mfs[0].ExistingRowsCount != UnknownCount || mfs[0].AddedFilesCount != 1 {
		t.Errorf("v1 list entry %+v (written %+v)", mfs[0], written[0])
	}
	es, err := ReadManifest(mbuf.Bytes(), mfs[0], spec, pt, 1)
	if err != nil {
		t.Fatal(err)
	}
	if es[0].SequenceNumber != 0 || es[0].SnapshotID != 8 || es[0].DataFile.Partition[14] != "v1" || es[0].DataFile.Metrics.Maps().NaNValueCounts[4] != 0 || len(es[0].DataFile.Metrics.Maps().NaNValueCounts) != 1 {
		t.Errorf("v1 entry %+v", es[0])
	}
	if strings.Contains(string(fileHeader(t, mbuf.Bytes())["avro.schema"]), "sequence_number") {
		t.Error("v1 manifest schema has sequence numbers")
	}
}
