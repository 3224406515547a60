package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/scan"
)

// scanText plans a scan with scanJSON and reads every row as "col=value"
// joined by spaces, in the order the stream returns them.
func scanText(t *testing.T, h *tableHandle, scanJSON string) ([]string, *scanHandle) {
	t.Helper()
	s, err := openScan(h, []byte(scanJSON))
	if err != nil {
		t.Fatalf("%s: %v", scanJSON, err)
	}
	rdr, cancel, err := s.stream(scan.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				parts[c] = rec.Schema().Field(c).Name + "=" + rec.Column(c).ValueStr(i)
			}
			out = append(out, strings.Join(parts, " "))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	return out, s
}

// minusRows is a less b, as multisets.
func minusRows(a, b []string) []string {
	left := slices.Clone(b)
	var out []string
	for _, r := range a {
		if i := slices.Index(left, r); i >= 0 {
			left = slices.Delete(left, i, i+1)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// "changelog": true plans a changelog scan: on Impala's table (four
// appends, then two snapshots of position deletes) each snapshot's
// changes are the difference of full scans at it and its parent,
// INSERT for rows it added and DELETE for rows it removed, with ordinals
// counting the snapshots after from_snapshot_id; columns, filter and
// limit apply; count reads the same number of changes.
func TestChangelogScanOption(t *testing.T) {
	h := openFixtureHandle(t, "impala_iceberg_v2_positional_not_all_data_files_have_delete_files")
	snaps := []int64{4363979609026842966, 5762682948883272650, 7508485421322116327, 7490459762454857930, 752781918366351945, 1497619269847778439}
	at := func(i int) []string {
		if i < 0 {
			return nil
		}
		rows, _ := scanText(t, h, fmt.Sprintf(`{"snapshot_id": %d}`, snaps[i]))
		return rows
	}
	var want []string
	for i, id := range snaps {
		before, after := at(i-1), at(i)
		for _, r := range minusRows(before, after) {
			want = append(want, fmt.Sprintf("%s _change_type=DELETE _change_ordinal=%d _commit_snapshot_id=%d", r, i, id))
		}
		for _, r := range minusRows(after, before) {
			want = append(want, fmt.Sprintf("%s _change_type=INSERT _change_ordinal=%d _commit_snapshot_id=%d", r, i, id))
		}
	}
	if len(want) != 14 {
		t.Fatalf("expected 10 inserts and 4 deletes from the fixture, got %d changes: %v", len(want), want)
	}
	got, s := scanText(t, h, `{"changelog": true}`)
	if s.changelog == nil || s.scan != nil {
		t.Fatal(`"changelog": true planned an ordinary scan`)
	}
	if _, _, err := s.stream(scan.StreamOptions{BatchSize: 10}); classify(err, statusInternal) != statusInvalidArgument {
		t.Errorf("a changelog stream with a batch size: %v, want INVALID_ARGUMENT", err)
	}
	if names := s.schema().String(); !strings.Contains(names, "_change_type") || !strings.Contains(names, "_commit_snapshot_id") {
		t.Errorf("schema %s lacks the change columns", names)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("changelog:\n got %q\nwant %q", got, want)
	}
	if n, err := s.count(); err != nil || n != int64(len(want)) {
		t.Errorf("count %d, %v; want %d", n, err, len(want))
	}

	// From the last append: the two delete snapshots, ordinals 0 and 1
	// (the filter keeps the second's three).
	got, _ = scanText(t, h, fmt.Sprintf(`{"changelog": true, "from_snapshot_id": %d, "columns": ["_change_ordinal", "i", "_change_type"], "filter": "i > 6"}`, snaps[3]))
	slices.Sort(got)
	wantDeletes := []string{}
	for i := 4; i < 6; i++ {
		for _, r := range minusRows(at(i-1), at(i)) {
			var n int
			if _, err := fmt.Sscanf(r, "i=%d", &n); err != nil {
				t.Fatal(err)
			}
			if n > 6 {
				wantDeletes = append(wantDeletes, fmt.Sprintf("_change_ordinal=%d i=%d _change_type=DELETE", i-4, n))
			}
		}
	}
	slices.Sort(wantDeletes)
	if len(wantDeletes) != 3 || !slices.Equal(got, wantDeletes) {
		t.Errorf("deletes after the last append, i > 6:\n got %q\nwant %q", got, wantDeletes)
	}
	got, s = scanText(t, h, `{"changelog": true, "limit": 3}`)
	if n, err := s.count(); len(got) != 3 || err != nil || n != 3 {
		t.Errorf("limit 3: %d rows, count %d, %v", len(got), n, err)
	}
	// An ordinary option of a changelog scan still names what is wrong.
	if _, err := openScan(h, []byte(`{"changelog": true, "columns": ["nope"]}`)); errkind.Of(err) != errkind.InvalidArgument || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v, want an invalid argument naming it", err)
	}
	if _, err := openScan(h, []byte(`{"changelog": true, "from_snapshot_id": 42}`)); err == nil || !strings.Contains(err.Error(), "42") {
		t.Errorf("unknown from_snapshot_id: %v, want an error naming it", err)
	}
	if classify(errChangelogFilter, statusInternal) != statusUnsupported || classify(errChangelogMetrics, statusInternal) != statusUnsupported {
		t.Error("add_filter and metrics on a changelog scan are not UNSUPPORTED")
	}
}

// A changelog's tasks (floe_scan_plan, floe_scan_task) are its change
// groups: each serialised one is told from a scan's task by its "items"
// and read on its own (floe_task_stream); read in order they are the
// changelog's stream, and a limit given beside a task counts its changes.
func TestChangelogTasksReadAsTheScan(t *testing.T) {
	const name = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
	h := openFixtureHandle(t, name)
	fx, _ := fixtures.Get(name)
	stream, s := scanText(t, h, `{"changelog": true, "threads": 3}`)
	if s.numTasks() < 2 {
		t.Fatalf("%d tasks, want one a snapshot at least", s.numTasks())
	}
	mapJSON, _ := json.Marshal(fx.LocationMap)
	read := func(data []byte, limit string) []string {
		t.Helper()
		opts, ro, err := parseTaskOptions([]byte(`{"location_map": ` + string(mapJSON) + limit + `}`))
		if err != nil {
			t.Fatal(err)
		}
		rdr, cancel, err := openChangeGroup(data, opts, ro)
		if err != nil {
			t.Fatal(err)
		}
		defer cancel()
		defer rdr.Release()
		var out []string
		for rdr.Next() {
			rec := rdr.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				parts := make([]string, rec.NumCols())
				for c := range parts {
					parts[c] = rec.Schema().Field(c).Name + "=" + rec.Column(c).ValueStr(i)
				}
				out = append(out, strings.Join(parts, " "))
			}
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var got []string
	for i := 0; i < s.numTasks(); i++ {
		data, err := s.task(i)
		if err != nil {
			t.Fatal(err)
		}
		if !isChangeGroup(data) {
			t.Fatalf("task %d is not told as a change group: %.80s", i, data)
		}
		got = append(got, read(data, "")...)
		if n := len(read(data, `, "limit": 1`)); n != 1 {
			t.Errorf("task %d with limit 1: %d changes", i, n)
		}
	}
	if !slices.Equal(got, stream) {
		t.Errorf("tasks read in order:\n got %q\nwant %q", got, stream)
	}
	plain, err := openScan(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := plain.task(0)
	if err != nil || isChangeGroup(data) {
		t.Errorf("a scan's task is told as a change group (%v)", err)
	}
	if _, _, err := openChangeGroup([]byte(`{"items": []}`), taskOptions{}, scan.ReadOptions{}); classify(err, statusInternal) != statusInvalidArgument {
		t.Errorf("an empty change group: %v, want INVALID_ARGUMENT", err)
	}
}
