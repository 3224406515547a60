package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/scan"
)

func TestFilterArgumentTellsTextFromJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{"id > 10", "id > 10"},
		{"  action = 'click'\n", "action = 'click'"},
		{`{"type": "lt", "term": "id", "value": 3}`, "id < 3"},
		{"\t {\"type\": \"true\"} ", "true"},
		{"true", "true"}, // text: the row_filter grammar has true and false too
	}
	for _, c := range cases {
		got, err := filterArgument(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("filterArgument(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for in, mention := range map[string]string{
		"":                     "empty",
		" \n\t":                "empty",
		`{"type": "lt"`:        "not a valid JSON expression",
		`{"type": "lt"} trail`: "not a valid JSON expression",
	} {
		_, err := filterArgument(in)
		if err == nil || !strings.Contains(err.Error(), mention) || classify(err, statusInternal) != statusInvalidArgument {
			t.Errorf("filterArgument(%q): %v, want an invalid argument mentioning %q", in, err, mention)
		}
	}
}

func openPartitionedScan(tb testing.TB) *scan.Scan {
	tb.Helper()
	fx, err := fixtures.Get("impala_iceberg_partitioned")
	if err != nil {
		tb.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := scan.New(context.Background(), tbl, scan.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Every way a host can get a filter wrong is FLOE_INVALID_ARGUMENT with a
// message naming the problem, whichever form the filter takes.
func TestAddFilterErrorsAreInvalidArgument(t *testing.T) {
	s := openPartitionedScan(t)
	for in, mention := range map[string]string{
		"nope > 1":    "nope",
		"id >":        "",
		"id > 10 and": "",
		`{"type": "gt", "term": "nope", "value": 1}`:  "nope",
		`{"type": "bogus", "term": "id", "value": 1}`: "bogus",
		`{"type": "gt", "term": "id"}`:                "value",
		"action = 3.5.1":                              "",
	} {
		raw, err := filterArgument(in)
		if err == nil {
			err = s.AddFilter(raw)
		}
		if err == nil {
			t.Errorf("%q: accepted", in)
			continue
		}
		if got := classify(err, statusInternal); got != statusInvalidArgument {
			t.Errorf("%q: status %d, want FLOE_INVALID_ARGUMENT (%v)", in, got, err)
		}
		if !strings.Contains(err.Error(), mention) {
			t.Errorf("%q: message %q does not mention %q", in, err, mention)
		}
	}
	for _, in := range []string{"id > 10", "action != 'click'", `{"type": "not-null", "term": "event_time"}`} {
		raw, err := filterArgument(in)
		if err == nil {
			err = s.AddFilter(raw)
		}
		if err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := json.Marshal(s.Metrics()); err != nil {
		t.Fatal(err)
	}
}

// FuzzAddFilter: whatever a host passes to floe_scan_add_filter is either
// taken or refused as an invalid argument, never a panic or another status.
func FuzzAddFilter(f *testing.F) {
	for _, seed := range []string{
		"id > 10", "action <> 'click' and id in (1, 2, 3)", "event_time is not null or not (id < 0)",
		"action like 'cl%'", `{"type": "and", "left": {"type": "gt", "term": "id", "value": 10}, "right": {"type": "not-eq", "term": "action", "value": "click"}}`,
		`{"type": "in", "term": "action", "values": ["view", "download"]}`, "", "{", "id > ",
	} {
		f.Add(seed)
	}
	var s *scan.Scan
	adds := 0
	f.Fuzz(func(t *testing.T, in string) {
		if s == nil || adds > 1000 { // a fresh scan now and then: accepted filters accumulate
			s, adds = openPartitionedScan(t), 0
		}
		raw, err := filterArgument(in)
		if err == nil {
			err = s.AddFilter(raw)
		}
		if err == nil {
			adds++
			return
		}
		if got := classify(err, statusInternal); got != statusInvalidArgument {
			t.Fatalf("%q: status %d (%v)", in, got, err)
		}
	})
}

// scan_json's names, as floe.h documents them, become scan.Options; a
// misspelt key, a bad value or a bad filter is an invalid argument.
func TestScanOptionsDecode(t *testing.T) {
	o, err := decodeScanOptions([]byte(`{"columns": [], "split_size": 1048576, "ordered": false, "limit": 5,
		"coalesce_gap": -1, "io_concurrency": 3, "prefetch_bytes": 7, "max_request": 9, "case_insensitive": true,
		"filter": "id > 10"}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Columns == nil || len(o.Columns) != 0 || o.SplitSize != 1<<20 || o.Ordered == nil || *o.Ordered || *o.Limit != 5 ||
		o.CoalesceGap != -1 || o.Concurrency != 3 || o.PrefetchBytes != 7 || o.MaxRequest != 9 || !o.CaseInsensitive ||
		o.Filter == nil || o.Filter.String() != "id > 10" {
		t.Errorf("decoded %+v", o)
	}
	if o, err := decodeScanOptions(nil); err != nil || o.Columns != nil || o.Filter != nil {
		t.Errorf("no options: %+v, %v (want every column, no filter)", o, err)
	}
	if o, err := decodeScanOptions([]byte(`{"filter": {"type": "lt", "term": "id", "value": 3}}`)); err != nil || o.Filter.String() != "id < 3" {
		t.Errorf("REST JSON filter: %+v, %v", o, err)
	}
	for _, bad := range []string{`{"colums": ["a"]}`, `{"limit": -1}`, `{"split_size": -1}`, `{"filter": "id >"}`, `{"filter": {"type": "lt"}}`} {
		if _, err := decodeScanOptions([]byte(bad)); err == nil || classify(err, statusInternal) != statusInvalidArgument {
			t.Errorf("%s: %v, want an invalid argument", bad, err)
		}
	}
}
