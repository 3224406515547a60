package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/writer/ops"
)

// floe_table_maintain's options_json as the C API reads every options
// string (NUL characters, timeout_ms) before internal/maintenance's strict
// parse, whose refusals come back as INVALID_ARGUMENT.
func TestParseMaintainRefuses(t *testing.T) {
	for _, c := range []struct{ action, in, want string }{
		{"remove_orphans", "", `unknown action "remove_orphans" (did you mean "remove_orphan_files"?)`},
		{"remove_orphan_files", `{"dryrun": true}`, `unknown key "dryrun" (did you mean "dry_run"?)`},
		{"remove_dangling_deletes", `{"timeout_ms": -5}`, "timeout"},
		{"rewrite_data_files", `{"token": "a\u0000b"}`, "NUL"},
		{"compute_statistics", `{"columns": [`, "not valid JSON"},
	} {
		_, err := parseMaintain(c.action, []byte(c.in))
		if err == nil || classify(err, statusInternal) != statusInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v; want INVALID_ARGUMENT saying %q", c.action, c.in, err, c.want)
		}
	}
	req, err := parseMaintain("rewrite_manifests", []byte(`{"timeout_ms": 1500}`))
	if err != nil || req.timeout == nil || *req.timeout != 1500*time.Millisecond {
		t.Errorf("timeout_ms: %+v, %v", req, err)
	}
}

// maintainTable is a v2 table floe wrote: four appends of five rows
// each, a merge-on-read delete of one row of the first file, then a
// copy-on-write delete of the rest of that file (which drops it and
// leaves the position delete dangling).
func maintainTable(t *testing.T, props map[string]string) (*tableHandle, string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	files, err := table.Options{}.FileIO(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Create(ctx, files, dir, catalogtest.IDSchema, nil, nil, props, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		var rows [][]any
		for j := range 5 {
			rows = append(rows, []any{int64(i*5 + j), "w" + string(rune('a'+j))})
		}
		if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	del := func(filter string, mode ops.DeleteMode) {
		f, err := expr.ParseFilter(filter)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ops.DeleteRows(ctx, tbl, f, ops.RowOptions{Mode: mode}); err != nil {
			t.Fatal(err)
		}
	}
	del("id = 2", ops.MergeOnRead)
	del("id < 5", ops.CopyOnWrite)
	return &tableHandle{table: tbl}, dir
}

func maintainCall(t *testing.T, th *tableHandle, action, options string) (map[string]any, []map[string]any) {
	t.Helper()
	req, err := parseMaintain(action, []byte(options))
	if err != nil {
		t.Fatal(err)
	}
	var progress []map[string]any
	out, err := runMaintain(th, req, func(data []byte) {
		var p map[string]any
		if err := json.Unmarshal(data, &p); err != nil {
			t.Errorf("progress %s: %v", data, err)
		}
		progress = append(progress, p)
	})
	if err != nil {
		t.Fatalf("%s %s: %v", action, options, err)
	}
	var res map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return res, progress
}

// num is a JSON number of a result (ids need all 64 bits).
func num(v any) int64 {
	n, _ := v.(json.Number).Int64()
	return n
}

func liveRows(t *testing.T, dir string) [][]any {
	t.Helper()
	tbl := reopenDir(t, dir)
	return txRows(t, tbl)
}

// Each action through floe_table_maintain's Go side on a table floe
// wrote: the dangling delete is removed, manifests regrouped, small files
// compacted with progress per group, statistics registered, and an old
// stray file found by a dry run and then deleted; the rows never change.
func TestMaintainActions(t *testing.T) {
	th, dir := maintainTable(t, nil)
	want := liveRows(t, dir)
	if len(want) != 15 {
		t.Fatalf("%d rows before", len(want))
	}

	res, progress := maintainCall(t, th, "remove_dangling_deletes", "")
	removed, _ := res["removed_delete_files"].([]any)
	if res["committed"] != true || len(removed) != 1 || !strings.HasSuffix(removed[0].(string), ".parquet") || len(progress) != 1 {
		t.Fatalf("dangling: %v, progress %v", res, progress)
	}
	if num(res["snapshot_id"]) != *th.current().Metadata.CurrentSnapshotID {
		t.Errorf("dangling: snapshot %v, the handle holds %d", res["snapshot_id"], *th.current().Metadata.CurrentSnapshotID)
	}
	if again, _ := maintainCall(t, th, "remove_dangling_deletes", ""); again["committed"] != false || len(again["removed_delete_files"].([]any)) != 0 {
		t.Errorf("dangling again: %v", again)
	}

	res, _ = maintainCall(t, th, "rewrite_manifests", `{"properties": {"job": "m"}}`)
	if res["committed"] != true || num(res["added_manifests_count"]) < 1 || num(res["rewritten_manifests_count"]) < 2 {
		t.Fatalf("rewrite manifests: %v", res)
	}
	if s := th.current().Metadata.CurrentSnapshot(); s.Summary["job"] != "m" || s.Summary["operation"] != "replace" {
		t.Errorf("rewrite manifests snapshot summary %v", s.Summary)
	}

	res, progress = maintainCall(t, th, "rewrite_data_files", `{"min_input_files": 2, "filter": "id >= 0"}`)
	if num(res["rewritten_data_files_count"]) != 3 || num(res["added_data_files_count"]) != 1 || len(res["snapshot_ids"].([]any)) != 1 {
		t.Fatalf("compaction: %v", res)
	}
	if len(progress) != 1 || progress[0]["action"] != "rewrite_data_files" || progress[0]["done"] != 1.0 || progress[0]["group"] == nil {
		t.Errorf("compaction progress %v", progress)
	}

	res, _ = maintainCall(t, th, "compute_statistics", `{"columns": ["id", "writer"]}`)
	ndv, _ := res["ndv"].(map[string]any)
	if num(ndv["id"]) != 15 || num(ndv["writer"]) != 5 || num(res["snapshot_id"]) != *th.current().Metadata.CurrentSnapshotID {
		t.Fatalf("statistics: %v", res)
	}
	if _, err := os.Stat(res["statistics_path"].(string)); err != nil {
		t.Errorf("statistics file: %v", err)
	}
	if st := reopenDir(t, dir).Metadata.Statistics; len(st) != 1 || st[0].StatisticsPath != res["statistics_path"] {
		t.Errorf("metadata statistics %v", st)
	}

	stray := filepath.Join(dir, "data", "stray.parquet")
	if err := os.WriteFile(stray, []byte("left by a killed writer"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-96 * time.Hour)
	if err := os.Chtimes(stray, old, old); err != nil {
		t.Fatal(err)
	}
	res, progress = maintainCall(t, th, "remove_orphan_files", `{"dry_run": true}`)
	orphans, _ := res["orphan_files"].([]any)
	if res["dry_run"] != true || len(orphans) != 1 || !strings.HasSuffix(orphans[0].(string), "stray.parquet") || len(progress) != 1 {
		t.Fatalf("dry run: %v", res)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatal("the dry run deleted the stray file")
	}
	// The compacted-away files stay: older snapshots reference them.
	cutoff := time.Now().Add(-48 * time.Hour).UnixMilli()
	res, _ = maintainCall(t, th, "remove_orphan_files", `{"older_than_ms": `+strconvI(cutoff)+`}`)
	if num(res["deleted_files_count"]) != 1 || num(res["listed_files_count"]) != num(res["referenced_files_count"])+1 {
		t.Fatalf("orphans: %v", res)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("stray file: %v", err)
	}
	rowstest.CompareRows(t, "after maintenance", catalogtest.IDSchema, want, liveRows(t, dir))
}

// A commit through the C API (floe_table_transaction's Go side) on a
// table with write.statistics.on-commit=true leaves the new snapshot with
// a statistics file counting the appended rows; without the property
// none is written.
func TestStatisticsOnCommit(t *testing.T) {
	for _, on := range []bool{true, false} {
		props := map[string]string{}
		if on {
			props[maintain.PropStatisticsOnCommit] = "true"
		}
		th, dir := maintainTable(t, props)
		files := writeTxFiles(t, th.current(), [][]any{{int64(100), "x"}, {int64(101), "x"}})
		if _, _, err := tableTransaction(th, []byte(`[{"action": "append-files", "files": "`+files+`"}]`), nil); err != nil {
			t.Fatal(err)
		}
		md := reopenDir(t, dir).Metadata
		var found bool
		for _, f := range md.Statistics {
			found = found || f.SnapshotID == *md.CurrentSnapshotID
		}
		if found != on {
			t.Fatalf("on-commit %v: statistics of the append's snapshot: %v (%v)", on, found, md.Statistics)
		}
		if on {
			res, _ := maintainCall(t, th, "compute_statistics", `{"columns": ["id"]}`)
			if num(res["ndv"].(map[string]any)["id"]) != 17 {
				t.Errorf("ndv after the append %v", res)
			}
		}
	}
}
