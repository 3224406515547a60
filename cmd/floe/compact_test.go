package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// floe compact on a table of six one-append files: --dry-run shows one
// group and changes nothing, the compaction leaves one file with the same
// rows and prints the result; a second run with the token does nothing.
func TestCompactCommand(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	for i := range 6 {
		p := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("{\"k\": %d, \"v\": \"r%d\"}\n{\"k\": %d, \"v\": \"s%d\"}\n", 2*i, i, 2*i+1, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "append", loc, p)
	}
	rows := func() string {
		var got []string
		for _, r := range scanRows(t, loc) {
			got = append(got, fmt.Sprint(r["k"], "=", r["v"]))
		}
		sort.Strings(got)
		return strings.Join(got, ",")
	}
	before := rows()

	var plan compactOutput
	if err := json.Unmarshal([]byte(mustRun(t, "compact", loc, "--dry-run")), &plan); err != nil {
		t.Fatal(err)
	}
	if !plan.DryRun || len(plan.Groups) != 1 || plan.Groups[0].InputFiles != 6 || len(plan.SnapshotIDs) != 0 {
		t.Fatalf("dry run: %+v", plan)
	}
	var res compactOutput
	if err := json.Unmarshal([]byte(mustRun(t, "compact", loc, "--token", "c1", "--target-file-size", "64MiB")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Command != "compact" || res.RewrittenDataFiles != 6 || res.AddedDataFiles != 1 || len(res.SnapshotIDs) != 1 {
		t.Fatalf("compact: %+v", res)
	}
	if after := rows(); after != before {
		t.Fatalf("rows %s after compaction, %s before", after, before)
	}
	var again compactOutput
	if err := json.Unmarshal([]byte(mustRun(t, "compact", loc, "--token", "c1", "--rewrite-all")), &again); err != nil {
		t.Fatal(err)
	}
	if !again.TokenFound || again.SnapshotIDs[0] != res.SnapshotIDs[0] {
		t.Fatalf("rerun with the token: %+v", again)
	}
	if status, _, errOut := runCLI(t, "compact", loc, "--strategy", "sort"); status == 0 || !strings.Contains(errOut, "sort order") {
		t.Fatalf("--strategy sort on an unsorted table: status %d, %q", status, errOut)
	}
	if status, _, errOut := runCLI(t, "compact", loc, "--min-input-files", "0"); status == 0 || !strings.Contains(errOut, "min-input-files") {
		t.Fatalf("--min-input-files 0: status %d, %q", status, errOut)
	}
}
