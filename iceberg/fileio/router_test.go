package fileio

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const fixtures = "../../testdata/fixtures"

type fixtureTable struct {
	Name     string   `json:"name"`
	Prefixes []string `json:"path_prefixes_to_map_to_table_dir"`
}

func loadFixtureTables(t *testing.T) map[string]fixtureTable {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tables []fixtureTable
	if err := json.Unmarshal(data, &tables); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]fixtureTable, len(tables))
	for _, tb := range tables {
		out[tb.Name] = tb
	}
	return out
}

func TestRouterRefusesForeignSchemesWithAMapHint(t *testing.T) {
	ctx := t.Context()
	r := NewRouter()
	for _, loc := range []string{"hdfs://localhost:20500/test-warehouse/t/metadata/v1.metadata.json", "s3://bucket/wh/t/x.parquet", "gs://b/o"} {
		_, err := r.ReadFile(ctx, loc)
		if !errors.Is(err, ErrUnsupportedScheme) {
			t.Fatalf("ReadFile(%q) = %v, want ErrUnsupportedScheme", loc, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, loc) || !strings.Contains(msg, "location_map") || !strings.Contains(msg, "--map") {
			t.Errorf("error does not name the location and the map option: %s", msg)
		}
	}
	if _, err := ForLocation("hdfs://nn/wh/t", Options{}); !errors.Is(err, ErrUnsupportedScheme) {
		t.Errorf("ForLocation(hdfs) = %v", err)
	}
}

func TestRouterServesLocalPathsAndRegisteredSchemes(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	writeOSFile(t, filepath.Join(dir, "f"), "local")
	r := NewRouter()
	for _, p := range []string{filepath.Join(dir, "f"), "file://" + filepath.Join(dir, "f")} {
		if got, err := r.ReadFile(ctx, p); err != nil || string(got) != "local" {
			t.Fatalf("ReadFile(%q) = %q, %v", p, got, err)
		}
	}
	// A registered scheme reaches its FileIO with the full location.
	r.Register("MEM", NewRemapping(Local{}, mustMap(t, map[string]string{"mem://x": dir})))
	if got, err := r.ReadFile(ctx, "mem://x/f"); err != nil || string(got) != "local" {
		t.Fatalf("ReadFile(mem://x/f) = %q, %v", got, err)
	}
}

// Quirk 0 of the fixtures: Impala's manifests name data files
// /test-warehouse/…, its position delete files name the same files
// hdfs://localhost:20500/test-warehouse/…. With both prefixes mapped, both
// spellings must reach the same real file and remap to the same string.
func TestBothSpellingsOfAFixtureDataFileMeetAfterRemapping(t *testing.T) {
	ctx := t.Context()
	const name = "impala_iceberg_v2_partitioned_position_deletes"
	tableDir := filepath.Join(fixtures, name)
	m := map[string]string{}
	prefixes := loadFixtureTables(t)[name].Prefixes
	for _, p := range prefixes {
		m[p] = tableDir
	}
	if len(m) != 2 {
		t.Fatalf("tables.json lists %q for %s, want two spellings", prefixes, name)
	}
	files, err := ForLocation(prefixes[0], Options{LocationMap: mustMap(t, m)})
	if err != nil {
		t.Fatal(err)
	}

	// The paths are read straight out of the files' bytes, not decoded by floe.
	hdfsPath := regexp.MustCompile(`hdfs://localhost:20500/test-warehouse/[A-Za-z0-9_./=-]+?\.parq`)
	manifestPath := regexp.MustCompile(`/test-warehouse/[A-Za-z0-9_./=-]+?\.parq`)
	fromDeletes := map[string]bool{}
	deleteFiles, _ := filepath.Glob(filepath.Join(tableDir, "data", "*", "*delete*.parquet"))
	for _, f := range deleteFiles {
		data, _ := os.ReadFile(f)
		for _, p := range hdfsPath.FindAll(data, -1) {
			fromDeletes[string(p)] = true
		}
	}
	fromManifests := map[string]bool{}
	manifests, _ := filepath.Glob(filepath.Join(tableDir, "metadata", "*-m0.avro"))
	for _, f := range manifests {
		data, _ := os.ReadFile(f)
		for _, p := range manifestPath.FindAll(data, -1) {
			fromManifests[Remap(files, string(p))] = true
		}
	}
	if len(fromDeletes) != 3 || len(deleteFiles) != 3 {
		t.Fatalf("found %d delete files naming %d data files, want 3 and 3", len(deleteFiles), len(fromDeletes))
	}
	for p := range fromDeletes {
		local := Remap(files, p)
		if !fromManifests[local] {
			t.Errorf("%s remaps to %s, which no manifest path remaps to", p, local)
		}
		info, err := files.Stat(ctx, p)
		if err != nil {
			t.Fatalf("Stat(%s): %v", p, err)
		}
		st, err := os.Stat(local)
		if err != nil || st.Size() != info.Size || info.Path != p {
			t.Errorf("Stat(%s) = %+v; the file is %v (%v)", p, info, st, err)
		}
	}
}

func TestRemappingListAndStatKeepCallerSpelling(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(fixtures, "impala_iceberg_v3_all_types")
	const loc = "hdfs://localhost:20500/test-warehouse/iceberg_v3_all_types"
	files, err := ForLocation(loc, Options{LocationMap: mustMap(t, map[string]string{loc: dir})})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := files.List(ctx, loc+"/metadata")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.Path)
	}
	if !slices.Contains(got, loc+"/metadata/v4.metadata.json") || !slices.Contains(got, loc+"/metadata/version-hint.txt") {
		t.Fatalf("List = %q", got)
	}
	for _, in := range infos {
		st, err := os.Stat(filepath.Join(dir, "metadata", baseName(in.Path)))
		if err != nil || st.Size() != in.Size {
			t.Errorf("%s: size %d, file %v %v", in.Path, in.Size, st, err)
		}
	}
	hint, err := files.ReadFile(ctx, loc+"/metadata/version-hint.txt")
	if err != nil || strings.TrimSpace(string(hint)) != "4" {
		t.Fatalf("hint = %q, %v", hint, err)
	}
	// Paths outside the map still fail with the hint to map them.
	if _, err := files.ReadFile(ctx, "hdfs://localhost:20500/test-warehouse/other/x"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Fatalf("unmapped hdfs path: %v", err)
	}
}

func TestRemappingWritesGoToTheTarget(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	files := NewRemapping(NewRouter(), mustMap(t, map[string]string{"hdfs://nn/wh": dir}))
	if err := files.WriteFileIfAbsent(ctx, "hdfs://nn/wh/t/metadata/v1.metadata.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := files.WriteFileIfAbsent(ctx, filepath.Join(dir, "t/metadata/v1.metadata.json"), []byte("{}")); !errors.Is(err, ErrExists) {
		t.Fatalf("second commit under the target spelling: %v", err)
	}
	if err := files.WriteFile(ctx, "hdfs://nn/wh/t/metadata/version-hint.text", []byte("1")); err != nil {
		t.Fatal(err)
	}
	w, err := files.Create(ctx, "hdfs://nn/wh/t/data/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("PAR1"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"t/metadata/v1.metadata.json", "t/metadata/version-hint.text", "t/data/f.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	if err := files.Delete(ctx, "hdfs://nn/wh/t/data/f.parquet"); err != nil {
		t.Fatal(err)
	}
	if ok, err := files.Exists(ctx, "hdfs://nn/wh/t/data/f.parquet"); ok || err != nil {
		t.Fatalf("Exists after Delete = %v, %v", ok, err)
	}
	f, err := files.Open(ctx, "hdfs://nn/wh/t/metadata/v1.metadata.json")
	if err != nil || f.Size() != 2 {
		t.Fatalf("Open = %v, %v", f, err)
	}
	f.Close()
}
