package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
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
		{errors.New("codec LZO is not supported"), statusUnsupported},
		{errors.New("manifest is garbage"), statusFormat},
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
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = parseScanOptions(data)
	})
}
