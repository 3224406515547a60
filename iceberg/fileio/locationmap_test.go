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
	if got := m.Apply("hdfs://h/t/f"); got != "file:///abs/t/f" {
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
