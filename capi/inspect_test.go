package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/inspect"
)

// options_json is read strictly: every key of floe.h, the filter in both
// forms, and errors naming what is wrong, all INVALID_ARGUMENT.
func TestParseInspectOptions(t *testing.T) {
	req, err := parseInspectOptions([]byte(`{"columns": ["snapshot_id"], "filter": "operation = 'append'", "ref": "main",
		"limit": 3, "batch_size": 2, "case_sensitive": false, "timeout_ms": 1500}`))
	if err != nil {
		t.Fatal(err)
	}
	o := req.opts
	if len(o.Columns) != 1 || o.Columns[0] != "snapshot_id" || o.Filter == nil || o.Filter.String() != `operation = "append"` && o.Filter.String() != "operation = 'append'" ||
		o.Ref != "main" || o.Limit != 3 || o.BatchSize != 2 || !o.CaseInsensitive || req.zeroLimit || req.timeout == nil || *req.timeout != 1500*time.Millisecond {
		t.Errorf("parsed %+v (filter %v, timeout %v)", o, o.Filter, req.timeout)
	}
	req, err = parseInspectOptions([]byte(`{"filter": {"type": "gt", "term": "record_count", "value": 10}, "snapshot_id": 7, "limit": 0, "case_insensitive": true}`))
	if err != nil || req.opts.Filter == nil || req.opts.SnapshotID == nil || *req.opts.SnapshotID != 7 || !req.zeroLimit || !req.opts.CaseInsensitive {
		t.Errorf("parsed %+v, %v", req, err)
	}
	for _, empty := range []string{"", "  ", "{}", "null"} {
		if req, err := parseInspectOptions([]byte(empty)); err != nil || req.opts.Columns != nil || req.opts.Filter != nil || req.zeroLimit {
			t.Errorf("%q: %+v, %v", empty, req, err)
		}
	}
	for in, mention := range map[string]string{
		`{"colums": ["a"]}`:                 "colums",
		`{"limit": -2}`:                     "limit -2",
		`{"batch_size": -1}`:                "batch_size -1",
		`{"timeout_ms": -1}`:                "timeout_ms",
		`{"snapshot_id": 1, "ref": "main"}`: "not both",
		`{"case_sensitive": false, "case_insensitive": false}`: "disagree",
		`{"filter": "a = = 1"}`:                                "filter",
		`{"filter": {"type": "lt"`:                             "not valid JSON",
		`{"limit": 1} trailing`:                                "not valid JSON",
		`{"ref": "ma\u0000in"}`:                                "NUL",
		`{"snapshot_id": "1"}`:                                 "snapshot_id",
		`{"as_of_timestamp": 1000}`:                            "as_of_timestamp",
	} {
		_, err := parseInspectOptions([]byte(in))
		if err == nil || !strings.Contains(err.Error(), mention) || classify(err, statusInternal) != statusInvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT mentioning %q", in, err, mention)
		}
	}
}

func openFixtureHandle(t *testing.T, name string) *tableHandle {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	return &tableHandle{table: tbl}
}

// A stream's call context bounds its reads: past the deadline a metadata
// table that reads manifests fails with a TIMEOUT status, and without one
// it reads to the end.
func TestInspectStreamHasACallContext(t *testing.T) {
	h := openFixtureHandle(t, "duckdb_lineitem_iceberg")
	kind := inspect.Kind("entries")
	if _, ok := inspectKinds()[kind]; !ok {
		t.Skip("no entries metadata table yet")
	}
	rdr, cancel, err := openInspect(h, kind, inspectRequest{})
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for rdr.Next() {
		rows += int(rdr.RecordBatch().NumRows())
	}
	if rdr.Err() != nil || rows == 0 {
		t.Fatalf("entries: %d rows, %v", rows, rdr.Err())
	}
	rdr.Release()
	cancel()

	tiny := time.Nanosecond
	rdr, cancel, err = openInspect(h, kind, inspectRequest{timeout: &tiny})
	if err == nil {
		defer cancel()
		defer rdr.Release()
		for rdr.Next() {
		}
		err = rdr.Err()
	}
	if err == nil || classify(err, statusInternal) != statusTimeout {
		t.Errorf("entries past a 1ns deadline: %v (status %d), want TIMEOUT", err, classify(err, statusInternal))
	}
}

func inspectKinds() map[inspect.Kind]bool {
	out := map[inspect.Kind]bool{}
	for _, k := range inspect.Kinds() {
		out[k] = true
	}
	return out
}
