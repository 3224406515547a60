package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// scan --changelog reads every row change: on a table floe wrote with two
// appends, a copy-on-write delete and a merge-on-read (position) delete, the inserts
// of each append and the deleted rows of each delete (the rows the
// copy-on-write rewrite carried over are no change), each with its
// snapshot's ordinal and id; --from-snapshot/--to-snapshot bound it and
// --columns, --filter, --limit and --format apply as for any scan.
func TestScanChangelog(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	for i, rows := range []string{"{\"i\": 1, \"s\": \"a\"}\n{\"i\": 2, \"s\": \"b\"}\n{\"i\": 3, \"s\": \"c\"}\n{\"i\": 4, \"s\": \"d\"}\n", "{\"i\": 5, \"s\": \"e\"}\n{\"i\": 6, \"s\": \"f\"}\n"} {
		in := filepath.Join(dir, fmt.Sprintf("rows%d.jsonl", i))
		if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "append", loc, in)
	}
	mustRun(t, "delete", loc, "i = 2", "--mode", "copy-on-write")
	mustRun(t, "delete", loc, "i = 5", "--mode", "merge-on-read")
	_, md := openMetadata(t, loc)
	if len(md.Snapshots) != 4 {
		t.Fatalf("%d snapshots, want 4", len(md.Snapshots))
	}
	var ids []string
	for _, s := range md.Snapshots {
		ids = append(ids, fmt.Sprint(s.SnapshotID))
	}
	changes := func(args ...string) []string {
		t.Helper()
		var out []string
		for _, r := range scanRows(t, append([]string{loc, "--changelog"}, args...)...) {
			out = append(out, strings.TrimSpace(fmt.Sprintln(r["i"], r["s"], r["_change_type"], r["_change_ordinal"], r["_commit_snapshot_id"])))
		}
		slices.Sort(out)
		return out
	}
	want := []string{
		"1 a INSERT 0 " + ids[0], "2 b DELETE 2 " + ids[2], "2 b INSERT 0 " + ids[0], "3 c INSERT 0 " + ids[0], "4 d INSERT 0 " + ids[0],
		"5 e DELETE 3 " + ids[3], "5 e INSERT 1 " + ids[1], "6 f INSERT 1 " + ids[1],
	}
	if got := changes(); !slices.Equal(got, want) {
		t.Errorf("whole changelog:\n got %q\nwant %q", got, want)
	}
	// After the second append: the deletes, ordinals from 0; the filter
	// keeps rows above 2 (so the copy-on-write delete has no change left:
	// the rows it carried over match on both sides) and --columns only
	// the two named.
	if got := changes("--from-snapshot", ids[1], "--columns", "i,_change_ordinal", "--filter", "i > 2"); !slices.Equal(got, []string{"5 <nil> <nil> 1 <nil>"}) {
		t.Errorf("after the second append, i > 2: %q", got)
	}
	if got := changes("--from-snapshot", ids[0], "--to-snapshot", ids[2]); !slices.Equal(got, []string{"2 b DELETE 1 " + ids[2], "5 e INSERT 0 " + ids[1], "6 f INSERT 0 " + ids[1]}) {
		t.Errorf("from the first append to the copy-on-write delete: %q", got)
	}
	if got := changes("--limit", "2"); len(got) != 2 {
		t.Errorf("--limit 2: %q", got)
	}
	csv := mustRun(t, "scan", loc, "--changelog", "--from-snapshot", ids[2], "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 2 || lines[0] != "i,s,_change_type,_change_ordinal,_commit_snapshot_id" || !strings.HasSuffix(lines[1], ",DELETE,0,"+ids[3]) {
		t.Errorf("csv: %q", csv)
	}
	for _, bad := range [][]string{{"--from-snapshot", "42"}, {"--from-snapshot", ids[2], "--to-snapshot", ids[1]}, {"--columns", "nope"}, {"--stats"}} {
		status, _, errOut := runCLI(t, append([]string{"scan", loc, "--changelog"}, bad...)...)
		if status == 0 || !strings.Contains(errOut, strings.TrimPrefix(bad[len(bad)-1], "--")) {
			t.Errorf("%v: status %d, %q; want a refusal naming %s", bad, status, errOut, bad[len(bad)-1])
		}
	}
}
