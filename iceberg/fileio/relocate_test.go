package fileio

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// Relocation maps every spelling of a recorded location onto the table's
// root, except where an explicit rule already applies.
func TestRelocated(t *testing.T) {
	m, changed, err := LocationMap{}.Relocated("/test-warehouse/t", "/fix/t")
	if err != nil || !changed {
		t.Fatalf("Relocated: %v, %v", changed, err)
	}
	for in, want := range map[string]string{
		"/test-warehouse/t/data/f":                        "/fix/t/data/f",
		"file:///test-warehouse/t/data/f":                 "/fix/t/data/f",
		"hdfs://localhost:20500/test-warehouse/t/data/f":  "/fix/t/data/f",
		"hdfs://localhost:20500/test-warehouse/tt/data/f": "hdfs://localhost:20500/test-warehouse/tt/data/f",
	} {
		if got := m.Apply(in); got != want {
			t.Errorf("Apply(%q) = %q, want %q", in, got, want)
		}
	}
	explicit := mustMap(t, map[string]string{"/test-warehouse": "/mnt/tw", "hdfs://nn/": "/mnt/nn"})
	m, changed, err = explicit.Relocated("hdfs://nn/test-warehouse/t", "/fix/t")
	if err != nil || changed {
		t.Fatalf("Relocated under explicit rules for every spelling: changed %v, %v; %v", changed, err, m.Prefixes())
	}
	m, _, err = LocationMap{}.Relocated("s3a://b/wh/t/", "s3://c/t")
	if err != nil || m.Apply("s3://b/wh/t/f") != "s3://c/t/f" || m.Apply("s3a://b/wh/t/f") != "s3://c/t/f" {
		t.Errorf("s3 relocation: %v %v", m.Prefixes(), err)
	}
	m, _, err = LocationMap{}.Relocated("./lineitem_iceberg", "/fix/li")
	if err != nil || m.Apply("lineitem_iceberg/data/f") != "/fix/li/data/f" {
		t.Errorf("relative relocation: %v %v", m.Prefixes(), err)
	}
	// file://wh/t is DuckDB's, GlareDB's and BigQuery's spelling of the
	// relative path wh/t: either spelling relocates both.
	for _, recorded := range []string{"file://wh/default.db/cities", "wh/default.db/cities", "./wh/default.db/cities/"} {
		m, _, err = LocationMap{}.Relocated(recorded, "/fix/c")
		if err != nil {
			t.Errorf("%s: %v", recorded, err)
			continue
		}
		for _, in := range []string{"file://wh/default.db/cities/data/f", "wh/default.db/cities/data/f", "./wh/default.db/cities/data/f"} {
			if got := m.Apply(in); got != "/fix/c/data/f" {
				t.Errorf("relocated %s: Apply(%s) = %q", recorded, in, got)
			}
		}
		if got := m.Apply("file://wh/default.db/citiesx/f"); got != "file://wh/default.db/citiesx/f" {
			t.Errorf("relocated %s: Apply of a sibling = %q", recorded, got)
		}
	}
	// A copy beneath its own recorded location cannot be mapped idempotently.
	if _, _, err := (LocationMap{}).Relocated("/wh/t", "/wh/t/copy"); err == nil {
		t.Error("relocation beneath the recorded location was accepted")
	}
}

func TestRecordedPrefix(t *testing.T) {
	for _, c := range []struct{ path, location, want string }{
		{"/wh/t/data/f", "/wh/t", "/wh/t"},
		{"file:///wh/t/data/f", "/wh/t/", "/wh/t"},
		{"hdfs://nn:8020/wh/t/data/f", "/wh/t", "hdfs://nn:8020/wh/t"},
		{"/wh/t/data/f", "hdfs://nn:8020/wh/t", "/wh/t"},
		{"lineitem_iceberg/data/f", "./lineitem_iceberg", "lineitem_iceberg"},
		{"file://wh/t/data/f", "wh/t", "file://wh/t"},
		{"wh/t/data/f", "file://wh/t", "wh/t"},
		{"/wh/tt/data/f", "/wh/t", ""},
		{"s3://b/wh/t/f", "/wh/t", ""},
	} {
		got, ok := RecordedPrefix(c.path, c.location)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("RecordedPrefix(%q, %q) = %q, %v; want %q", c.path, c.location, got, ok, c.want)
		}
	}
}

// The hint is added to not-found and unsupported-scheme errors only, and
// the error keeps its kind.
func TestWithMissingHint(t *testing.T) {
	files := WithMissingHint(NewRouter(), func(p string) string { return "hint for " + p })
	ctx := context.Background()
	_, err := files.ReadFile(ctx, "/no/such/file")
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasSuffix(err.Error(), "; hint for /no/such/file") {
		t.Errorf("not found: %v", err)
	}
	_, err = OpenSized(ctx, files, "hdfs://nn/x", 10)
	if !errors.Is(err, ErrUnsupportedScheme) || !strings.HasSuffix(err.Error(), "; hint for hdfs://nn/x") {
		t.Errorf("unsupported: %v", err)
	}
	if _, err := files.ReadFile(ctx, t.TempDir()); err == nil || strings.Contains(err.Error(), "hint") {
		t.Errorf("a directory is not a missing file: %v", err)
	}
	if ok, err := files.Exists(ctx, "/no/such/file"); ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
}
