package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metadataFiles are the names of a table's metadata files: what a refused
// append must leave as it was.
func metadataFiles(t *testing.T, loc string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(loc, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A key the table does not have is refused, naming it and the closest
// column, and nothing is committed or left behind (it used to be dropped:
// the row was stored with a null name).
func TestAppendJSONLRefusesUnknownKeys(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	first := filepath.Join(dir, "first.jsonl")
	writeTestFile(t, first, `{"id": 1, "name": "a", "info": {"city": "x"}}`+"\n")
	mustRun(t, "append", loc, first)
	meta, files := metadataFiles(t, loc), countParquet(t, loc)
	for _, c := range []struct{ rows, column, closest string }{
		{`{"id": 2, "name": "b"}` + "\n" + `{"id": 3, "nmae": "typo"}`, `"nmae"`, `did you mean "name"`},
		{`{"id": 2, "info": {"citty": "y"}}`, `"info.citty"`, `did you mean "info.city"`},
	} {
		in := filepath.Join(dir, "typo.jsonl")
		writeTestFile(t, in, c.rows+"\n")
		status, _, errOut := runCLI(t, "append", loc, in)
		if status == 0 || !strings.Contains(errOut, c.column) || !strings.Contains(errOut, c.closest) {
			t.Errorf("%s: status %d: %s", c.rows, status, errOut)
		}
		if got := metadataFiles(t, loc); strings.Join(got, ",") != strings.Join(meta, ",") {
			t.Errorf("%s: a refused append changed the metadata: %v, was %v", c.rows, got, meta)
		}
		if n := countParquet(t, loc); n != files {
			t.Errorf("%s: %d data files after a refused append, was %d", c.rows, n, files)
		}
	}
}

// A value that does not fit its column is refused naming the line, the
// column and the value (not arrow-go's "cannot unmarshal three into Go
// value of type int64").
func TestAppendJSONLErrorNamesLineAndColumn(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	first := filepath.Join(dir, "first.jsonl")
	writeTestFile(t, first, `{"id": 1, "name": "a"}`+"\n")
	mustRun(t, "append", loc, first)
	bad := filepath.Join(dir, "bad.jsonl")
	writeTestFile(t, bad, `{"id": 1}`+"\n"+`{"id": 2}`+"\n"+`{"id": "three"}`+"\n")
	status, _, errOut := runCLI(t, "append", loc, bad)
	if want := `bad.jsonl: line 3, column "id": "three" is not a long`; status == 0 || !strings.Contains(errOut, want) {
		t.Errorf("status %d: %q, want it to say %q", status, errOut, want)
	}
}

// A table created from JSON lines has its columns in the order they first
// appear, not sorted.
func TestCreateFromJSONLKeepsKeyOrder(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	in := filepath.Join(dir, "rows.jsonl")
	writeTestFile(t, in, `{"zeta": 1, "alpha": {"y": 1, "b": 2}, "mid": true}`+"\n"+`{"mid": false, "new": "x"}`+"\n")
	mustRun(t, "append", loc, in)
	info := mustRun(t, "info", loc)
	order := []string{"zeta optional long", "alpha optional struct", "y optional long", "b optional long", "mid optional boolean", "new optional string"}
	at := -1
	for _, want := range order {
		i := strings.Index(info, want)
		if i < 0 || i < at {
			t.Fatalf("columns not in first-seen order %v:\n%s", order, info)
		}
		at = i
	}
}

// --evolve adds the input's new columns (by name, at any depth) before
// appending; without it they are refused.
func TestAppendEvolveAddsColumns(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	first := filepath.Join(dir, "first.jsonl")
	writeTestFile(t, first, `{"id": 1, "info": {"city": "x"}}`+"\n")
	mustRun(t, "append", loc, first)
	more := filepath.Join(dir, "more.jsonl")
	writeTestFile(t, more, `{"id": 2, "info": {"city": "y", "zip": "123"}, "score": 2.5}`+"\n")
	if status, _, _ := runCLI(t, "append", loc, more); status == 0 {
		t.Fatal("new columns were added without --evolve")
	}
	mustRun(t, "append", loc, more, "--evolve")
	rows := scanRows(t, loc)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		info, _ := r["info"].(map[string]any)
		switch r["id"].(interface{ String() string }).String() {
		case "1":
			if r["score"] != nil || info["zip"] != nil || info["city"] != "x" {
				t.Errorf("row 1: %v", r)
			}
		case "2":
			if r["score"] == nil || info["zip"] != "123" || info["city"] != "y" {
				t.Errorf("row 2: %v", r)
			}
		}
	}
}

// A retried append --evolve whose token is already committed commits
// nothing, a schema change included.
func TestAppendEvolveRetryWithCommittedTokenChangesNothing(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	first := filepath.Join(dir, "first.jsonl")
	writeTestFile(t, first, `{"id": 1}`+"\n")
	mustRun(t, "append", loc, first, "--token", "step-1")
	meta := metadataFiles(t, loc)
	retry := filepath.Join(dir, "retry.jsonl")
	writeTestFile(t, retry, `{"id": 1, "extra": "x"}`+"\n")
	mustRun(t, "append", loc, retry, "--token", "step-1", "--evolve")
	if after := metadataFiles(t, loc); len(after) != len(meta) {
		t.Fatalf("a retry of a committed token wrote metadata: %v, was %v", after, meta)
	}
	if rows := scanRows(t, loc); len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("rows after the retry: %v", rows)
	}
}

// A Parquet file another table wrote (its "nmae" has field id 2, which is
// this table's "name") is bound by name: nmae is refused naming the
// closest column; with --evolve it becomes a new column and name stays
// null.
func TestAppendParquetFromAnotherTableBindsByName(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	rows := filepath.Join(dir, "rows.jsonl")
	writeTestFile(t, rows, `{"id": 7, "nmae": "typo"}`+"\n")
	mustRun(t, "append", src, rows)
	file := filepath.Join(dir, "src.parquet")
	mustRun(t, "scan", src, "--output", file)
	writeTestFile(t, rows, `{"id": 1, "name": "a"}`+"\n")
	mustRun(t, "append", dst, rows)
	meta := metadataFiles(t, dst)
	status, _, errOut := runCLI(t, "append", dst, file)
	if status == 0 || !strings.Contains(errOut, `"nmae"`) || !strings.Contains(errOut, `did you mean "name"`) {
		t.Fatalf("status %d: %s", status, errOut)
	}
	if got := metadataFiles(t, dst); strings.Join(got, ",") != strings.Join(meta, ",") {
		t.Errorf("a refused append changed the metadata: %v", got)
	}
	mustRun(t, "append", dst, file, "--evolve")
	got := scanRows(t, dst)
	if len(got) != 2 {
		t.Fatalf("%d rows after --evolve: %v", len(got), got)
	}
	for _, r := range got {
		if id := r["id"].(interface{ String() string }).String(); id == "7" && (r["name"] != nil || r["nmae"] != "typo") {
			t.Errorf("appended row: %v", r)
		}
	}
}
