package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/table"
)

// maintenanceOutput decodes a maintenance command's JSON line, numbers
// kept whole (snapshot ids need all 64 bits).
func maintenanceOutput(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return m
}

// A table of four appends (JSONL through floe append), a merge-on-read
// delete of one row of the first file and a copy-on-write delete of the
// rest of it, which leaves that position delete dangling.
func maintenanceTable(t *testing.T) (dir, loc string) {
	t.Helper()
	dir = t.TempDir()
	loc = filepath.Join(dir, "t")
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i))
		var b bytes.Buffer
		for j := range 3 {
			fmt.Fprintf(&b, "{\"k\": %d, \"v\": \"v%d\"}\n", 3*i+j, j)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "append", loc, p)
	}
	mustRun(t, "delete", loc, "k = 1", "--mode", "merge-on-read")
	mustRun(t, "delete", loc, "k < 3", "--mode", "copy-on-write")
	return dir, loc
}

// floe rewrite-deletes, rewrite-manifests, stats and remove-orphans on a
// table floe wrote: each prints one JSON object saying what it did, and
// the rows stay.
func TestMaintenanceCommands(t *testing.T) {
	_, loc := maintenanceTable(t)
	rows := func() string {
		var got []string
		for _, r := range scanRows(t, loc) {
			got = append(got, fmt.Sprint(r["k"], "=", r["v"]))
		}
		sort.Strings(got)
		return strings.Join(got, ",")
	}
	before := rows()

	res := maintenanceOutput(t, mustRun(t, "rewrite-deletes", loc, "--property", "job=d"))
	if res["command"] != "rewrite-deletes" || res["committed"] != true || len(res["removed_delete_files"].([]any)) != 1 {
		t.Fatalf("rewrite-deletes: %v", res)
	}
	res = maintenanceOutput(t, mustRun(t, "rewrite-manifests", loc))
	if res["command"] != "rewrite-manifests" || res["committed"] != true || jsonInt(t, res["added_manifests_count"]) < 1 {
		t.Fatalf("rewrite-manifests: %v", res)
	}
	res = maintenanceOutput(t, mustRun(t, "stats", loc, "--columns", "k,v"))
	ndv, _ := res["ndv"].(map[string]any)
	if res["command"] != "stats" || jsonInt(t, ndv["k"]) != 9 || jsonInt(t, ndv["v"]) != 3 {
		t.Fatalf("stats: %v", res)
	}
	tbl, err := table.Open(context.Background(), loc, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := tbl.Metadata.Statistics; len(st) != 1 || st[0].SnapshotID != *tbl.Metadata.CurrentSnapshotID || st[0].StatisticsPath != res["statistics_path"] {
		t.Errorf("statistics in the metadata: %v", st)
	}

	stray := filepath.Join(loc, "data", "leftover.parquet")
	if err := os.WriteFile(stray, []byte("a killed writer's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-4 * 24 * time.Hour)
	if err := os.Chtimes(stray, old, old); err != nil {
		t.Fatal(err)
	}
	res = maintenanceOutput(t, mustRun(t, "remove-orphans", loc, "--dry-run"))
	if orphans := res["orphan_files"].([]any); res["dry_run"] != true || len(orphans) != 1 || !strings.HasSuffix(orphans[0].(string), "leftover.parquet") {
		t.Fatalf("remove-orphans --dry-run: %v", res)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatal("the dry run deleted the file")
	}
	// A fresh unreferenced file (a write in flight) is kept.
	fresh := filepath.Join(loc, "data", "in-flight.parquet")
	if err := os.WriteFile(fresh, []byte("being written"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, line, errOut := runCLI(t, "remove-orphans", loc, "--older-than", "3d", "--progress")
	if status != 0 || !strings.Contains(errOut, "remove-orphans") {
		t.Fatalf("remove-orphans --progress: status %d, stderr %q", status, errOut)
	}
	res = maintenanceOutput(t, line)
	if jsonInt(t, res["deleted_files_count"]) != 1 || jsonInt(t, res["too_new_files_count"]) != 1 {
		t.Fatalf("remove-orphans: %v", res)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("leftover: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("in-flight file: %v", err)
	}
	if status, _, errOut := runCLI(t, "remove-orphans", loc, "--older-than", "10m"); status == 0 || !strings.Contains(errOut, "force") {
		t.Errorf("--older-than 10m without --force: status %d, %q", status, errOut)
	}
	if after := rows(); after != before {
		t.Errorf("rows %s after maintenance, %s before", after, before)
	}
}

// On a table with write.statistics.on-commit=true, floe append, delete
// and upsert leave the snapshot they commit with its statistics file.
func TestStatisticsOnCommitCommands(t *testing.T) {
	dir, loc := maintenanceTable(t)
	mustRun(t, "alter", loc, "set-property", "write.statistics.on-commit=true")
	current := func() (*table.Table, bool) {
		tbl, err := table.Open(context.Background(), loc, table.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tbl.Metadata.Statistics {
			if f.SnapshotID == *tbl.Metadata.CurrentSnapshotID {
				return tbl, true
			}
		}
		return tbl, false
	}
	if _, ok := current(); ok {
		t.Fatal("statistics before any commit with the property")
	}
	more := filepath.Join(dir, "more.jsonl")
	if err := os.WriteFile(more, []byte("{\"k\": 100, \"v\": \"new\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "append", loc, more)
	if _, ok := current(); !ok {
		t.Fatal("no statistics for the append's snapshot")
	}
	mustRun(t, "delete", loc, "k = 100")
	if _, ok := current(); !ok {
		t.Fatal("no statistics for the delete's snapshot")
	}
	res := maintenanceOutput(t, mustRun(t, "stats", loc, "--columns", "v"))
	if jsonInt(t, res["ndv"].(map[string]any)["v"]) != 3 {
		t.Errorf("ndv of v after the delete: %v", res)
	}
}

// floe inspect TABLE health and floe maintain on a table floe wrote with
// a dangling delete and four small manifests: health names them and
// changes nothing; maintain --dry-run plans the actions; maintain runs
// them (the rows stay) and a second run finds nothing to do.
func TestMaintainCommand(t *testing.T) {
	_, loc := maintenanceTable(t)
	before := scanRows(t, loc)
	health := maintenanceOutput(t, mustRun(t, "inspect", loc, "health", "--skip-orphans"))
	if health["command"] != "inspect health" || jsonInt(t, health["dangling_delete_files"]) != 1 || jsonInt(t, health["mergeable_manifests"]) < 2 || health["orphans_listed"] != false {
		t.Fatalf("health: %v", health)
	}
	dry := maintenanceOutput(t, mustRun(t, "maintain", loc, "--dry-run", "--skip-orphans"))
	actions := func(rep map[string]any) []string {
		var out []string
		for _, a := range rep["actions"].([]any) {
			out = append(out, a.(map[string]any)["action"].(string))
		}
		return out
	}
	if got := strings.Join(actions(dry), ","); dry["dry_run"] != true || !strings.Contains(got, "remove_dangling_deletes") || !strings.Contains(got, "rewrite_manifests") {
		t.Fatalf("maintain --dry-run: %v", dry)
	}
	again := maintenanceOutput(t, mustRun(t, "inspect", loc, "health", "--skip-orphans"))
	if jsonInt(t, again["dangling_delete_files"]) != 1 {
		t.Fatalf("the dry run changed the table: %v", again)
	}
	run := maintenanceOutput(t, mustRun(t, "maintain", loc, "--skip-orphans"))
	if run["dry_run"] != false || strings.Join(actions(run), ",") != strings.Join(actions(dry), ",") {
		t.Fatalf("maintain ran %v, the dry run planned %v", actions(run), actions(dry))
	}
	after := maintenanceOutput(t, mustRun(t, "inspect", loc, "health", "--skip-orphans"))
	if jsonInt(t, after["dangling_delete_files"]) != 0 || jsonInt(t, after["mergeable_manifests"]) != 0 {
		t.Fatalf("health after maintain: %v", after)
	}
	if got := scanRows(t, loc); fmt.Sprint(sortedRowStrings(got)) != fmt.Sprint(sortedRowStrings(before)) {
		t.Fatalf("maintain changed the rows: %v, was %v", got, before)
	}
	if second := maintenanceOutput(t, mustRun(t, "maintain", loc, "--skip-orphans")); len(actions(second)) != 0 {
		t.Fatalf("a second maintain did %v", actions(second))
	}
	if status, _, _ := runCLI(t, "inspect", loc, "files", "--skip-orphans"); status == 0 {
		t.Fatal("--skip-orphans on a metadata table was accepted")
	}
}

func sortedRowStrings(rows []map[string]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r)
	}
	sort.Strings(out)
	return out
}
