package table

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/fixtures"
)

// countingIO counts the calls locate makes, to check that a good hint is
// followed without listing.
type countingIO struct {
	fileio.FileIO
	lists, exists atomic.Int64
}

func (c *countingIO) List(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	c.lists.Add(1)
	return c.FileIO.List(ctx, dir)
}

func (c *countingIO) Exists(ctx context.Context, path string) (bool, error) {
	c.exists.Add(1)
	return c.FileIO.Exists(ctx, path)
}

// Every fixture table resolves to the current metadata tables.json names,
// whether named by its directory, its metadata directory, a file: URI, or
// the foreign location its own metadata records (through the location map).
func TestLocateMetadataOfEveryFixture(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 16 {
		t.Fatalf("found %d fixture tables, want 16 (15 directories, one holding two tables)", len(all))
	}
	ctx := t.Context()
	for _, fx := range all {
		t.Run(fx.Name, func(t *testing.T) {
			files := &countingIO{FileIO: fileio.Local{}}
			got, err := LocateMetadata(ctx, files, fx.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != fx.Metadata {
				t.Fatalf("LocateMetadata(%s) = %s, want %s", fx.Dir, got, fx.Metadata)
			}
			if strings.HasPrefix(lastElem(fx.Metadata), "v") && hintIsUsable(t, fx.Dir) && files.lists.Load() != 0 {
				t.Errorf("listed the metadata directory although the hint names a vN file")
			}

			for _, loc := range []string{fx.Dir + "/", filepath.Join(fx.Dir, "metadata"), fx.Metadata} {
				if got, err := LocateMetadata(ctx, fileio.Local{}, loc); err != nil || got != fx.Metadata {
					t.Errorf("LocateMetadata(%s) = %s, %v", loc, got, err)
				}
			}
			if got, err := LocateMetadata(ctx, fileio.Local{}, "file://"+fx.Dir); err != nil || got != "file://"+fx.Metadata {
				t.Errorf("LocateMetadata(file://…) = %s, %v", got, err)
			}

			foreign := recordedLocation(t, fx.Metadata)
			m, err := fileio.NewLocationMap(fx.LocationMap)
			if err != nil {
				t.Fatal(err)
			}
			remapped, err := fileio.ForLocation(foreign, fileio.Options{LocationMap: m})
			if err != nil {
				t.Fatal(err)
			}
			got, err = LocateMetadata(ctx, remapped, foreign)
			if err != nil {
				t.Fatal(err)
			}
			if want := fileio.JoinPath(foreign, "metadata", lastElem(fx.Metadata)); got != want {
				t.Errorf("LocateMetadata(%s) = %s, want %s", foreign, got, want)
			}
			if fileio.Remap(remapped, got) != fx.Metadata {
				t.Errorf("%s remaps to %s, want %s", got, fileio.Remap(remapped, got), fx.Metadata)
			}
		})
	}
}

// The irregular hints INDEX.md lists (quirk 2) are really in the fixtures,
// so the test above exercises them.
func TestFixtureHintsAreAsIrregularAsDocumented(t *testing.T) {
	dir := func(name string) string {
		fx, err := fixtures.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(fx.Dir, "metadata")
	}
	if st, err := os.Stat(filepath.Join(dir("impala_iceberg_v3_deletion_vectors"), "version-hint.text")); err != nil || st.Size() != 0 {
		t.Errorf("deletion vectors hint: %v %v, want an empty file", st, err)
	}
	for _, name := range []string{"impala_iceberg_v3_all_types", "impala_iceberg_v2_partitioned_position_deletes", "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"} {
		_, errText := os.Stat(filepath.Join(dir(name), "version-hint.text"))
		_, errTxt := os.Stat(filepath.Join(dir(name), "version-hint.txt"))
		if !errors.Is(errText, fs.ErrNotExist) || errTxt != nil {
			t.Errorf("%s: .text %v, .txt %v; want only version-hint.txt", name, errText, errTxt)
		}
	}
	hint, err := os.ReadFile(filepath.Join(dir("duckdb_uuid"), "version-hint.text"))
	if err != nil || !strings.HasPrefix(string(hint), "00001-43fda1f4-") {
		t.Errorf("duckdb_uuid hint = %q, %v", hint, err)
	}
}

func hintIsUsable(t *testing.T, tableDir string) bool {
	for _, name := range versionHintNames {
		if data, err := os.ReadFile(filepath.Join(tableDir, "metadata", name)); err == nil {
			_, err := parseVersionHint(data)
			return err == nil
		}
	}
	return false
}

func recordedLocation(t *testing.T, metadataPath string) string {
	data, err := os.ReadFile(metadataPath)
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Location string `json:"location"`
	}
	if err := json.Unmarshal(data, &md); err != nil || md.Location == "" {
		t.Fatalf("%s: location %q, %v", metadataPath, md.Location, err)
	}
	return md.Location
}

// table builds a synthetic table directory holding the named metadata files
// (each a tiny JSON) and, when hint is not nil, version-hint.text.
func table(t *testing.T, hint *string, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	meta := filepath.Join(dir, "metadata")
	if err := os.MkdirAll(meta, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(meta, n), []byte("{}"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if hint != nil {
		if err := os.WriteFile(filepath.Join(meta, "version-hint.text"), []byte(*hint), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func ptr(s string) *string { return &s }

func vNames(from, to int) []string {
	var out []string
	for v := from; v <= to; v++ {
		out = append(out, fmt.Sprintf("v%d.metadata.json", v))
	}
	return out
}

const (
	uuidA = "00000-e8729e86-fe06-4ffc-835b-283f0d3e9921"
	uuidB = "00001-43fda1f4-1c96-4376-ad16-91beb71d0759"
	uuidC = "00002-0b6a4ab1-6b4a-4c67-a3b0-1f3d8c1e2f00"
)

func TestLocateMetadataSynthetic(t *testing.T) {
	cases := []struct {
		name  string
		hint  *string
		files []string
		want  string
		lists bool // whether listing is expected
	}{
		{"hint is current", ptr("3"), vNames(1, 3), "v3.metadata.json", false},
		{"hint lags behind commits", ptr("2\n"), vNames(1, 3), "v3.metadata.json", false},
		{"hint lags far behind", ptr("1"), vNames(1, 20), "v20.metadata.json", true},
		{"no hint: highest version, not the last name", nil, append(vNames(1, 2), "v10.metadata.json"), "v10.metadata.json", true},
		{"empty hint", ptr(""), vNames(1, 3), "v3.metadata.json", true},
		{"whitespace hint", ptr(" \r\n\t"), vNames(1, 2), "v2.metadata.json", true},
		{"padded hint", ptr("\ufeff 2 \r\n"), vNames(1, 2), "v2.metadata.json", false},
		{"garbage hint", ptr("hello world"), vNames(1, 2), "v2.metadata.json", true},
		{"hint ahead of the files", ptr("9"), vNames(1, 2), "v2.metadata.json", true},
		{"hint names a vN file", ptr("v1.metadata.json"), vNames(1, 2), "v2.metadata.json", false},
		{"no hint, uuid names", nil, []string{uuidA + ".metadata.json", uuidC + ".metadata.json", uuidB + ".metadata.json"}, uuidC + ".metadata.json", true},
		{"numeric hint, uuid names", ptr("1"), []string{uuidA + ".metadata.json", uuidB + ".metadata.json"}, uuidB + ".metadata.json", true},
		{"name hint without suffix", ptr(uuidB), []string{uuidA + ".metadata.json", uuidB + ".metadata.json"}, uuidB + ".metadata.json", true},
		{"name hint lags behind", ptr(uuidB + ".metadata.json\n"), []string{uuidA + ".metadata.json", uuidB + ".metadata.json", uuidC + ".metadata.json"}, uuidC + ".metadata.json", true},
		{"hint holds a foreign path", ptr("hdfs://nn/wh/t/metadata/" + uuidB + ".metadata.json"), []string{uuidB + ".metadata.json"}, uuidB + ".metadata.json", true},
		{"gzip metadata", ptr("1"), []string{"v1.metadata.json", "v2.gz.metadata.json"}, "v2.gz.metadata.json", false},
		{"legacy gzip suffix", nil, []string{"v1.metadata.json", "v2.metadata.json.gz"}, "v2.metadata.json.gz", true},
		{"stray files are ignored", nil, append(vNames(1, 2),
			".v9.metadata.json.crc", "1b2f4a7e-0000-4000-8000-000000000000.metadata.json", "snap-9-1-x.avro", "v9.json", "vx.metadata.json", "9-.metadata.json"),
			"v2.metadata.json", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := table(t, c.hint, c.files...)
			files := &countingIO{FileIO: fileio.Local{}}
			got, err := LocateMetadata(t.Context(), files, dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, "metadata", c.want); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
			if listed := files.lists.Load() > 0; listed != c.lists {
				t.Errorf("listed = %v, want %v", listed, c.lists)
			}
		})
	}
}

func TestLocateMetadataPrefersTextHintOverTxt(t *testing.T) {
	dir := table(t, ptr("1"), vNames(1, 1)...)
	os.WriteFile(filepath.Join(dir, "metadata", "version-hint.txt"), []byte("7"), 0o666)
	os.WriteFile(filepath.Join(dir, "metadata", "v7.metadata.json"), []byte("{}"), 0o666)
	// .text says 1 and probing finds no v2, so the stray .txt is not consulted.
	got, err := LocateMetadata(t.Context(), fileio.Local{}, dir)
	if err != nil || got != filepath.Join(dir, "metadata", "v1.metadata.json") {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestLocateMetadataErrors(t *testing.T) {
	ctx := t.Context()
	t.Run("empty location", func(t *testing.T) {
		if _, err := LocateMetadata(ctx, fileio.Local{}, ""); err == nil {
			t.Fatal("accepted")
		}
	})
	t.Run("missing table", func(t *testing.T) {
		_, err := LocateMetadata(ctx, fileio.Local{}, filepath.Join(t.TempDir(), "nope"))
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no metadata directory") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing metadata file", func(t *testing.T) {
		_, err := LocateMetadata(ctx, fileio.Local{}, filepath.Join(t.TempDir(), "v1.metadata.json"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("empty metadata directory", func(t *testing.T) {
		_, err := LocateMetadata(ctx, fileio.Local{}, table(t, nil))
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "v<N>.metadata.json") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("garbage hint and no files", func(t *testing.T) {
		_, err := LocateMetadata(ctx, fileio.Local{}, table(t, ptr("not a version"), "notes.txt"))
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), `"not a version"`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("two files claim the newest version", func(t *testing.T) {
		_, err := LocateMetadata(ctx, fileio.Local{}, table(t, nil, "00003-aaaa.metadata.json", "00003-bbbb.metadata.json", "v2.metadata.json"))
		if err == nil || !strings.Contains(err.Error(), "00003-aaaa") || !strings.Contains(err.Error(), "00003-bbbb") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("foreign location without a map", func(t *testing.T) {
		_, err := LocateMetadata(ctx, fileio.NewRouter(), "hdfs://localhost:20500/test-warehouse/t")
		if !errors.Is(err, fileio.ErrUnsupportedScheme) || !strings.Contains(err.Error(), "location_map") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestLocateMetadataAcceptsAnyExistingJSONFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "copy.json")
	os.WriteFile(p, []byte("{}"), 0o666)
	if got, err := LocateMetadata(t.Context(), fileio.Local{}, p); err != nil || got != p {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestParseVersionHint(t *testing.T) {
	cases := []struct {
		in      string
		version int64
		file    string
		bad     bool
	}{
		{in: "7", version: 7},
		{in: "2\n", version: 2},
		{in: "  0012 \r\n", version: 12},
		{in: uuidB, version: 1, file: uuidB + ".metadata.json"},
		{in: uuidB + ".metadata.json", version: 1, file: uuidB + ".metadata.json"},
		{in: "v3", version: 3, file: "v3.metadata.json"},
		{in: "v4.gz.metadata.json", version: 4, file: "v4.gz.metadata.json"},
		{in: "/wh/t/metadata/v5.metadata.json", version: 5, file: "v5.metadata.json"},
		{in: "", bad: true},
		{in: "\n", bad: true},
		{in: "-1", bad: true},
		{in: "99999999999", bad: true},
		{in: "1 2", bad: true},
		{in: "hello", bad: true},
		{in: "v", bad: true},
		{in: "00001-", bad: true},
		{in: "00001-a b", bad: true},
		{in: "../../etc/passwd", bad: true},
		{in: strings.Repeat("1", 2000), bad: true},
	}
	for _, c := range cases {
		h, err := parseVersionHint([]byte(c.in))
		if c.bad {
			if err == nil {
				t.Errorf("parseVersionHint(%q) = %+v, want an error", c.in, h)
			}
			continue
		}
		if err != nil || h.version != c.version || h.file != c.file {
			t.Errorf("parseVersionHint(%q) = %+v, %v; want version %d file %q", c.in, h, err, c.version, c.file)
		}
	}
}

func TestWarehouseLocation(t *testing.T) {
	t.Setenv(WarehouseEnv, "")
	cases := []struct{ warehouse, name, want string }{
		{"/wh", "ns.t", "/wh/ns/t"},
		{"/wh/", "a.b.t", "/wh/a/b/t"},
		{"s3://bucket/prefix/", "db.events", "s3://bucket/prefix/db/events"},
		{"s3://bucket", "db.events", "s3://bucket/db/events"},
		{"file:///", "db.t", "file:///db/t"},
		{"/", "t", "/t"},
		{"rel/wh", "mydb.mytable", "rel/wh/mydb/mytable"},
	}
	for _, c := range cases {
		if got, err := WarehouseLocation(c.warehouse, c.name); err != nil || got != c.want {
			t.Errorf("WarehouseLocation(%q, %q) = %q, %v; want %q", c.warehouse, c.name, got, err, c.want)
		}
	}
	for _, name := range []string{"", "ns..t", ".t", "ns.", "ns.a/b", `ns.a\b`} {
		if got, err := WarehouseLocation("/wh", name); err == nil {
			t.Errorf("WarehouseLocation(%q) = %q, want an error", name, got)
		}
	}
	if _, err := WarehouseLocation("", "ns.t"); err == nil || !strings.Contains(err.Error(), WarehouseEnv) {
		t.Errorf("no warehouse: %v", err)
	}
	t.Setenv(WarehouseEnv, "/from/env")
	if got, err := WarehouseLocation("", "ns.t"); err != nil || got != "/from/env/ns/t" {
		t.Errorf("from env: %q, %v", got, err)
	}
	if got, err := WarehouseLocation("/explicit", "ns.t"); err != nil || got != "/explicit/ns/t" {
		t.Errorf("explicit beats env: %q, %v", got, err)
	}
}

// The duckdb fixture's two tables sit under warehouse/mydb: naming them
// mydb.<table> under that warehouse finds their metadata.
func TestWarehouseNamesReachTheDuckDBFixture(t *testing.T) {
	fx, err := fixtures.Get("duckdb_equality_deletes/mytable_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	warehouse := filepath.Dir(filepath.Dir(fx.Dir))
	loc, err := WarehouseLocation(warehouse, "mydb.mytable_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	got, err := LocateMetadata(t.Context(), fileio.Local{}, loc)
	if err != nil || got != fx.Metadata {
		t.Fatalf("got %s, %v; want %s", got, err, fx.Metadata)
	}
}

func FuzzParseVersionHint(f *testing.F) {
	all, err := fixtures.All()
	if err != nil {
		f.Fatal(err)
	}
	for _, fx := range all {
		for _, name := range versionHintNames {
			if data, err := os.ReadFile(filepath.Join(fx.Dir, "metadata", name)); err == nil {
				f.Add(data)
			}
		}
	}
	for _, s := range []string{"v3", uuidB + ".metadata.json", "/x/v2.gz.metadata.json", "\ufeff7\r\n", "00001-", "2147483648"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := parseVersionHint(data)
		if err != nil {
			return
		}
		if h.version < 0 {
			t.Fatalf("negative version %d", h.version)
		}
		if h.file != "" {
			v, ok := parseMetadataFileName(h.file)
			if !ok || v != h.version || strings.ContainsAny(h.file, "/ \t\r\n") {
				t.Fatalf("hint %q gave file %q version %d (parsed %d, %v)", data, h.file, h.version, v, ok)
			}
		}
	})
}
