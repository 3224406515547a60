package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// floe rewrite-deletes --position merges the position delete files of
// three merge-on-read deletes into one; --convert-equality has no
// equality delete to convert and commits nothing; both flags at once are
// refused. The rows stay.
func TestRewriteDeletesPosition(t *testing.T) {
	_, loc := maintenanceTable(t)
	for _, k := range []string{"k = 4", "k = 7", "k = 10"} {
		mustRun(t, "delete", loc, k, "--mode", "merge-on-read")
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
	res := maintenanceOutput(t, mustRun(t, "rewrite-deletes", loc, "--position"))
	if res["command"] != "rewrite-deletes" || res["committed"] != true || len(res["removed_delete_files"].([]any)) < 3 || len(res["added_delete_files"].([]any)) != 1 {
		t.Fatalf("rewrite-deletes --position: %v", res)
	}
	if after := rows(); after != before {
		t.Fatalf("rows %s, want %s", after, before)
	}
	res = maintenanceOutput(t, mustRun(t, "rewrite-deletes", loc, "--convert-equality"))
	if res["committed"] != false || len(res["removed_delete_files"].([]any)) != 0 {
		t.Fatalf("rewrite-deletes --convert-equality: %v", res)
	}
	if status, _, _ := runCLI(t, "rewrite-deletes", loc, "--position", "--convert-equality"); status == 0 {
		t.Fatal("both flags accepted")
	}
}
