package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// floe delete removes exactly the rows its filter is true for (a null j
// is not), in either mode, and says when nothing matched.
func TestDeleteCommand(t *testing.T) {
	for _, mode := range []string{"copy-on-write", "merge-on-read"} {
		dir := t.TempDir()
		in := filepath.Join(dir, "rows.jsonl")
		if err := os.WriteFile(in, []byte("{\"i\": 1, \"j\": 2}\n{\"i\": 2, \"j\": null}\n{\"i\": 3, \"j\": 5}\n{\"i\": 4, \"j\": 1}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		loc := filepath.Join(dir, "t")
		mustRun(t, "append", loc, in)
		out := mustRun(t, "delete", loc, "j >= 2", "--mode", mode)
		if !strings.Contains(out, "deleted 2 rows") {
			t.Errorf("%s: delete said %q", mode, out)
		}
		var ids []string
		for _, r := range scanRows(t, loc) {
			ids = append(ids, r["i"].(interface{ String() string }).String())
		}
		if strings.Join(ids, ",") != "2,4" {
			t.Errorf("%s: rows left %v, want 2,4", mode, ids)
		}
		if out := mustRun(t, "delete", loc, "i > 100"); !strings.Contains(out, "nothing deleted") {
			t.Errorf("%s: a filter matching nothing said %q", mode, out)
		}
		if status, _, errOut := runCLI(t, "delete", loc, "nope = 1"); status == 0 || !strings.Contains(errOut, "nope") {
			t.Errorf("%s: a filter on a missing column gave status %d, %q", mode, status, errOut)
		}
		if status, _, _ := runCLI(t, "delete", loc, "i = 1", "--mode", "sideways"); status == 0 {
			t.Errorf("%s: a bad mode was accepted", mode)
		}
	}
}
