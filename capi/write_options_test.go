package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/writer/ops"
)

// fixtureSchema is the current schema of a real table (ids as its engine
// numbered them).
func fixtureSchema(t testing.TB, name string) (*iceberg.Schema, []byte) {
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fx.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Schemas         []json.RawMessage `json:"schemas"`
		CurrentSchemaID int               `json:"current-schema-id"`
		PartitionSpecs  []json.RawMessage `json:"partition-specs"`
	}
	if err := json.Unmarshal(data, &md); err != nil {
		t.Fatal(err)
	}
	raw := md.Schemas[len(md.Schemas)-1]
	var s iceberg.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return &s, data
}

func TestCreateOptionsPartitionBy(t *testing.T) {
	schema, _ := fixtureSchema(t, "impala_test_default_part")
	o, err := parseCreateOptions([]byte(`{"partition_by": [{"column": "j"}, {"column": "i", "transform": "bucket[8]"},
		{"column": "i", "transform": "truncate[10]", "name": "i10"}], "format_version": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := o.spec(schema)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range spec.Fields {
		got = append(got, f.Name+"="+f.Transform.String())
	}
	// The fixture's own spec 1 names its identity field "j" (source id 2).
	if strings.Join(got, ",") != "j=identity,i_bucket=bucket[8],i10=truncate[10]" || spec.Fields[0].SourceID != 2 {
		t.Errorf("spec: %v (source %d)", got, spec.Fields[0].SourceID)
	}
	for _, bad := range []string{
		`{"partition_by": [{"column": "nope"}]}`,
		`{"partition_by": [{"column": "i", "transform": "bucket"}]}`,
		`{"partition_by": [{"column": "i"}], "partition_spec": {"spec-id": 0, "fields": []}}`,
		`{"partitions": []}`,
	} {
		o, err := parseCreateOptions([]byte(bad))
		if err == nil {
			_, err = o.spec(schema)
		}
		if err == nil || classify(err, statusInternal) != statusInvalidArgument {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}

func TestCommitAndExpireOptions(t *testing.T) {
	o, _, err := parseCommitOptions([]byte(`{"token": "t", "properties": {"a": "b"}, "run_id": "r", "branch": "dev"}`))
	if err != nil || o.Token != "t" || o.Properties["a"] != "b" || o.RunID != "r" || o.Branch != "dev" {
		t.Errorf("commit options: %+v, %v", o, err)
	}
	if _, _, err := parseCommitOptions([]byte(`{"tokn": "t"}`)); err == nil {
		t.Error("an unknown commit option was accepted")
	}
	if _, _, err := parseCommitOptions([]byte(`{"delete_mode": "merge-on-read"}`)); err == nil {
		t.Error("delete_mode was accepted by a commit that deletes no rows")
	}
	r, _, err := parseRowCommitOptions([]byte(`{"token": "t", "delete_mode": "merge-on-read"}`))
	if err != nil || r.Commit.Token != "t" || r.Mode != ops.MergeOnRead {
		t.Errorf("row commit options: %+v, %v", r, err)
	}
	for _, bad := range []string{`{"delete_mode": "sideways"}`, `{"delete_mod": "copy-on-write"}`} {
		if _, _, err := parseRowCommitOptions([]byte(bad)); err == nil {
			t.Errorf("row commit options %s accepted", bad)
		}
	}
	if _, err := parseExpireOptions([]byte(`{"retain_last": 0}`)); err == nil {
		t.Error("retain_last 0 was accepted")
	}
	if p, err := parseRemovedPaths([]byte(`["a", "b"]`)); err != nil || len(p) != 2 {
		t.Errorf("removed paths: %v, %v", p, err)
	}
	for _, bad := range []string{`{"a": 1}`, `[""]`, `[1]`, `["a"`} {
		if _, err := parseRemovedPaths([]byte(bad)); err == nil {
			t.Errorf("removed paths %s accepted", bad)
		}
	}
}

func TestResolveLocation(t *testing.T) {
	wh := t.TempDir()
	if got, err := resolveLocation("ns.events", wh); err != nil || got != filepath.Join(wh, "ns", "events") {
		t.Errorf("ns.events → %q, %v", got, err)
	}
	for _, loc := range []string{"/tmp/x.y", "rel/t", "table", "s3://b/t"} {
		if got, _ := resolveLocation(loc, wh); got != loc {
			t.Errorf("%s → %q", loc, got)
		}
	}
}

// FuzzWriteOptions: create, commit (row commit too) and expire options and removed paths
// give errors, never panics; partition_by resolves against a real schema.
func FuzzWriteOptions(f *testing.F) {
	schema, metadata := fixtureSchema(f, "impala_test_default_part")
	f.Add(metadata)
	f.Add([]byte(`{"partition_by": [{"column": "j", "transform": "bucket[4]"}], "properties": {"a": "b"}, "ensure": true}`))
	f.Add([]byte(`{"partition_spec": {"spec-id": 0, "fields": [{"name": "j", "transform": "identity", "source-id": 2, "field-id": 1000}]}}`))
	f.Add([]byte(`{"token": "x", "properties": {"k": "v"}}`))
	f.Add([]byte(`{"token": "x", "delete_mode": "merge-on-read"}`))
	f.Add([]byte(`{"older_than_ms": 1, "retain_last": 2, "keep_files": true}`))
	f.Add([]byte(`["data/a.parquet"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if o, err := parseCreateOptions(data); err == nil {
			_, _ = o.spec(schema)
			_, _ = o.sortOrder()
		}
		_, _, _ = parseCommitOptions(data)
		_, _, _ = parseRowCommitOptions(data)
		_, _ = parseExpireOptions(data)
		_, _ = parseRemovedPaths(data)
	})
}

func TestCommitTimeoutOption(t *testing.T) {
	if _, _, err := parseCommitOptions([]byte(`{"token": "t", "timeout_ms": 1500}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := parseCommitOptions([]byte(`{"timeout_ms": -5}`)); err == nil {
		t.Fatal("a negative timeout_ms was taken")
	}
	if _, d, err := parseCommitOptions([]byte(`{"timeout_ms": 1500}`)); err != nil || d == nil || *d != 1500*time.Millisecond {
		t.Fatalf("timeout %v, %v", d, err)
	}
	if _, d, err := parseCommitOptions([]byte(`{"token": "t"}`)); err != nil || d != nil {
		t.Fatalf("no timeout_ms gave %v, %v", d, err)
	}
	if _, d, err := parseRowCommitOptions([]byte(`{"delete_mode": "merge-on-read", "timeout_ms": 20}`)); err != nil || d == nil || *d != 20*time.Millisecond {
		t.Fatalf("row commit timeout %v, %v", d, err)
	}
}
