package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// floe upsert replaces the rows whose --on key the file holds, inserts
// the others, skips the unchanged one, and prints one JSON object; a key
// given twice is refused with nothing committed.
func TestUpsertCommand(t *testing.T) {
	for _, mode := range []string{"", "copy-on-write", "equality-deletes"} {
		dir := t.TempDir()
		write := func(name, text string) string {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		base := write("base.jsonl", "{\"k\": 1, \"v\": \"a\"}\n{\"k\": 2, \"v\": \"b\"}\n{\"k\": 3, \"v\": \"c\"}\n")
		loc := filepath.Join(dir, "t")
		mustRun(t, "append", loc, base)
		changes := write("changes.jsonl", "{\"k\": 2, \"v\": \"B\"}\n{\"k\": 3, \"v\": \"c\"}\n{\"k\": 4, \"v\": \"d\"}\n")
		args := []string{"upsert", loc, changes, "--on", "k"}
		if mode != "" {
			args = append(args, "--mode", mode)
		}
		out := mustRun(t, args...)
		var res upsertOutput
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: output %q: %v", mode, out, err)
		}
		if res.Command != "upsert" || !res.Committed || res.RowsUpdated != 1 || res.RowsInserted != 1 || res.RowsDeleted != 1 {
			t.Errorf("%s: result %+v", mode, res)
		}
		var got []string
		for _, r := range scanRows(t, loc) {
			got = append(got, r["k"].(interface{ String() string }).String()+"="+r["v"].(string))
		}
		sort.Strings(got)
		if strings.Join(got, ",") != "1=a,2=B,3=c,4=d" {
			t.Errorf("%s: rows %v", mode, got)
		}
		dup := write("dup.jsonl", "{\"k\": 5, \"v\": \"x\"}\n{\"k\": 5, \"v\": \"y\"}\n")
		if status, _, errOut := runCLI(t, "upsert", loc, dup, "--on", "k"); status == 0 || !strings.Contains(errOut, "same key") {
			t.Errorf("%s: duplicate keys gave status %d, %q", mode, status, errOut)
		}
		if status, _, errOut := runCLI(t, "upsert", loc, changes); status == 0 || !strings.Contains(errOut, "identifier") {
			t.Errorf("%s: no key gave status %d, %q", mode, status, errOut)
		}
	}
}
