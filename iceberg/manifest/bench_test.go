package manifest

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/floedb/floe/iceberg"
)

func BenchmarkReadFixtureManifest(b *testing.B) {
	ft := fixtureTableNamed(b, "impala_iceberg_partitioned")
	mf := ft.readList(b, ft.snapshot(b, ft.currentID).ManifestList)[0]
	data := readFile(b, ft.localPath(mf.Path))
	spec, pt := ft.spec(b, 0)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadManifest(data, mf, spec, pt, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// bigManifest is a commit-sized manifest: 10,000 files of a 20-column
// table with full metrics, partitioned by a date and a string.
func bigManifest(tb testing.TB) (ManifestWriteOptions, []Entry) {
	var cols []iceberg.NestedField
	for i := 1; i <= 20; i++ {
		cols = append(cols, iceberg.NestedField{ID: i, Name: "c" + strconv.Itoa(i), Type: iceberg.LongType{}})
	}
	cols[0].Type, cols[1].Type = iceberg.DateType{}, iceberg.StringType{}
	schema := iceberg.NewSchema(0, cols)
	spec := iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "d", Transform: iceberg.IdentityTransform{}},
		{SourceID: 2, FieldID: 1001, Name: "s", Transform: iceberg.IdentityTransform{}},
	}}
	pt, err := spec.PartitionType(schema)
	if err != nil {
		tb.Fatal(err)
	}
	entries := make([]Entry, 10000)
	for i := range entries {
		df := DataFile{
			FilePath:    "s3://bucket/warehouse/db/table/data/d=2024-01-01/s=x/00000-" + strconv.Itoa(i) + "-5f2c1b9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b.parquet",
			FileFormat:  "PARQUET",
			Partition:   []any{int32(19700 + i%30), "region-" + strconv.Itoa(i%7)},
			RecordCount: 100000, FileSizeInBytes: 64 << 20,
			SplitOffsets: []int64{4, 1 << 20},
		}
		m := MetricMaps{ColumnSizes: map[int]int64{}, ValueCounts: map[int]int64{}, NullValueCounts: map[int]int64{},
			LowerBounds: map[int][]byte{}, UpperBounds: map[int][]byte{}}
		for c := 1; c <= 20; c++ {
			m.ColumnSizes[c], m.ValueCounts[c], m.NullValueCounts[c] = int64(c*1000), 100000, 0
			m.LowerBounds[c], m.UpperBounds[c] = []byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{9, 9, 9, 9, 9, 9, 9, 9}
		}
		df.Metrics = MetricsOf(m)
		entries[i] = Entry{Status: StatusAdded, DataFile: df}
	}
	return ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: pt, Schema: schema, SnapshotID: 42}, entries
}

func BenchmarkWriteManifest10k(b *testing.B) {
	opts, entries := bigManifest(b)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if _, err := WriteManifest(&buf, opts, entries); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/manifest")
}

func BenchmarkReadManifest10k(b *testing.B) {
	opts, entries := bigManifest(b)
	var buf bytes.Buffer
	mf, err := WriteManifest(&buf, opts, entries)
	if err != nil {
		b.Fatal(err)
	}
	mf.Path, mf.SequenceNumber, mf.MinSequenceNumber = "m", 1, 1
	for b.Loop() {
		if _, err := ReadManifest(buf.Bytes(), mf, opts.Spec, opts.PartitionType, 2); err != nil {
			b.Fatal(err)
		}
	}
}
