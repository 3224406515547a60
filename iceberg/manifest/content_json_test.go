package manifest_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// contentTypes are the JSON form's types of tbl, bounds typed by its
// current schema.
func contentTypes(t testing.TB, tbl *table.Table) manifest.ContentFileTypes {
	t.Helper()
	types, err := tbl.ContentFileTypes(tbl.Metadata.CurrentSchema())
	if err != nil {
		t.Fatal(err)
	}
	return types
}

// Every data and delete file of every fixture, written by Spark, Impala,
// Hive, Flink, NiFi and DuckDB, survives the REST JSON form unchanged,
// bounds byte for byte.
func TestContentFileJSONRoundTripsEveryFixtureFile(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, fx := range all {
		tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		types := contentTypes(t, tbl)
		var all []manifest.DataFile
		for _, task := range plan.Tasks {
			all = append(all, task.File)
		}
		for _, d := range plan.DeleteFiles {
			all = append(all, d.File)
		}
		for _, f := range all {
			raw, err := manifest.MarshalContentFileJSON(f, types)
			if err != nil {
				t.Fatalf("%s: %s: %v", fx.Name, f.FilePath, err)
			}
			back, err := manifest.ParseContentFileJSON(raw, types)
			if err != nil {
				t.Fatalf("%s: %s: %v\n%s", fx.Name, f.FilePath, err, raw)
			}
			if f, back := normalized(f), normalized(back); !reflect.DeepEqual(f, back) {
				t.Fatalf("%s: %s changed:\n%+v\n%+v\n%s", fx.Name, f.FilePath, f, back, raw)
			}
			files++
		}
	}
	if files < 50 {
		t.Fatalf("only %d files: not a useful test", files)
	}
}

// normalized is f with what the JSON form does not tell apart made
// equal: the format's case, empty and absent collections.
func normalized(f manifest.DataFile) manifest.DataFile {
	f = f.EmptyAsNil()
	f.FileFormat = strings.ToLower(f.FileFormat)
	return f
}

func FuzzParseContentFileJSON(f *testing.F) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}},
		{ID: 2, Name: "s", Type: iceberg.StringType{}},
		{ID: 3, Name: "d", Type: iceberg.DecimalType{Precision: 10, Scale: 2}},
	})
	types := manifest.ContentFileTypes{Schema: schema, Partitions: map[int]*iceberg.StructType{
		0: {},
		1: {Fields: []iceberg.NestedField{{ID: 1000, Name: "id_bucket", Type: iceberg.IntType{}}}},
	}}
	f.Add([]byte(`{"content":"data","file-path":"s3://b/f.parquet","file-format":"parquet","spec-id":1,"partition":[3],"file-size-in-bytes":10,"record-count":2,"lower-bounds":{"keys":[1,2],"values":["0100000000000000","61"]},"upper-bounds":{"keys":[1],"values":[9]},"value-counts":{"keys":[1],"values":[2]}}`))
	f.Add([]byte(`{"content":"position-deletes","file-path":"d.puffin","file-format":"puffin","spec-id":0,"partition":[],"file-size-in-bytes":10,"record-count":1,"content-offset":4,"content-size-in-bytes":40,"referenced-data-file":"f.parquet"}`))
	f.Add([]byte(`{"content":"equality-deletes","file-path":"e.parquet","file-format":"parquet","spec-id":0,"partition":[],"file-size-in-bytes":1,"record-count":1,"equality-ids":[1],"key-metadata":"0A0B"}`))
	f.Add([]byte(`{"content":"data","file-path":"f","file-format":"parquet","spec-id":0,"partition":[],"file-size-in-bytes":1,"record-count":1,"upper-bounds":{"keys":[1,3],"values":[7,"1.25"]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		df, err := manifest.ParseContentFileJSON(raw, types)
		if err != nil {
			return
		}
		again, err := manifest.MarshalContentFileJSON(df, types)
		if err != nil {
			t.Fatalf("a parsed file does not write: %v", err)
		}
		if _, err := manifest.ParseContentFileJSON(again, types); err != nil {
			t.Fatalf("a written file does not parse: %v\n%s", err, again)
		}
	})
}
