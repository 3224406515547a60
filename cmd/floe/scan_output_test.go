package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

// scan --output writes the rows to a file in the format its extension
// names: Parquet that arrow-go's reader reads back with the source's rows
// and l_orderkey sum, CSV with a header and a line per row, JSON lines;
// an unknown extension or a disagreeing --format is refused and leaves no
// file.
func TestScanOutputFile(t *testing.T) {
	fx, _ := fixtures.Get("duckdb_lineitem_iceberg")
	dir := t.TempDir()
	// What the table holds (deletes applied), through the CLI's JSON lines.
	var wantRows, wantSum int64
	for _, row := range scanRows(t, append([]string{fx.Dir, "--columns", "l_orderkey"}, mapArgs(fx)...)...) {
		n, err := row["l_orderkey"].(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		wantRows, wantSum = wantRows+1, wantSum+n
	}
	if wantRows != 51793 {
		t.Fatalf("the table holds %d rows, INDEX.md says 51793", wantRows)
	}
	scanTo := func(path string, extra ...string) (int, string) {
		args := append(append([]string{"scan", fx.Dir, "--columns", "l_orderkey,l_comment", "--output", path}, mapArgs(fx)...), extra...)
		status, out, errOut := runCLI(t, args...)
		if out != "" {
			t.Errorf("%s: stdout holds %d bytes; the rows belong in the file", path, len(out))
		}
		return status, errOut
	}

	pq := filepath.Join(dir, "rows.parquet")
	if status, errOut := scanTo(pq); status != 0 {
		t.Fatalf("parquet: status %d: %s", status, errOut)
	}
	if rows, sum := parquetOrderKeys(t, pq); rows != wantRows || sum != wantSum {
		t.Errorf("parquet: %d rows, sum %d; the table holds %d rows, sum %d", rows, sum, wantRows, wantSum)
	}
	// An ordinary file's mode, not the temporary file's 0600: with umask
	// 022, rw-r--r--.
	if st, err := os.Stat(pq); err != nil || st.Mode().Perm() != os.FileMode(0o666&^umask()) {
		t.Errorf("parquet: mode %v (%v), umask %o", st.Mode().Perm(), err, umask())
	}

	csvPath := filepath.Join(dir, "rows.csv")
	if status, errOut := scanTo(csvPath); status != 0 {
		t.Fatalf("csv: status %d: %s", status, errOut)
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "l_orderkey,l_comment\n") {
		t.Errorf("csv header: %q", strings.SplitN(string(data), "\n", 2)[0])
	}

	jl := filepath.Join(dir, "rows.jsonl")
	if status, errOut := scanTo(jl, "--limit", "5"); status != 0 {
		t.Fatalf("jsonl: status %d: %s", status, errOut)
	}
	if data, _ := os.ReadFile(jl); strings.Count(string(data), "\n") != 5 || !strings.HasPrefix(string(data), `{"l_orderkey":`) {
		t.Errorf("jsonl: %q", data)
	}

	for _, c := range []struct {
		path  string
		extra []string
	}{{filepath.Join(dir, "rows.xlsx"), nil}, {filepath.Join(dir, "other.parquet"), []string{"--format", "csv"}}} {
		if status, errOut := scanTo(c.path, c.extra...); status == 0 || !strings.Contains(errOut, "--output") && !strings.Contains(errOut, "extension") {
			t.Errorf("%s %v: status %d, %q", c.path, c.extra, status, errOut)
		}
		if _, err := os.Stat(c.path); !os.IsNotExist(err) {
			t.Errorf("%s exists after a refused scan", c.path)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	// A scan that fails part way (an unknown column) leaves no file either.
	bad := filepath.Join(dir, "bad.parquet")
	status, _, errOut := runCLI(t, append([]string{"scan", fx.Dir, "--columns", "l_ordrkey", "--output", bad}, mapArgs(fx)...)...)
	if status == 0 || !strings.Contains(errOut, `did you mean "l_orderkey"`) {
		t.Errorf("misspelt column: status %d, %q", status, errOut)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed scan", bad)
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"268435456": 256 << 20, "256MiB": 256 << 20, "1GiB": 1 << 30, "64 MB": 64 << 20, "512K": 512 << 10} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-5", "1.5GiB", "99999999999999999999GiB"} {
		if _, err := parseByteSize(bad); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
	// The scan takes it, and refuses one below the floor.
	fx, _ := fixtures.Get("duckdb_lineitem_iceberg")
	args := append([]string{"scan", fx.Dir, "--columns", "l_orderkey", "--memory-limit", "32MiB"}, mapArgs(fx)...)
	if status, out, errOut := runCLI(t, args...); status != 0 || strings.Count(out, "\n") != 51793 {
		t.Fatalf("scan under a memory limit: status %d, %d lines: %s", status, strings.Count(out, "\n"), errOut)
	}
	if status, _, errOut := runCLI(t, append(args, "--memory-limit", "1MiB")...); status == 0 || !strings.Contains(errOut, "memory_limit") {
		t.Fatalf("a 1 MiB limit: status %d: %s", status, errOut)
	}
}
