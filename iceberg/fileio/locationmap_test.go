package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustMap(t *testing.T, m map[string]string) LocationMap {
	t.Helper()
	lm, err := NewLocationMap(m)
	if err != nil {
		t.Fatal(err)
	}
	return lm
}

func TestLocationMapApply(t *testing.T) {
	m := mustMap(t, map[string]string{
		"/a/b":                            "/local/ab",
		"/a/b/c/":                         "/local/abc/",
		"/a/bc":                           "/local/a-bc",
		"hdfs://localhost:20500/wh":       "/mnt/wh",
		"hdfs://nn:8020/":                 "/mnt/nn",
		"s3://bucket/prefix":              "s3://other/p",
		"lineitem_iceberg":                "/fix/lineitem",
		"./data/persistent/uuid":          "/fix/uuid",
		"/test-warehouse/iceberg_test/ta": "/fix/ta",
	})
	cases := []struct{ in, want string }{
		{"/a/b", "/local/ab"},
		{"/a/b/", "/local/ab/"},
		{"/a/b/x.parquet", "/local/ab/x.parquet"},
		{"/a/bc/x.parquet", "/local/a-bc/x.parquet"}, // not /a/b + "c/…"
		{"/a/bcd/x", "/a/bcd/x"},                     // no prefix matches on a whole element
		{"/a/b/c/d", "/local/abc/d"},                 // longest prefix wins
		{"/a/b/cd", "/local/ab/cd"},
		{"/a", "/a"},
		{"hdfs://localhost:20500/wh/t/data/f.parq", "/mnt/wh/t/data/f.parq"},
		{"hdfs://localhost:20500/whx", "hdfs://localhost:20500/whx"},
		{"hdfs://nn:8020/x/y", "/mnt/nn/x/y"},
		{"hdfs://nn:8020", "/mnt/nn"},
		{"s3://bucket/prefix/k", "s3://other/p/k"},
		{"s3://bucket/prefixed", "s3://bucket/prefixed"},
		{"lineitem_iceberg/data/f.parquet", "/fix/lineitem/data/f.parquet"},
		{"./lineitem_iceberg/metadata/x.avro", "/fix/lineitem/metadata/x.avro"},
		{"data/persistent/uuid/data/f.parquet", "/fix/uuid/data/f.parquet"},
		{"/test-warehouse/iceberg_test/ta/data/action=a%20b/f", "/fix/ta/data/action=a%20b/f"},
		{"", ""},
	}
	for _, c := range cases {
		if got := m.Apply(c.in); got != c.want {
			t.Errorf("Apply(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := m.Apply(m.Apply(c.in)); again != m.Apply(c.in) {
			t.Errorf("Apply is not idempotent on %q: %q", c.in, again)
		}
	}
}

func TestLocationMapRootPrefix(t *testing.T) {
	m := mustMap(t, map[string]string{"/": "s3://bucket/root"})
	if got := m.Apply("/x/y"); got != "s3://bucket/root/x/y" {
		t.Fatalf("Apply = %q", got)
	}
	if got := m.Apply("relative/x"); got != "relative/x" {
		t.Fatalf("Apply(relative) = %q", got)
	}
}

func TestLocationMapRelativeTargetsUseWorkingDirectory(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	m := mustMap(t, map[string]string{"/test-warehouse/t": "../fixtures/t/", "hdfs://h/t": "file:///abs/t/"})
	if got, want := m.Apply("/test-warehouse/t/data/f"), filepath.Join(filepath.Dir(wd), "fixtures", "t", "data", "f"); got != want {
		t.Errorf("Apply = %q, want %q", got, want)
	}
	// A file: target is a local path, spelled plainly like every output.
	if got := m.Apply("hdfs://h/t/f"); got != "/abs/t/f" {
		t.Errorf("Apply = %q", got)
	}
}

func TestLocationMapRefusesBadMaps(t *testing.T) {
	for name, m := range map[string]map[string]string{
		"empty source":             {"": "/x"},
		"dot source":               {"./": "/x"},
		"empty target":             {"/a": ""},
		"conflicting duplicates":   {"/a/": "/x", "/a": "/y"},
		"target under its source":  {"/data": "/data/mirror"},
		"source under a target":    {"/a": "/x", "/x/y": "/z"},
		"chained rewrite":          {"hdfs://h/a": "/b", "/b": "/c"},
		"target under other rules": {"/a": "/b/c", "/b": "/d"},
	} {
		if _, err := NewLocationMap(m); err == nil {
			t.Errorf("%s: %v was accepted", name, m)
		}
	}
	// Same target under two spellings of one source, and identity rules, are fine.
	if _, err := NewLocationMap(map[string]string{"/a/": "/x", "/a": "/x/", "/same": "/same"}); err != nil {
		t.Errorf("harmless map refused: %v", err)
	}
}

func TestZeroLocationMapIsIdentity(t *testing.T) {
	var m LocationMap
	if m.Apply("hdfs://x/y") != "hdfs://x/y" || m.Len() != 0 {
		t.Fatal("zero map rewrote a path")
	}
	if got := NewRemapping(Local{}, m); got != (Local{}) {
		t.Fatalf("NewRemapping with an empty map = %T, want the inner FileIO", got)
	}
}

func TestLocationMapPrefixesAreNormalized(t *testing.T) {
	m := mustMap(t, map[string]string{"./x/": "/t/", "hdfs://h/y/": "s3://b/"})
	got := m.Prefixes()
	if len(got) != 2 || got["x"] != "/t" || got["hdfs://h/y"] != "s3://b" {
		t.Fatalf("Prefixes = %v", got)
	}
	if !strings.HasPrefix(m.Apply("x/f"), "/t/") {
		t.Fatalf("Apply = %q", m.Apply("x/f"))
	}
}

// Every spelling of a local path is one path: a plain source covers the
// file: URIs of the paths under it, a file: source covers plain paths, and
// outputs are plain.
func TestLocationMapLocalSpellingsAreOnePath(t *testing.T) {
	plain := mustMap(t, map[string]string{"/old": "/new"})
	uri := mustMap(t, map[string]string{"file:/old": "/new"})
	triple := mustMap(t, map[string]string{"file:///old/": "file://localhost/new/"})
	for _, in := range []string{"/old/a", "file:/old/a", "file:///old/a", "file://localhost/old/a", "FILE:///old/a"} {
		for name, m := range map[string]LocationMap{"/old": plain, "file:/old": uri, "file:///old/": triple} {
			if got := m.Apply(in); got != "/new/a" {
				t.Errorf("map %s: Apply(%q) = %q, want /new/a", name, in, got)
			}
			if !m.Covers(in) {
				t.Errorf("map %s does not cover %q", name, in)
			}
		}
	}
	// Whole path elements still: file:///older is not under /old.
	if got := plain.Apply("file:///older/a"); got != "/older/a" {
		t.Errorf("Apply(file:///older/a) = %q", got)
	}
	// Unmapped paths, and the zero map, compare in the plain spelling too.
	var zero LocationMap
	for _, m := range []LocationMap{zero, plain} {
		if a, b := m.Apply("file:///x/f"), m.Apply("/x/f"); a != b || a != "/x/f" {
			t.Errorf("file:///x/f and /x/f remap to %q and %q", a, b)
		}
	}
	// Other hosts are not local paths: refused as a target, left alone
	// otherwise.
	if _, err := NewLocationMap(map[string]string{"/old": "file://nn/new"}); err == nil || !strings.Contains(err.Error(), `host "nn"`) {
		t.Errorf("target file://nn/new: err = %v, want one naming host nn", err)
	}
	if got := plain.Apply("file://nn/old/a"); got != "file://nn/old/a" {
		t.Errorf("Apply(file://nn/old/a) = %q", got)
	}
	// As a source, file://nn/old is what DuckDB, GlareDB and BigQuery
	// write for the relative path nn/old: it matches as written, and only
	// that spelling.
	rel, err := NewLocationMap(map[string]string{"file://nn/old/": "/new"})
	if err != nil {
		t.Fatalf("source file://nn/old: %v", err)
	}
	for in, want := range map[string]string{"file://nn/old/a": "/new/a", "file://nn/old": "/new", "file://nn/older/a": "file://nn/older/a", "/old/a": "/old/a"} {
		if got := rel.Apply(in); got != want {
			t.Errorf("Apply(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"/p": "/p", "file:/p": "/p", "file:///p": "/p", "file://localhost/p": "/p", "file://LOCALHOST/p/q": "/p/q",
		"file://p": "file://p", "file://host/p": "file://host/p", "s3://b/k": "s3://b/k", "rel/p": "rel/p",
		"hdfs://nn/p": "hdfs://nn/p",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

// A source with the authority "*" matches any authority of its scheme, and
// loses to a rule naming the authority for the same path.
func TestLocationMapWildcardAuthority(t *testing.T) {
	m := mustMap(t, map[string]string{
		"hdfs://*/wh/t":   "/fix/t",
		"hdfs://nn/wh/t":  "/nn/t",
		"hdfs://*/wh/t/x": "/fix/x",
	})
	for in, want := range map[string]string{
		"hdfs://localhost:20500/wh/t/data/f": "/fix/t/data/f",
		"hdfs:///wh/t/f":                     "/fix/t/f",
		"HDFS://h2/wh/t":                     "/fix/t",
		"hdfs://nn/wh/t/f":                   "/nn/t/f",
		"hdfs://nn/wh/t/x/f":                 "/fix/x/f", // the longer path wins
		"hdfs://h/wh/tt/f":                   "hdfs://h/wh/tt/f",
		"/wh/t/f":                            "/wh/t/f",
		"s3://b/wh/t/f":                      "s3://b/wh/t/f",
	} {
		if got := m.Apply(in); got != want {
			t.Errorf("Apply(%q) = %q, want %q", in, got, want)
		}
	}
	if got := m.Prefixes(); got["hdfs://*/wh/t"] != "/fix/t" {
		t.Errorf("Prefixes = %v", got)
	}
	if _, err := NewLocationMap(map[string]string{"/a": "hdfs://*/b"}); err == nil {
		t.Error("a wildcard target was accepted")
	}
	if _, err := NewLocationMap(map[string]string{"hdfs://*/a": "hdfs://nn/a/b"}); err == nil {
		t.Error("a target beneath a wildcard source was accepted")
	}
}
