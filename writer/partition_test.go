package writer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// partitionSchema has a unique row id and a column of every type a
// transform applies to, one of them inside a struct.
func partitionSchema() *iceberg.Schema {
	b := &schemaBuilder{}
	fields := []iceberg.NestedField{b.field("id", iceberg.LongType{}, true)}
	for _, t := range primitiveTypes {
		fields = append(fields, b.field(strings.NewReplacer("(", "_", ")", "", ", ", "_", "[", "_", "]", "").Replace(t.String()), t, false))
	}
	fields = append(fields, b.field("st", &iceberg.StructType{Fields: []iceberg.NestedField{
		b.field("k", iceberg.StringType{}, false),
		b.field("n", iceberg.IntType{}, true),
	}}, false))
	return iceberg.NewSchema(0, fields)
}

// genClustered makes rows whose values mostly come from a small pool per
// column, so identity partitions hold several rows.
func genClustered(r *rand.Rand, schema *iceberg.Schema, n int) [][]any {
	pools := make([][]any, len(schema.Fields))
	for j, f := range schema.Fields {
		for range 12 {
			pools[j] = append(pools[j], genValue(r, f.Type, f.Required))
		}
	}
	rows := make([][]any, n)
	for i := range rows {
		row := make([]any, len(schema.Fields))
		row[0] = int64(i)
		for j := 1; j < len(schema.Fields); j++ {
			if r.IntN(100) < 85 {
				row[j] = pools[j][r.IntN(len(pools[j]))]
			} else {
				row[j] = genValue(r, schema.Fields[j].Type, schema.Fields[j].Required)
			}
		}
		rows[i] = row
	}
	return rows
}

// sourceValue finds a column's value in a row by field id, through
// structs.
func sourceValue(schema *iceberg.Schema, row []any, id int) any {
	var find func(fields []iceberg.NestedField, vals []any) (any, bool)
	find = func(fields []iceberg.NestedField, vals []any) (any, bool) {
		for i, f := range fields {
			if f.ID == id {
				return vals[i], true
			}
			if st, ok := f.Type.(*iceberg.StructType); ok {
				var sub []any
				if vals[i] != nil {
					sub = vals[i].([]any)
				} else {
					sub = make([]any, len(st.Fields))
				}
				if v, ok := find(st.Fields, sub); ok {
					return v, true
				}
			}
		}
		return nil, false
	}
	v, _ := find(schema.Fields, row)
	return v
}

// checkPartitionedFiles reads every file back and checks that each row is
// in a file whose partition tuple is what the spec's transforms give for
// it, under the directory the spec names, and that every row is there once.
func checkPartitionedFiles(t *testing.T, dir string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, rows [][]any, files []manifest.DataFile) {
	t.Helper()
	partType, err := spec.PartitionType(schema)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	tuples := map[string]bool{}
	for _, df := range files {
		if df.SpecID != spec.ID || df.Content != manifest.ContentData || df.FileFormat != "PARQUET" {
			t.Fatalf("%s: spec %d content %v format %q", df.FilePath, df.SpecID, df.Content, df.FileFormat)
		}
		if len(df.Partition) != len(spec.Fields) {
			t.Fatalf("%s: partition tuple %v for %d fields", df.FilePath, df.Partition, len(spec.Fields))
		}
		wantDir := filepath.Join(dir, "data")
		if !spec.IsUnpartitioned() {
			wantDir = filepath.Join(wantDir, spec.PartitionPath(partType, df.Partition))
		}
		if filepath.Dir(df.FilePath) != wantDir {
			t.Errorf("%s: not in %s", df.FilePath, wantDir)
		}
		tuples[fmt.Sprintf("%#v", df.Partition)] = true
		got := readFloe(t, df.FilePath, schema)
		if int64(len(got)) != df.RecordCount {
			t.Errorf("%s: %d rows, entry says %d", df.FilePath, len(got), df.RecordCount)
		}
		for _, row := range got {
			id := row[0].(int64)
			if seen[id] {
				t.Fatalf("row %d written twice", id)
			}
			seen[id] = true
			compareRows(t, "partitioned file", schema, [][]any{rows[id]}, [][]any{row})
			for i, pf := range spec.Fields {
				src, ok := schema.FindField(pf.SourceID)
				if !ok {
					t.Fatalf("no source %d", pf.SourceID)
				}
				want, err := pf.Transform.Apply(src.Type, sourceValue(schema, rows[id], pf.SourceID))
				if err != nil {
					t.Fatal(err)
				}
				if !sameValue(partType.Fields[i].Type, want, df.Partition[i]) {
					t.Errorf("row %d in %s: partition field %s is %#v, %s gives %#v", id, df.FilePath, pf.Name, df.Partition[i], pf.Transform, want)
				}
			}
		}
	}
	if len(seen) != len(rows) {
		t.Errorf("%d of %d rows found", len(seen), len(rows))
	}
	if len(tuples) != len(files) {
		t.Errorf("%d files for %d partitions: one file per partition expected", len(files), len(tuples))
	}
}

func TestPartitionedEveryTransform(t *testing.T) {
	schema := partitionSchema()
	n := 300
	if raceEnabled {
		n = 60
	}
	rows := genClustered(rand.New(rand.NewPCG(9, 10)), schema, n)
	type specCase struct {
		column    string
		transform iceberg.Transform
	}
	var cases []specCase
	for _, f := range schema.Fields[1:] {
		name := f.Name
		if _, ok := f.Type.(*iceberg.StructType); ok {
			name = "st.k"
			f, _ = schema.FindFieldByName(name)
		}
		for _, tr := range []iceberg.Transform{
			iceberg.IdentityTransform{}, iceberg.BucketTransform{N: 7}, iceberg.TruncateTransform{Width: 3},
			iceberg.YearTransform{}, iceberg.MonthTransform{}, iceberg.DayTransform{}, iceberg.HourTransform{},
			iceberg.VoidTransform{},
		} {
			if _, err := tr.ResultType(f.Type); err == nil {
				cases = append(cases, specCase{name, tr})
			}
		}
	}
	transforms := map[string]bool{}
	for _, c := range cases {
		transforms[strings.SplitN(c.transform.String(), "[", 2)[0]] = true
	}
	if len(transforms) != 8 {
		t.Fatalf("cases cover transforms %v", transforms)
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s_%s", c.transform, c.column), func(t *testing.T) {
			t.Parallel()
			src, _ := schema.FindFieldByName(c.column)
			spec := &iceberg.PartitionSpec{ID: 3, Fields: []iceberg.PartitionField{
				{SourceID: src.ID, FieldID: 1000, Name: "p_" + strings.ReplaceAll(c.column, ".", "_"), Transform: c.transform},
			}}
			// Rows the transform cannot map (truncate of the smallest int
			// would leave the int range) make the write fail; the others
			// must land in their partitions.
			var ok [][]any
			for _, row := range rows {
				if _, err := c.transform.Apply(src.Type, sourceValue(schema, row, src.ID)); err == nil {
					row = append([]any{int64(len(ok))}, row[1:]...)
					ok = append(ok, row)
				}
			}
			if len(ok) < len(rows) {
				_, err := writeRowsIO(t, noSyncIO{}, t.TempDir(), schema, spec, DefaultOptions(), rows, 100)
				if err == nil {
					t.Errorf("rows %s cannot map were written", c.transform)
				}
			}
			dir := t.TempDir()
			files, err := writeRowsIO(t, noSyncIO{}, dir, schema, spec, DefaultOptions(), ok, 90+i%50)
			if err != nil {
				t.Fatal(err)
			}
			checkPartitionedFiles(t, dir, schema, spec, ok, files)
		})
	}
}

func TestPartitionedMultiField(t *testing.T) {
	schema := partitionSchema()
	n := 300
	if raceEnabled {
		n = 60
	}
	rows := genClustered(rand.New(rand.NewPCG(11, 12)), schema, n)
	id := func(name string) int {
		f, _ := schema.FindFieldByName(name)
		return f.ID
	}
	spec := &iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
		{SourceID: id("string"), FieldID: 1000, Name: "s", Transform: iceberg.TruncateTransform{Width: 2}},
		{SourceID: id("long"), FieldID: 1001, Name: "l_bucket", Transform: iceberg.BucketTransform{N: 4}},
		{SourceID: id("timestamptz"), FieldID: 1002, Name: "ts_day", Transform: iceberg.DayTransform{}},
		{SourceID: id("int"), FieldID: 1003, Name: "dropped", Transform: iceberg.VoidTransform{}},
		{SourceID: id("st.n"), FieldID: 1004, Name: "n", Transform: iceberg.IdentityTransform{}},
	}}
	dir := t.TempDir()
	files, err := writeRowsIO(t, noSyncIO{}, dir, schema, spec, DefaultOptions(), rows, 256)
	if err != nil {
		t.Fatal(err)
	}
	checkPartitionedFiles(t, dir, schema, spec, rows, files)
}

func TestUnpartitionedVoidSpec(t *testing.T) {
	schema := partitionSchema()
	rows := genClustered(rand.New(rand.NewPCG(13, 14)), schema, 300)
	spec := &iceberg.PartitionSpec{ID: 2, Fields: []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "v", Transform: iceberg.VoidTransform{}},
	}}
	dir := t.TempDir()
	files := writeRows(t, dir, schema, spec, DefaultOptions(), rows, 100)
	if len(files) != 1 || files[0].Partition[0] != nil {
		t.Fatalf("files %d, partition %v: want one file with a null tuple", len(files), files)
	}
	checkPartitionedFiles(t, dir, schema, spec, rows, files)
}

func TestRollingByTargetSize(t *testing.T) {
	schema := partitionSchema()
	rows := genClustered(rand.New(rand.NewPCG(15, 16)), schema, 30000)
	spec := &iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
		{SourceID: 3, FieldID: 1000, Name: "b", Transform: iceberg.BucketTransform{N: 2}},
	}}
	opts := DefaultOptions()
	opts.TargetFileSize = 256 << 10
	opts.RowGroupSize = 64 << 10
	dir := t.TempDir()
	w := writeRowsNoCheck(t, dir, schema, spec, opts, rows, 5000)
	perPartition := map[string][]manifest.DataFile{}
	var total int64
	for _, df := range w {
		key := fmt.Sprint(df.Partition)
		perPartition[key] = append(perPartition[key], df)
		total += df.RecordCount
		info, err := os.Stat(df.FilePath)
		if err != nil || info.Size() != df.FileSizeInBytes {
			t.Errorf("%s: size %v, entry says %d (%v)", df.FilePath, info, df.FileSizeInBytes, err)
		}
		if df.FileSizeInBytes > 2*opts.TargetFileSize {
			t.Errorf("%s: %d bytes, far above the %d target", df.FilePath, df.FileSizeInBytes, opts.TargetFileSize)
		}
	}
	if total != int64(len(rows)) {
		t.Fatalf("%d rows in the files, %d written", total, len(rows))
	}
	if len(perPartition) != 3 { // bucket 0, bucket 1 and null
		t.Fatalf("%d partitions, want 3", len(perPartition))
	}
	rolled := 0
	for _, fs := range perPartition {
		if len(fs) > 1 {
			rolled++
		}
		for _, df := range fs[:len(fs)-1] {
			if df.FileSizeInBytes < opts.TargetFileSize/4 {
				t.Errorf("%s rolled at %d bytes, well under the %d target", df.FilePath, df.FileSizeInBytes, opts.TargetFileSize)
			}
		}
	}
	if rolled < 2 {
		t.Fatalf("only %d partitions rolled over to a second file", rolled)
	}
	// Every file still holds the right rows.
	seen := 0
	for _, df := range w {
		seen += len(readFloe(t, df.FilePath, schema))
	}
	if seen != len(rows) {
		t.Fatalf("read %d rows back, wrote %d", seen, len(rows))
	}
}

// writeRowsNoCheck is writeRows for tests that inspect the entries
// themselves.
func writeRowsNoCheck(t *testing.T, dir string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, opts Options, rows [][]any, batchRows int) []manifest.DataFile {
	return writeRows(t, dir, schema, spec, opts, rows, batchRows)
}
