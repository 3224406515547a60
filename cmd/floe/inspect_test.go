package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/inspect"
)

const sixSnapshots = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"

// fixtureSnapshots is the snapshots list of a fixture's current metadata
// JSON, read here apart from floe's parser.
type jsonSnapshot struct {
	ID        int64             `json:"snapshot-id"`
	Parent    *int64            `json:"parent-snapshot-id"`
	Timestamp int64             `json:"timestamp-ms"`
	Summary   map[string]string `json:"summary"`
}

func fixtureSnapshots(t *testing.T, fx fixtures.Table) []jsonSnapshot {
	t.Helper()
	data, err := os.ReadFile(fx.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Snapshots []jsonSnapshot `json:"snapshots"`
	}
	if err := json.Unmarshal(data, &md); err != nil {
		t.Fatal(err)
	}
	return md.Snapshots
}

// inspectRows runs floe inspect with JSON lines output and decodes them.
func inspectRows(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	status, out, errOut := runCLI(t, append([]string{"inspect"}, args...)...)
	if status != 0 {
		t.Fatalf("inspect %v: status %d: %s", args, status, errOut)
	}
	var rows []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var row map[string]any
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("inspect output %q: %v", sc.Text(), err)
		}
		rows = append(rows, row)
	}
	return rows
}

func jsonInt(t *testing.T, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// floe inspect T snapshots prints the metadata JSON's snapshots, in its
// order, with their parents, operations and summaries; columns, filter
// and limit shape it as they do a scan.
func TestInspectSnapshots(t *testing.T) {
	fx, err := fixtures.Get(sixSnapshots)
	if err != nil {
		t.Fatal(err)
	}
	want := fixtureSnapshots(t, fx)
	if len(want) != 6 {
		t.Fatalf("the fixture has %d snapshots, want 6", len(want))
	}
	rows := inspectRows(t, append([]string{fx.Dir, "snapshots"}, mapArgs(fx)...)...)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, row := range rows {
		s := want[i]
		if got := jsonInt(t, row["snapshot_id"]); got != s.ID {
			t.Errorf("row %d: snapshot_id %d, want %d", i, got, s.ID)
		}
		if (row["parent_id"] == nil) != (s.Parent == nil) || s.Parent != nil && jsonInt(t, row["parent_id"]) != *s.Parent {
			t.Errorf("row %d: parent_id %v, want %v", i, row["parent_id"], s.Parent)
		}
		if row["operation"] != s.Summary["operation"] {
			t.Errorf("row %d: operation %v, want %s", i, row["operation"], s.Summary["operation"])
		}
		// The summary map without the operation, as the CLI prints maps.
		summary, _ := row["summary"].(map[string]any)
		keys, _ := summary["keys"].([]any)
		if len(keys) != len(s.Summary)-1 {
			t.Errorf("row %d: summary keys %v, want those of %v but operation", i, keys, s.Summary)
		}
	}

	overwrites := inspectRows(t, append([]string{fx.Dir, "snapshots", "--filter", "operation = 'overwrite'", "--columns", "snapshot_id,operation"}, mapArgs(fx)...)...)
	var wantIDs []int64
	for _, s := range want {
		if s.Summary["operation"] == "overwrite" {
			wantIDs = append(wantIDs, s.ID)
		}
	}
	var gotIDs []int64
	for _, row := range overwrites {
		if len(row) != 2 {
			t.Errorf("row %v: want the columns snapshot_id and operation", row)
		}
		gotIDs = append(gotIDs, jsonInt(t, row["snapshot_id"]))
	}
	if !slices.Equal(gotIDs, wantIDs) || len(wantIDs) != 2 {
		t.Errorf("overwrites %v, want %v", gotIDs, wantIDs)
	}
	if n := len(inspectRows(t, append([]string{fx.Dir, "snapshots", "--limit", "4", "--batch-size", "3"}, mapArgs(fx)...)...)); n != 4 {
		t.Errorf("--limit 4: %d rows", n)
	}
	if n := len(inspectRows(t, append([]string{fx.Dir, "snapshots", "--limit", "0"}, mapArgs(fx)...)...)); n != 0 {
		t.Errorf("--limit 0: %d rows", n)
	}
	if n := len(inspectRows(t, append([]string{fx.Dir, "snapshots", "--ignore-case", "--filter", "OPERATION = 'append'"}, mapArgs(fx)...)...)); n != 4 {
		t.Errorf("--ignore-case filter: %d rows, want 4 appends", n)
	}
}

// --format csv has a header and a line per row; --format table aligns the
// columns and counts the rows.
func TestInspectFormats(t *testing.T) {
	fx, _ := fixtures.Get(sixSnapshots)
	want := fixtureSnapshots(t, fx)
	status, out, errOut := runCLI(t, append([]string{"inspect", fx.Dir, "snapshots", "--format", "csv", "--columns", "snapshot_id,parent_id"}, mapArgs(fx)...)...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != len(want)+1 || !slices.Equal(records[0], []string{"snapshot_id", "parent_id"}) {
		t.Fatalf("csv: %q", records)
	}
	for i, s := range want {
		if records[i+1][0] != strconv.FormatInt(s.ID, 10) {
			t.Errorf("csv row %d: %q, want snapshot %d", i, records[i+1], s.ID)
		}
		if s.Parent == nil && records[i+1][1] != "" || s.Parent != nil && records[i+1][1] != strconv.FormatInt(*s.Parent, 10) {
			t.Errorf("csv row %d: parent %q, want %v", i, records[i+1][1], s.Parent)
		}
	}
	status, out, errOut = runCLI(t, append([]string{"inspect", fx.Dir, "snapshots", "--format", "table", "--columns", "operation"}, mapArgs(fx)...)...)
	if status != 0 || !strings.HasPrefix(out, "operation\n---------\nappend") || !strings.HasSuffix(out, "(6 rows)\n") {
		t.Errorf("table: status %d, %q, %s", status, out, errOut)
	}
}

// Each per-snapshot table at each snapshot: data_files lists as many
// files, holding as many records, as the snapshot's summary totals.
func TestInspectAtSnapshot(t *testing.T) {
	if !slices.Contains(inspect.Kinds(), "data_files") {
		t.Skip("no data_files metadata table yet")
	}
	fx, _ := fixtures.Get(sixSnapshots)
	for _, s := range fixtureSnapshots(t, fx) {
		rows := inspectRows(t, append([]string{fx.Dir, "data_files", "--snapshot", strconv.FormatInt(s.ID, 10), "--columns", "record_count"}, mapArgs(fx)...)...)
		var records int64
		for _, row := range rows {
			records += jsonInt(t, row["record_count"])
		}
		if strconv.Itoa(len(rows)) != s.Summary["total-data-files"] || strconv.FormatInt(records, 10) != s.Summary["total-records"] {
			t.Errorf("snapshot %d: %d files of %d records, summary %v", s.ID, len(rows), records, s.Summary)
		}
	}
}

// Bad arguments are errors naming them; nothing is printed on stdout.
func TestInspectUsageErrors(t *testing.T) {
	fx, _ := fixtures.Get(sixSnapshots)
	m := mapArgs(fx)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{fx.Dir}, "give a TABLE and a KIND"},
		{[]string{fx.Dir, "snapshots", "extra"}, `unexpected argument "extra"`},
		{[]string{fx.Dir, "snapshotz"}, `no metadata table "snapshotz"`},
		{[]string{fx.Dir, "snapshots", "--limit", "-1"}, `--limit wants a non-negative number, got "-1"`},
		{[]string{fx.Dir, "snapshots", "--batch-size", "x"}, `--batch-size wants a non-negative number, got "x"`},
		{[]string{fx.Dir, "snapshots", "--format", "xml"}, `not "xml"`},
		{[]string{fx.Dir, "snapshots", "--snapshot", "abc"}, `--snapshot wants a snapshot id, got "abc"`},
		{[]string{fx.Dir, "files", "--snapshot", "1", "--ref", "main"}, "not both"},
		{[]string{fx.Dir, "snapshots", "--snapshot", "1497619269847778439"}, "whole table"},
		{[]string{fx.Dir, "snapshots", "--columns", "nope"}, `no column "nope"`},
		{[]string{fx.Dir, "snapshots", "--filter", "nope > 1"}, "nope"},
		{[]string{fx.Dir, "snapshots", "--bogus"}, "unknown flag --bogus"},
	} {
		status, out, errOut := runCLI(t, append(append([]string{"inspect"}, c.args...), m...)...)
		if status != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("inspect %v: status %d, stdout %q, stderr %q; want %q", c.args, status, out, errOut, c.want)
		}
	}
}
