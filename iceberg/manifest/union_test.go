package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/internal/avronull"
	"github.com/twmb/avro"
)

// Some writers (BigQuery) declare every value of manifests and manifest
// lists nullable, records included: data_file, the partition tuple, the
// key/value records of the metric maps, array items. Files floe writes are
// rewritten that way by avronull and must read back as the plain files do.

type unionCase struct {
	version int
	content ManifestContent
}

func (c unionCase) String() string { return fmt.Sprintf("v%d-%s", c.version, c.content) }

var unionCases = []unionCase{{1, ManifestContentData}, {2, ManifestContentData}, {2, ManifestContentDeletes}, {3, ManifestContentData}}

// unionTable is a table partitioned by day(d) and identity(n), whose files
// carry every metric map, split offsets and key metadata.
func unionTable(t testing.TB) (iceberg.PartitionSpec, *iceberg.StructType, *iceberg.Schema) {
	t.Helper()
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "d", Type: iceberg.DateType{}},
		{ID: 2, Name: "n", Type: iceberg.IntType{}},
		{ID: 3, Name: "s", Type: iceberg.StringType{}},
	})
	spec := iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "d_day", Transform: iceberg.DayTransform{}},
		{SourceID: 2, FieldID: 1001, Name: "n", Transform: iceberg.IdentityTransform{}},
	}}
	pt, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	return spec, pt, schema
}

// unionFiles writes a manifest of five entries and a manifest list naming
// it (and a second, unpartitioned-looking entry), plainly.
func unionFiles(t testing.TB, c unionCase) (manifest, list []byte, spec iceberg.PartitionSpec, pt *iceberg.StructType) {
	t.Helper()
	spec, pt, schema := unionTable(t)
	var entries []Entry
	for i := range 5 {
		var nanCounts map[int]int64
		if c.version >= 2 {
			nanCounts = map[int]int64{3: 0}
		}
		df := DataFile{
			FilePath: fmt.Sprintf("s3://b/t/data/%d.parquet", i), FileFormat: "PARQUET",
			RecordCount: int64(10 + i), FileSizeInBytes: int64(1000 + i),
			Partition: []any{int32(19000 + i), int32(i)},
			Metrics: MetricsOf(MetricMaps{
				ColumnSizes:     map[int]int64{1: 40, 2: 41, 3: int64(42 + i)},
				ValueCounts:     map[int]int64{1: 10, 2: 10, 3: 10},
				NullValueCounts: map[int]int64{1: 0, 2: 1, 3: 2},
				NaNValueCounts:  nanCounts,
				LowerBounds:     map[int][]byte{1: {0x38, 0x4a, 0, 0}, 3: []byte("a")},
				UpperBounds:     map[int][]byte{1: {0x40, 0x4a, 0, 0}, 3: []byte("z")},
			}),
			SplitOffsets: []int64{4, int64(500 + i)},
		}
		if i == 1 {
			df.Partition[1] = nil // a null partition value stays null
			df.KeyMetadata = []byte{7, 7}
		}
		if c.content == ManifestContentDeletes {
			df.Content = ContentEqualityDeletes
			df.EqualityIDs = []int{2, 3}
		} else {
			order := 0
			df.SortOrderID = &order
		}
		e := Entry{Status: StatusAdded, DataFile: df}
		if i == 4 {
			e = Entry{Status: StatusExisting, SnapshotID: 5, SequenceNumber: 1, FileSequenceNumber: 1, DataFile: df}
			if c.version == 3 && c.content == ManifestContentData {
				id := int64(100)
				e.DataFile.FirstRowID = &id
			}
		}
		entries = append(entries, e)
	}
	var mbuf bytes.Buffer
	mf, err := WriteManifest(&mbuf, ManifestWriteOptions{FormatVersion: c.version, Spec: spec, PartitionType: pt, Schema: schema, Content: c.content, SnapshotID: 9}, entries)
	if err != nil {
		t.Fatal(err)
	}
	mf.Path, mf.Length = "s3://b/t/metadata/m0.avro", int64(mbuf.Len())
	other := ManifestFile{Path: "s3://b/t/metadata/m1.avro", Length: 77, PartitionSpecID: 1, AddedSnapshotID: 5, SequenceNumber: 1, MinSequenceNumber: 1,
		AddedFilesCount: 1, AddedRowsCount: 3, Partitions: []FieldSummary{{ContainsNull: true}, {LowerBound: []byte{1, 0, 0, 0}, UpperBound: []byte{2, 0, 0, 0}}}}
	var lbuf bytes.Buffer
	if _, _, err := WriteManifestList(&lbuf, ManifestListWriteOptions{FormatVersion: c.version, SnapshotID: 9, SequenceNumber: 2, FirstRowID: 200}, []ManifestFile{mf, other}); err != nil {
		t.Fatal(err)
	}
	return mbuf.Bytes(), lbuf.Bytes(), spec, pt
}

func wrapAll(t testing.TB, data []byte, opts avronull.Options) []byte {
	t.Helper()
	out, err := avronull.Wrap(data, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestUnionWrappedFilesReadAsPlain(t *testing.T) {
	for _, c := range unionCases {
		for _, nullLast := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nullLast=%v", c, nullLast), func(t *testing.T) {
				m, l, spec, pt := unionFiles(t, c)
				wantList, err := ReadManifestList(l, c.version)
				if err != nil {
					t.Fatal(err)
				}
				wrappedList := wrapAll(t, l, avronull.Options{NullLast: nullLast})
				checkEveryValueNullable(t, wrappedList)
				gotList, err := ReadManifestList(wrappedList, c.version)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gotList, wantList) {
					t.Fatalf("list:\n got %+v\nwant %+v", gotList, wantList)
				}
				want, err := ReadManifest(m, wantList[0], spec, pt, c.version)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) != 5 || want[1].DataFile.Partition[1] != nil || want[0].DataFile.Partition[0] != int32(19000) || len(want[0].DataFile.Metrics.Maps().LowerBounds) != 2 {
					t.Fatalf("plain manifest reads %+v", want)
				}
				wrapped := wrapAll(t, m, avronull.Options{NullLast: nullLast})
				checkEveryValueNullable(t, wrapped)
				got, err := ReadManifest(wrapped, gotList[0], spec, pt, c.version)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("manifest:\n got %+v\nwant %+v", got, want)
				}
			})
		}
	}
}

// checkEveryValueNullable makes sure the rewrite left no record field and
// no array item outside a union with null.
func checkEveryValueNullable(t *testing.T, data []byte) {
	t.Helper()
	c, err := parseContainer(data)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := schemaTree(c.meta["avro.schema"])
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *avro.SchemaNode, path string, wrapped bool)
	walk = func(n *avro.SchemaNode, path string, wrapped bool) {
		if n.Type == "union" {
			for i := range n.Branches {
				walk(&n.Branches[i], path, true)
			}
			return
		}
		if !wrapped && n.Type != "null" {
			t.Errorf("%s is a plain %s", path, n.Type)
		}
		switch n.Type {
		case "record":
			for i := range n.Fields {
				walk(&n.Fields[i].Type, path+"."+n.Fields[i].Name, false)
			}
		case "array":
			walk(n.Items, path+"[]", false)
		}
	}
	walk(tree, "root", true)
}

// dataFile returns the data_file record of a decoded manifest entry.
func dataFileRecord(rec map[string]any) map[string]any { return rec["data_file"].(map[string]any) }

func TestUnionNullWhereSpecRequiresAValue(t *testing.T) {
	c := unionCase{2, ManifestContentData}
	m, l, spec, pt := unionFiles(t, c)
	mfs, err := ReadManifestList(l, c.version)
	if err != nil {
		t.Fatal(err)
	}
	manifestCases := []struct {
		field string
		edit  func(map[string]any)
	}{
		{"manifest_entry.data_file", func(r map[string]any) { r["data_file"] = nil }},
		{"manifest_entry.status", func(r map[string]any) { r["status"] = nil }},
		{"data_file.file_path", func(r map[string]any) { dataFileRecord(r)["file_path"] = nil }},
		{"data_file.file_format", func(r map[string]any) { dataFileRecord(r)["file_format"] = nil }},
		{"data_file.record_count", func(r map[string]any) { dataFileRecord(r)["record_count"] = nil }},
		{"data_file.file_size_in_bytes", func(r map[string]any) { dataFileRecord(r)["file_size_in_bytes"] = nil }},
		{"data_file.partition", func(r map[string]any) { dataFileRecord(r)["partition"] = nil }},
		{"data_file.split_offsets element", func(r map[string]any) { dataFileRecord(r)["split_offsets"] = []any{int64(4), nil} }},
		{"data_file.column_sizes element", func(r map[string]any) { dataFileRecord(r)["column_sizes"] = []any{nil} }},
		{"data_file.column_sizes key", func(r map[string]any) {
			dataFileRecord(r)["column_sizes"] = []any{map[string]any{"key": nil, "value": int64(3)}}
		}},
	}
	for _, mc := range manifestCases {
		t.Run(mc.field, func(t *testing.T) {
			data := wrapAll(t, m, avronull.Options{Edit: func(i int, r map[string]any) {
				if i == 3 {
					mc.edit(r)
				}
			}})
			_, err := ReadManifest(data, mfs[0], spec, pt, c.version)
			var ne *nullFieldError
			if !errors.As(err, &ne) || ne.field != mc.field {
				t.Fatalf("got %v, want the null %s named", err, mc.field)
			}
			t.Log(err)
		})
	}
	// Optional values may be null, and nulls in map values drop the entry.
	data := wrapAll(t, m, avronull.Options{Edit: func(i int, r map[string]any) {
		df := dataFileRecord(r)
		df["lower_bounds"], df["sort_order_id"] = nil, nil
		df["upper_bounds"] = []any{map[string]any{"key": int32(1), "value": nil}, map[string]any{"key": int32(3), "value": []byte("q")}}
		r["snapshot_id"] = nil
	}})
	es, err := ReadManifest(data, mfs[0], spec, pt, c.version)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.DataFile.Metrics.Maps().LowerBounds != nil || e.DataFile.SortOrderID != nil || !reflect.DeepEqual(e.DataFile.Metrics.Maps().UpperBounds, map[int][]byte{3: []byte("q")}) ||
			e.SnapshotID != mfs[0].AddedSnapshotID || !e.SnapshotIDInherited {
			t.Errorf("entry with nulls read as %+v", e)
		}
	}

	listCases := []struct {
		field string
		edit  func(map[string]any)
	}{
		{"manifest_file.manifest_path", func(r map[string]any) { r["manifest_path"] = nil }},
		{"manifest_file.manifest_length", func(r map[string]any) { r["manifest_length"] = nil }},
		{"manifest_file.partition_spec_id", func(r map[string]any) { r["partition_spec_id"] = nil }},
		{"manifest_file.added_snapshot_id", func(r map[string]any) { r["added_snapshot_id"] = nil }},
		{"manifest_file.partitions element", func(r map[string]any) { r["partitions"] = []any{nil} }},
		{"field_summary.contains_null", func(r map[string]any) {
			r["partitions"] = []any{map[string]any{"contains_null": nil, "contains_nan": nil, "lower_bound": nil, "upper_bound": nil}}
		}},
	}
	for _, lc := range listCases {
		t.Run(lc.field, func(t *testing.T) {
			data := wrapAll(t, l, avronull.Options{Edit: func(i int, r map[string]any) {
				if i == 1 {
					lc.edit(r)
				}
			}})
			_, err := ReadManifestList(data, c.version)
			var ne *nullFieldError
			if !errors.As(err, &ne) || ne.field != lc.field {
				t.Fatalf("got %v, want the null %s named", err, lc.field)
			}
			t.Log(err)
		})
	}
}

// BigQuery's manifest entries have only status and data_file (ClickHouse
// issue 114480): snapshot id and both sequence numbers are inherited from
// the manifest list, here with data_file and its fields nullable.
const bigQueryShapedEntrySchema = `{"type":"record","name":"manifest_entry","fields":[
 {"name":"status","type":["null","int"],"field-id":0},
 {"name":"data_file","field-id":2,"type":["null",{"type":"record","name":"r2","fields":[
   {"name":"content","type":["null","int"],"field-id":134},
   {"name":"file_path","type":["null","string"],"field-id":100},
   {"name":"file_format","type":["null","string"],"field-id":101},
   {"name":"partition","field-id":102,"type":["null",{"type":"record","name":"r102","fields":[]}]},
   {"name":"record_count","type":["null","long"],"field-id":103},
   {"name":"file_size_in_bytes","type":["null","long"],"field-id":104},
   {"name":"lower_bounds","field-id":125,"type":["null",{"type":"array","logicalType":"map","items":["null",
     {"type":"record","name":"k126_v127","fields":[{"name":"key","type":["null","int"],"field-id":126},{"name":"value","type":["null","bytes"],"field-id":127}]}]}]}]}]}]}`

func TestBigQueryShapedEntries(t *testing.T) {
	data := writeGenericAvro(t, bigQueryShapedEntrySchema, map[string]any{
		"status": int32(1),
		"data_file": map[string]any{
			"content": int32(0), "file_path": "gs://b/t/data/f.parquet", "file_format": "PARQUET",
			"partition": map[string]any{}, "record_count": int64(3), "file_size_in_bytes": int64(600),
			"lower_bounds": []any{map[string]any{"key": int32(1), "value": []byte{9}}},
		},
	})
	mf := ManifestFile{Path: "bq", AddedSnapshotID: 41, SequenceNumber: 6, MinSequenceNumber: 6}
	es, err := ReadManifest(data, mf, iceberg.PartitionSpec{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	e := es[0]
	if len(es) != 1 || e.SnapshotID != 41 || e.SequenceNumber != 6 || e.FileSequenceNumber != 6 || !e.SnapshotIDInherited ||
		!e.SequenceNumberInherited || !e.FileSequenceNumberInherited || e.DataFile.FilePath != "gs://b/t/data/f.parquet" ||
		e.DataFile.RecordCount != 3 || !reflect.DeepEqual(e.DataFile.Metrics.Maps().LowerBounds, map[int][]byte{1: {9}}) {
		t.Errorf("entry %+v", es)
	}
}
