package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

func TestParseTableOptions(t *testing.T) {
	good := []string{``, `  `, `null`, `{}`, `{"location_map": {"hdfs://nn/t": "/data/t"}, "warehouse": "/w"}`, `{"properties": {}}`}
	for _, in := range good {
		if _, err := parseTableOptions([]byte(in)); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
	bad := []struct {
		in   string
		want status
	}{
		{`{`, statusInvalidArgument},
		{`{"location_map": {}} x`, statusInvalidArgument},
		{`[]`, statusInvalidArgument},
		{`{"warehouse": 3}`, statusInvalidArgument},
		{`{"locationmap": {}}`, statusInvalidArgument},
		{`{"location_map": {"": "/x"}}`, statusInvalidArgument},
		{`{"properties": {"s3.endpoint": "http://x"}}`, statusUnsupported},
		{`{"s3": {"endpont": "http://x"}}`, statusInvalidArgument},
		{`{"s3": {"RetryBaseDelay": 5}}`, statusInvalidArgument},
		{`{"s3": {"path_style": "yes"}}`, statusInvalidArgument},
		{`{"s3": []}`, statusInvalidArgument},
		{`{"s3": {"access_key_id": "only-half"}}`, statusInvalidArgument},
		{`{"s3": {"anonymous": true, "access_key_id": "a", "secret_access_key": "b"}}`, statusInvalidArgument},
		{`{"s3": {"part_size": 1024}}`, statusInvalidArgument},
		{`{"s3": {"max_attempts": -1}}`, statusInvalidArgument},
		{`{"s3": {"endpoint": "127.0.0.1:9000"}}`, statusInvalidArgument},
	}
	for _, c := range bad {
		_, err := parseTableOptions([]byte(c.in))
		if err == nil {
			t.Errorf("%q: accepted", c.in)
			continue
		}
		if got := classify(err, statusInternal); got != c.want {
			t.Errorf("%q: status %d, want %d (%v)", c.in, got, c.want, err)
		}
	}
}

// The "s3" table option is fileio.S3Options under its JSON names, and
// reaches the table options (floe_table_open, floe_task_stream) and the
// create options (floe_table_create) unchanged.
func TestParseS3Options(t *testing.T) {
	in := `{"location_map": {"hdfs://nn/wh": "s3://b/wh"}, "s3": {"endpoint": "http://127.0.0.1:7070",
		"region": "eu-west-1", "access_key_id": "AK", "secret_access_key": "SK", "session_token": "ST",
		"path_style": true, "max_attempts": 7, "part_size": 16777216}}`
	want := fileio.S3Options{Endpoint: "http://127.0.0.1:7070", Region: "eu-west-1", AccessKeyID: "AK", SecretAccessKey: "SK",
		SessionToken: "ST", PathStyle: true, MaxAttempts: 7, PartSize: 16 << 20}
	o, err := parseTableOptions([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if o.S3 == nil || *o.S3 != want {
		t.Fatalf("parsed s3 = %+v, want %+v", o.S3, want)
	}
	if got := o.table(); got.S3 == nil || *got.S3 != want || got.LocationMap["hdfs://nn/wh"] != "s3://b/wh" {
		t.Fatalf("table options = %+v", got)
	}
	anon, err := parseTableOptions([]byte(`{"s3": {"anonymous": true, "region": "us-west-2"}}`))
	if err != nil || anon.S3 == nil || !anon.S3.Anonymous || anon.S3.Region != "us-west-2" {
		t.Fatalf("anonymous options = %+v, %v", anon.S3, err)
	}
	if none, err := parseTableOptions([]byte(`{"warehouse": "s3://b/wh"}`)); err != nil || none.S3 != nil || none.table().S3 != nil {
		t.Fatalf("no s3 key = %+v, %v", none.S3, err)
	}
	c, err := parseCreateOptions([]byte(`{"s3": {"endpoint": "https://s3.example.com", "anonymous": true}, "format_version": 2}`))
	if err != nil || c.S3 == nil || c.S3.Endpoint != "https://s3.example.com" || !c.S3.Anonymous {
		t.Fatalf("create options s3 = %+v, %v", c.S3, err)
	}
	for _, bad := range []string{`{"s3": {"secret_access_key": "x"}}`, `{"s3": {"region": 3}}`, `{"s3": {"bucket": "b"}}`} {
		if _, err := parseCreateOptions([]byte(bad)); err == nil {
			t.Errorf("create options %s accepted", bad)
		} else if got := classify(err, statusInternal); got != statusInvalidArgument {
			t.Errorf("create options %s: status %d (%v)", bad, got, err)
		}
	}
}

func TestParseScanOptions(t *testing.T) {
	o, err := parseScanOptions([]byte(`{"columns": ["a", "b.c"], "limit": 5, "snapshot_id": 7}`))
	if err != nil || len(o.Columns) != 2 || *o.Limit != 5 || *o.SnapshotID != 7 {
		t.Fatalf("%+v %v", o, err)
	}
	if o, err := parseScanOptions(nil); err != nil || o.Columns != nil {
		t.Fatalf("empty options: %+v %v", o, err)
	}
	for in, want := range map[string]status{
		`{"limit": 1} trailing`:   statusInvalidArgument,
		`{"colums": []}`:          statusInvalidArgument,
		`{"threads": -1}`:         statusInvalidArgument,
		`{"batch_size": "large"}`: statusInvalidArgument,
	} {
		_, err := parseScanOptions([]byte(in))
		if err == nil {
			t.Errorf("%q: accepted", in)
		} else if got := classify(err, statusInternal); got != want {
			t.Errorf("%q: status %d, want %d (%v)", in, got, want, err)
		}
	}
}

func TestClassify(t *testing.T) {
	_, statErr := os.Stat(filepath.Join(t.TempDir(), "missing"))
	cases := []struct {
		err  error
		want status
	}{
		{statErr, statusNotFound},
		{fmt.Errorf("open table: %w", fs.ErrNotExist), statusNotFound},
		{fmt.Errorf("x: %w", fileio.ErrUnsupportedScheme), statusUnsupported},
		{fmt.Errorf("commit: %w", fileio.ErrExists), statusConflict},
		{&fs.PathError{Op: "read", Path: "/x", Err: errors.New("input/output error")}, statusIO},
		{errkind.Errorf(errkind.Unsupported, "codec LZO is not supported"), statusUnsupported},
		// The wording decides nothing: without a kind it is the fallback.
		{errors.New("codec LZO is not supported"), statusFormat},
		{errors.New("manifest is garbage"), statusFormat},
		{fmt.Errorf("read: %w", errkind.Errorf(errkind.Corrupt, "bad magic")), statusFormat},
		{fmt.Errorf("plan: %w", errkind.Errorf(errkind.NotFound, "no snapshot 3")), statusNotFound},
		{errkind.Errorf(errkind.InvalidArgument, "no column named %q", "x"), statusInvalidArgument},
		{fmt.Errorf("append: %w", table.ErrConflict), statusConflict},
		{fmt.Errorf("create: %w", table.ErrTableExists), statusConflict},
		{errkind.Errorf(errkind.IO, "s3: reset"), statusIO},
		{fmt.Errorf("commit: write v3: %w (%w: gone)", errors.New("timeout"), table.ErrCommitStateUnknown), statusCommitUnknown},
		{errkind.Errorf(errkind.Unauthorized, "REST catalog x: 401"), statusUnauthorized},
		{fmt.Errorf("cast: %w", arrow.ErrNotImplemented), statusUnsupported},
		{withStatus(statusInvalidArgument, fmt.Errorf("wrapped: %w", fs.ErrNotExist)), statusInvalidArgument},
	}
	for _, c := range cases {
		if got := classify(c.err, statusFormat); got != c.want {
			t.Errorf("%v: %d, want %d", c.err, got, c.want)
		}
	}
}

func TestHandles(t *testing.T) {
	th := newHandle(&tableHandle{})
	if _, err := lookup[*tableHandle](th, "floe_table"); err != nil {
		t.Fatal(err)
	}
	if _, err := lookup[*scanHandle](th, "floe_scan"); err == nil {
		t.Fatal("a table handle passed as a scan")
	}
	if err := release[*scanHandle](th, "floe_scan"); err == nil {
		t.Fatal("a table handle freed as a scan")
	}
	if err := release[*tableHandle](th, "floe_table"); err != nil {
		t.Fatal(err)
	}
	for _, h := range []uintptr{th, 0, 0xdeadbeef} {
		if _, err := lookup[*tableHandle](h, "floe_table"); err == nil {
			t.Errorf("handle %#x passed the lookup", h)
		}
		if err := release[*tableHandle](h, "floe_table"); err == nil {
			t.Errorf("handle %#x was freed", h)
		}
	}
}

// FuzzTableOptions: options JSON from a host never panics the parser.
func FuzzTableOptions(f *testing.F) {
	all, err := fixtures.All()
	if err != nil {
		f.Fatal(err)
	}
	for _, tbl := range all {
		seed, _ := json.Marshal(map[string]any{"location_map": tbl.LocationMap, "warehouse": tbl.Dir})
		f.Add(seed)
	}
	f.Add([]byte(`{"properties": {"s3.region": "x"}}`))
	f.Add([]byte(`{"s3": {"endpoint": "http://127.0.0.1:7070", "access_key_id": "a", "secret_access_key": "b", "path_style": true, "part_size": 5242880}}`))
	f.Add([]byte(`{"location_map": {"a": "a/b"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = parseTableOptions(data)
	})
}

// FuzzScanOptions: the same for scan options.
func FuzzScanOptions(f *testing.F) {
	f.Add([]byte(`{"columns": ["l_orderkey", "s.a"], "limit": 10, "batch_size": 1024, "threads": 2}`))
	f.Add([]byte(`{"snapshot_id": 7817332053627255703}`))
	f.Add([]byte(`{"ref": "main", "as_of_timestamp": 1}`))
	f.Add([]byte(`{"filter": "id > 3 and s like 'a%'", "coalesce_gap": -1}`))
	f.Add([]byte(`{"filter": {"type": "lt", "term": "id", "value": 3}, "ordered": false}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = parseScanOptions(data)
	})
}

// "relocate" is on unless set false; off, a moved table's recorded paths
// are read as they are and the failure is a not-found naming the map.
func TestRelocateOption(t *testing.T) {
	for in, want := range map[string]bool{``: false, `{}`: false, `{"relocate": true}`: false, `{"relocate": false}`: true} {
		o, err := parseTableOptions([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := o.table().NoRelocate; got != want {
			t.Errorf("%q: NoRelocate = %v", in, got)
		}
	}
	if _, err := parseTableOptions([]byte(`{"relocate": "no"}`)); classify(err, statusInternal) != statusInvalidArgument {
		t.Errorf(`"relocate": "no": %v`, err)
	}
	fx, err := fixtures.Get("impala_iceberg_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for in, wantErr := range map[string]bool{`{}`: false, `{"relocate": false}`: true} {
		o, err := parseTableOptions([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.Open(ctx, fx.Dir, o.table())
		if err != nil {
			t.Fatal(err)
		}
		_, err = tbl.PlanFiles(ctx, table.SnapshotSelector{})
		switch {
		case !wantErr && err != nil:
			t.Errorf("%s: %v", in, err)
		case wantErr && (classify(err, statusInternal) != statusNotFound || !strings.Contains(err.Error(), "--map /test-warehouse/iceberg_test/iceberg_partitioned="+fx.Dir)):
			t.Errorf("%s: status %d: %v", in, classify(err, statusInternal), err)
		}
	}
}
