package fileio

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixturePrefixes are the real foreign prefixes of the fixture tables.
func fixturePrefixes(f *testing.F) []string {
	data, err := os.ReadFile(filepath.Join(fixtures, "tables.json"))
	if err != nil {
		f.Fatal(err)
	}
	var tables []fixtureTable
	if err := json.Unmarshal(data, &tables); err != nil {
		f.Fatal(err)
	}
	var out []string
	for _, tb := range tables {
		out = append(out, tb.Prefixes...)
	}
	return out
}

func FuzzLocationMapApply(f *testing.F) {
	prefixes := fixturePrefixes(f)
	for _, p := range prefixes {
		f.Add(p+"/", "/tmp/x", p+"/data/f.parquet")
		f.Add("./"+p, "rel/t", "./"+p+"/metadata/v1.metadata.json")
	}
	f.Add("/", "s3://b/", "/a//b")
	f.Add("hdfs://nn/", "file:///x/", "hdfs://nn")
	base := map[string]string{}
	for i, p := range prefixes {
		base[p] = "/fixtures/" + strings.Repeat("t", i+1)
	}
	f.Fuzz(func(t *testing.T, from, to, path string) {
		rules := map[string]string{from: to}
		for k, v := range base {
			if _, dup := rules[k]; !dup {
				rules[k] = v
			}
		}
		m, err := NewLocationMap(rules)
		if err != nil {
			return // refused maps are fine; panics are not
		}
		once := m.Apply(path)
		if twice := m.Apply(once); twice != once {
			t.Fatalf("Apply(%q) = %q, then %q", path, once, twice)
		}
	})
}

func FuzzLocation(f *testing.F) {
	for _, p := range fixturePrefixes(f) {
		f.Add(p)
	}
	for _, s := range []string{"file:/x", "file:///x/y", "file://localhost/x", "file://h/x", "file://", "C:/x", "s3://b/k", "a:b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, loc string) {
		scheme := Scheme(loc)
		p, err := localPath(loc)
		if err == nil && scheme == "file" && !strings.HasPrefix(p, "/") {
			t.Fatalf("localPath(%q) = %q, not absolute", loc, p)
		}
		if err == nil && scheme == "" && p != loc {
			t.Fatalf("localPath(%q) changed a plain path to %q", loc, p)
		}
		if j := JoinPath(loc, "v1.metadata.json"); !strings.HasSuffix(j, "v1.metadata.json") || !strings.HasPrefix(j, strings.TrimRight(loc, "/")) {
			t.Fatalf("JoinPath(%q) = %q", loc, j)
		}
	})
}
