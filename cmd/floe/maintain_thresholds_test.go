package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// floe maintain --min-equality-delete-files and --min-position-delete-
// files reach the planner: on a table with an equality delete file and
// two position delete files, the defaults (1 and 5) plan the conversion
// and not the merge; -1 and 2 plan the merge and not the conversion. A
// threshold that is not a number is refused.
func TestMaintainDeleteThresholds(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i))
		if err := os.WriteFile(p, fmt.Appendf(nil, "{\"k\": %d, \"v\": \"a\"}\n{\"k\": %d, \"v\": \"b\"}\n", 2*i, 2*i+1), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "append", loc, p)
	}
	mustRun(t, "delete", loc, "k = 0", "--mode", "merge-on-read")
	mustRun(t, "delete", loc, "k = 2", "--mode", "merge-on-read")
	up := filepath.Join(dir, "up.jsonl")
	if err := os.WriteFile(up, []byte("{\"k\": 5, \"v\": \"new\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "upsert", loc, up, "--on", "k", "--mode", "equality-deletes")

	planned := func(extra ...string) []string {
		rep := maintenanceOutput(t, mustRun(t, append([]string{"maintain", loc, "--dry-run", "--skip-orphans"}, extra...)...))
		var out []string
		for _, a := range rep["actions"].([]any) {
			out = append(out, a.(map[string]any)["action"].(string))
		}
		return out
	}
	got := planned()
	if !slices.Contains(got, "convert_equality_deletes") || slices.Contains(got, "rewrite_position_deletes") {
		t.Fatalf("default thresholds planned %v", got)
	}
	got = planned("--min-equality-delete-files", "-1", "--min-position-delete-files=2")
	if slices.Contains(got, "convert_equality_deletes") || !slices.Contains(got, "rewrite_position_deletes") {
		t.Fatalf("--min-equality-delete-files -1 --min-position-delete-files 2 planned %v", got)
	}
	if status, _, errOut := runCLI(t, "maintain", loc, "--dry-run", "--min-position-delete-files", "many"); status != 1 || errOut == "" {
		t.Errorf("--min-position-delete-files many: status %d, %q", status, errOut)
	}
}
