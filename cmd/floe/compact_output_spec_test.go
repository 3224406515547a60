package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// floe compact --output-spec-id reaches the compaction: a spec the table
// lacks is refused naming it, its one spec (0) compacts as usual; a bad
// value is refused by the flag.
func TestCompactOutputSpecID(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("{\"k\": %d}\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "append", loc, p)
	}
	if status, _, errOut := runCLI(t, "compact", loc, "--output-spec-id", "7"); status == 0 || !strings.Contains(errOut, "output spec 7") {
		t.Fatalf("--output-spec-id 7: status %d, %q", status, errOut)
	}
	if status, _, errOut := runCLI(t, "compact", loc, "--output-spec-id", "x"); status == 0 || !strings.Contains(errOut, "--output-spec-id") {
		t.Fatalf("--output-spec-id x: status %d, %q", status, errOut)
	}
	var res compactOutput
	if err := json.Unmarshal([]byte(mustRun(t, "compact", loc, "--output-spec-id", "0", "--min-input-files", "2")), &res); err != nil {
		t.Fatal(err)
	}
	if res.RewrittenDataFiles != 2 || res.AddedDataFiles != 1 {
		t.Fatalf("compact into spec 0: %+v", res)
	}
}
