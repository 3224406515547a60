package writer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

func ptr[T any](v T) *T { return &v }

// fullDataFile sets every field of a DataFile, partition values of every
// canonical Go form included.
func fullDataFile() manifest.DataFile {
	return manifest.DataFile{
		Content:    manifest.ContentEqualityDeletes,
		FilePath:   "s3://bucket/t/data/a=1/x.parquet",
		FileFormat: "PARQUET",
		Partition: []any{
			true, int32(-7), int64(math.MinInt64), float32(-0.0), math.Inf(-1),
			iceberg.Decimal{Hi: -1, Lo: 0xfffffffffffffff6, Scale: 3}, "héllo", "\xff\xfe",
			[16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, []byte{0, 1, 2}, []byte{}, nil,
		},
		SpecID:          4,
		RecordCount:     1234,
		FileSizeInBytes: 98765,
		Metrics: manifest.MetricsOf(manifest.MetricMaps{
			ColumnSizes:     map[int]int64{1: 10, 2: 20},
			ValueCounts:     map[int]int64{1: 1234, 2: 1234},
			NullValueCounts: map[int]int64{1: 0, 2: 5},
			NaNValueCounts:  map[int]int64{2: 3},
			LowerBounds:     map[int][]byte{1: {1, 0, 0, 0}, 2: {}},
			UpperBounds:     map[int][]byte{1: {9, 0, 0, 0}},
		}),
		KeyMetadata:        []byte("key"),
		SplitOffsets:       []int64{4, 1000},
		EqualityIDs:        []int{1, 2},
		SortOrderID:        ptr(1),
		FirstRowID:         ptr(int64(77)),
		ReferencedDataFile: "s3://bucket/t/data/other.parquet",
		ContentOffset:      ptr(int64(4)),
		ContentSizeInBytes: ptr(int64(40)),
	}
}

func TestDataFilesRoundTrip(t *testing.T) {
	full := fullDataFile()
	minimal := manifest.DataFile{FilePath: "/t/data/f.parquet", FileFormat: "PARQUET", RecordCount: 1, FileSizeInBytes: 10}
	in := []manifest.DataFile{full, minimal}
	data, err := EncodeDataFiles(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeDataFiles(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 {
		t.Fatalf("%d files back", len(out))
	}
	// Every field is compared: reflect walks the struct, so a field added
	// to DataFile and left out of the encoding fails here.
	v := reflect.ValueOf(full)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		got := reflect.ValueOf(out[0]).Field(i).Interface()
		want := v.Field(i).Interface()
		if name == "Partition" {
			for j, w := range full.Partition {
				g := out[0].Partition[j]
				if reflect.TypeOf(g) != reflect.TypeOf(w) {
					t.Errorf("partition %d: %T, want %T", j, g, w)
					continue
				}
				switch w := w.(type) {
				case float32:
					if math.Float32bits(w) != math.Float32bits(g.(float32)) {
						t.Errorf("partition %d: %v, want %v", j, g, w)
					}
				case float64:
					if math.Float64bits(w) != math.Float64bits(g.(float64)) {
						t.Errorf("partition %d: %v, want %v", j, g, w)
					}
				default:
					if !reflect.DeepEqual(g, w) {
						t.Errorf("partition %d: %#v, want %#v", j, g, w)
					}
				}
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, want %#v", name, got, want)
		}
		if reflect.ValueOf(want).IsZero() {
			t.Errorf("%s is not set in the test entry", name)
		}
	}
	if !reflect.DeepEqual(out[1], minimal) {
		t.Errorf("minimal entry: %#v, want %#v", out[1], minimal)
	}
	// NaN keeps its bits.
	nan := math.Float64frombits(0x7ff8000000000123)
	data, _ = EncodeDataFiles([]manifest.DataFile{{FilePath: "p", FileFormat: "PARQUET", Partition: []any{nan}}})
	back, err := DecodeDataFiles(data)
	if err != nil || math.Float64bits(back[0].Partition[0].(float64)) != 0x7ff8000000000123 {
		t.Errorf("NaN partition value: %v %v", back, err)
	}
}

func TestDecodeDataFilesRejects(t *testing.T) {
	for _, bad := range []string{
		``, `{}`, `{"version":2,"files":[]}`, `[]`,
		`{"version":1,"files":[{"content":3,"file_path":"p","file_format":"PARQUET"}]}`,
		`{"version":1,"files":[{"file_path":"","file_format":"PARQUET"}]}`,
		`{"version":1,"files":[{"file_path":"p","file_format":"PARQUET","record_count":-1}]}`,
		`{"version":1,"files":[{"file_path":"p","file_format":"PARQUET","partition":[{}]}]}`,
		`{"version":1,"files":[{"file_path":"p","file_format":"PARQUET","partition":[{"int":1,"long":2}]}]}`,
		`{"version":1,"files":[{"file_path":"p","file_format":"PARQUET","partition":[{"uuid":"nope"}]}]}`,
		`{"version":1,"files":[{"file_path":"p","file_format":"PARQUET","partition":[{"decimal":{"unscaled":"1e5","scale":0}}]}]}`,
		`{"version":1,"files":[{"file_path":"p","file_format":"PARQUET","partition":[{"decimal":{"unscaled":"` + strings.Repeat("9", 45) + `","scale":0}}]}]}`,
		`{"version":1,"files":[{"file_path":"p","file_format":"PARQUET","column_sizes":{"x":1}}]}`,
		`{"version":1,"files":[]} {}`,
	} {
		if _, err := DecodeDataFiles([]byte(bad)); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
}

// fixtureDataFiles are the data and delete file entries of the fixture
// tables' current snapshots, as other engines wrote them.
func fixtureDataFiles(t testing.TB) []manifest.DataFile {
	t.Helper()
	const dir = "../testdata/fixtures"
	raw, err := os.ReadFile(filepath.Join(dir, "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tables []struct {
		Name            string   `json:"name"`
		CurrentMetadata string   `json:"current_metadata"`
		Prefixes        []string `json:"path_prefixes_to_map_to_table_dir"`
	}
	if err := json.Unmarshal(raw, &tables); err != nil {
		t.Fatal(err)
	}
	var out []manifest.DataFile
	for _, tb := range tables {
		root, _ := filepath.Abs(filepath.Join(dir, tb.Name))
		locations := map[string]string{}
		for _, p := range tb.Prefixes {
			locations[p] = root
		}
		for _, md := range strings.Split(tb.CurrentMetadata, " + ") {
			tbl, err := table.Open(context.Background(), filepath.Join(root, md), table.Options{LocationMap: locations})
			if err != nil {
				t.Logf("%s: %v", tb.Name, err)
				continue
			}
			plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
			if err != nil {
				t.Logf("%s: %v", tb.Name, err)
				continue
			}
			for _, task := range plan.Tasks {
				out = append(out, task.File)
			}
			for _, d := range plan.DeleteFiles {
				out = append(out, d.File)
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d fixture data files could be planned", len(out))
	}
	return out
}

func TestFixtureDataFilesRoundTrip(t *testing.T) {
	files := fixtureDataFiles(t)
	data, err := EncodeDataFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeDataFiles(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if !reflect.DeepEqual(files[i].EmptyAsNil(), back[i].EmptyAsNil()) {
			t.Errorf("%s: %#v, want %#v", files[i].FilePath, back[i], files[i])
		}
	}
}

func FuzzDecodeDataFiles(f *testing.F) {
	// Small seeds: a few entries of each kind the fixtures hold (the
	// fuzzer slows to a crawl on tens of kilobytes).
	seeds := [][]manifest.DataFile{{fullDataFile()}}
	byKind := map[string]int{}
	for _, df := range fixtureDataFiles(f) {
		kind := fmt.Sprint(df.Content, len(df.Partition), df.ContentOffset != nil)
		if byKind[kind] < 2 {
			byKind[kind]++
			seeds = append(seeds, []manifest.DataFile{df})
		}
	}
	for _, s := range seeds {
		data, err := EncodeDataFiles(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := DecodeDataFiles(data)
		if err != nil {
			return
		}
		// What decodes must encode and decode to the same entries.
		again, err := EncodeDataFiles(files)
		if err != nil {
			t.Fatalf("decoded entries do not encode: %v", err)
		}
		back, err := DecodeDataFiles(again)
		if err != nil {
			t.Fatalf("re-encoded entries do not decode: %v", err)
		}
		if len(back) != len(files) {
			t.Fatalf("%d entries, then %d", len(files), len(back))
		}
	})
}
