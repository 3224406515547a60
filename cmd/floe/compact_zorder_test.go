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

// floe compact --strategy zorder --zorder-columns rewrites the files in
// the columns' z-order, rows unchanged, and refuses a column the table
// does not have, naming it.
func TestCompactZOrderCommand(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	for i := range 6 {
		p := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("{\"k\": %d, \"v\": \"r%d\"}\n{\"k\": %d, \"v\": \"s%d\"}\n", 11-2*i, i, 2*i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "append", loc, p)
	}
	rows := func() []string {
		var got []string
		for _, r := range scanRows(t, loc) {
			got = append(got, fmt.Sprint(r["k"], "=", r["v"]))
		}
		return got
	}
	before := rows()
	sort.Strings(before)
	if status, _, errOut := runCLI(t, "compact", loc, "--strategy", "zorder", "--zorder-columns", "k,nope"); status == 0 || !strings.Contains(errOut, `"nope"`) {
		t.Fatalf("unknown zorder column: status %d, %q", status, errOut)
	}
	var res compactOutput
	if err := json.Unmarshal([]byte(mustRun(t, "compact", loc, "--strategy", "zorder", "--zorder-columns", "k,v")), &res); err != nil {
		t.Fatal(err)
	}
	if res.RewrittenDataFiles != 6 || res.AddedDataFiles != 1 {
		t.Fatalf("compact: %+v", res)
	}
	after := rows()
	// One file, read in its order. The keys differ in k's low bits only
	// and in v's first bytes, which interleave above them: the rows come
	// out by v (appended, they alternate r and s).
	if !sort.SliceIsSorted(after, func(i, j int) bool { return valueOf(after[i]) < valueOf(after[j]) }) {
		t.Fatalf("rows not in z-order: %v", after)
	}
	sort.Strings(after)
	if strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatalf("rows %v after, %v before", after, before)
	}
}

func valueOf(row string) string {
	_, v, _ := strings.Cut(row, "=")
	return v
}
