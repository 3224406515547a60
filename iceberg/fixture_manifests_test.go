package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/avro/ocf"
)

// The fixture tables were written by Spark, Impala, Hive, Flink, NiFi and
// DuckDB. Their manifests are read here with a generic Avro decoder (floe's
// own manifest reader lives elsewhere) so the tests of this package can
// check transforms, binary bounds and partition paths against what those
// engines wrote.

const fixturesDir = "../testdata/fixtures"

// fixtureFile is one data or delete file entry of a fixture manifest.
type fixtureFile struct {
	metadataDir string
	types       map[int]Type // every field id of every schema, newest wins
	spec        *PartitionSpec
	content     int
	path        string
	records     int64
	partition   map[string]any // as the Avro decoder gives it
	lower       map[int][]byte
	upper       map[int][]byte
	nullCounts  map[int]int64
}

type fixtureTable struct {
	types map[int]Type
	specs map[int]*PartitionSpec
}

// loadFixtureFiles reads every manifest of every fixture table.
func loadFixtureFiles(tb testing.TB) []fixtureFile {
	tb.Helper()
	var metadataDirs []string
	err := filepath.WalkDir(fixturesDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "metadata" {
			metadataDirs = append(metadataDirs, p)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	var files []fixtureFile
	for _, dir := range metadataDirs {
		table := loadFixtureTable(tb, dir)
		specOf := manifestSpecIDs(tb, dir)
		names, _ := filepath.Glob(filepath.Join(dir, "*.avro"))
		for _, name := range names {
			if strings.HasPrefix(filepath.Base(name), "snap-") {
				continue
			}
			specID, listed := specOf[filepath.Base(name)]
			rows, meta := readAvroFile(tb, name)
			if !listed {
				// A manifest whose manifest list is missing (a known defect of
				// one fixture) still names its spec in its header.
				if specID, err = strconv.Atoi(string(meta["partition-spec-id"])); err != nil {
					tb.Fatalf("%s: no manifest list names it and its header has no partition-spec-id", name)
				}
			}
			spec := table.specs[specID]
			if spec == nil {
				tb.Fatalf("%s: partition spec %d is not in the table metadata", name, specID)
			}
			for _, row := range rows {
				df := row["data_file"].(map[string]any)
				f := fixtureFile{
					metadataDir: dir, types: table.types, spec: spec,
					path:       df["file_path"].(string),
					records:    df["record_count"].(int64),
					partition:  df["partition"].(map[string]any),
					lower:      avroBytesMap(df["lower_bounds"]),
					upper:      avroBytesMap(df["upper_bounds"]),
					nullCounts: avroLongMap(df["null_value_counts"]),
				}
				if c, ok := df["content"].(int32); ok {
					f.content = int(c)
				}
				files = append(files, f)
			}
		}
	}
	if len(files) < 100 {
		tb.Fatalf("read only %d manifest entries from the fixtures", len(files))
	}
	return files
}

// loadFixtureTable reads the newest metadata file of a table: its schemas
// and partition specs (legacy v1 single fields included).
func loadFixtureTable(tb testing.TB, dir string) fixtureTable {
	tb.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.metadata.json"))
	slices.SortFunc(names, func(a, b string) int { return metadataVersion(a) - metadataVersion(b) })
	if len(names) == 0 {
		tb.Fatalf("%s: no metadata file", dir)
	}
	raw, err := os.ReadFile(names[len(names)-1])
	if err != nil {
		tb.Fatal(err)
	}
	var md struct {
		Schemas        []*Schema        `json:"schemas"`
		Schema         *Schema          `json:"schema"`
		PartitionSpecs []*PartitionSpec `json:"partition-specs"`
		PartitionSpec  json.RawMessage  `json:"partition-spec"`
	}
	if err := json.Unmarshal(raw, &md); err != nil {
		tb.Fatalf("%s: %v", names[len(names)-1], err)
	}
	schemas := md.Schemas
	if len(schemas) == 0 && md.Schema != nil {
		schemas = []*Schema{md.Schema}
	}
	table := fixtureTable{types: map[int]Type{}, specs: map[int]*PartitionSpec{}}
	for _, s := range schemas {
		collectFieldTypes(s.AsStruct(), table.types)
	}
	for _, s := range md.PartitionSpecs {
		table.specs[s.ID] = s
	}
	if len(md.PartitionSpecs) == 0 && md.PartitionSpec != nil {
		fields, err := ParsePartitionFields(md.PartitionSpec)
		if err != nil {
			tb.Fatal(err)
		}
		table.specs[0] = &PartitionSpec{ID: 0, Fields: fields}
	}
	return table
}

func metadataVersion(name string) int {
	base := filepath.Base(name)
	base = strings.TrimPrefix(base, "v")
	digits := base[:strings.IndexFunc(base, func(r rune) bool { return r < '0' || r > '9' })]
	n, _ := strconv.Atoi(digits)
	return n
}

func collectFieldTypes(st *StructType, out map[int]Type) {
	for _, f := range st.Fields {
		out[f.ID] = f.Type
		if s, ok := f.Type.(*StructType); ok {
			collectFieldTypes(s, out)
		}
	}
}

// manifestSpecIDs maps each manifest's base name to the partition spec id
// its manifest list records.
func manifestSpecIDs(tb testing.TB, dir string) map[string]int {
	tb.Helper()
	out := map[string]int{}
	lists, _ := filepath.Glob(filepath.Join(dir, "snap-*.avro"))
	for _, list := range lists {
		rows, _ := readAvroFile(tb, list)
		for _, row := range rows {
			out[filepath.Base(row["manifest_path"].(string))] = int(row["partition_spec_id"].(int32))
		}
	}
	return out
}

func readAvroFile(tb testing.TB, name string) ([]map[string]any, map[string][]byte) {
	tb.Helper()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r, err := ocf.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	var rows []map[string]any
	for {
		var v any
		err := r.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		rows = append(rows, v.(map[string]any))
	}
	return rows, r.Metadata()
}

func avroBytesMap(v any) map[int][]byte {
	out := map[int][]byte{}
	entries, _ := v.([]any)
	for _, e := range entries {
		kv := e.(map[string]any)
		out[int(kv["key"].(int32))] = kv["value"].([]byte)
	}
	return out
}

func avroLongMap(v any) map[int]int64 {
	out := map[int]int64{}
	entries, _ := v.([]any)
	for _, e := range entries {
		kv := e.(map[string]any)
		out[int(kv["key"].(int32))] = kv["value"].(int64)
	}
	return out
}

// canonicalFromAvro converts a partition value as the generic Avro decoder
// gives it to floe's canonical form for type t.
func canonicalFromAvro(t Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.(type) {
	case DateType:
		switch x := v.(type) {
		case time.Time:
			return int32(floorDiv(x.Unix(), 86400)), nil
		case int32:
			return x, nil
		}
	case IntType, LongType, StringType:
		return v, nil
	}
	return nil, fmt.Errorf("no conversion of Avro %T to %v", v, t)
}

// partitionTuple is the file's partition tuple in spec order, canonical.
func (f fixtureFile) partitionTuple(tb testing.TB) (*StructType, []any) {
	tb.Helper()
	partType, err := f.spec.PartitionType(&Schema{Fields: typesAsFields(f.types)})
	if err != nil {
		tb.Fatalf("%s: %v", f.path, err)
	}
	values := make([]any, len(f.spec.Fields))
	for i, pf := range f.spec.Fields {
		raw, ok := f.partition[pf.Name]
		if !ok {
			tb.Fatalf("%s: partition tuple %v has no field %q", f.path, f.partition, pf.Name)
		}
		if values[i], err = canonicalFromAvro(partType.Fields[i].Type, raw); err != nil {
			tb.Fatalf("%s: %v", f.path, err)
		}
	}
	return partType, values
}

func typesAsFields(types map[int]Type) []NestedField {
	fields := make([]NestedField, 0, len(types))
	for id, t := range types {
		fields = append(fields, NestedField{ID: id, Name: strconv.Itoa(id), Type: t})
	}
	return fields
}
