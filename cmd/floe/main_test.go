package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status := run(args, &out, &errOut)
	return status, out.String(), errOut.String()
}

func mapArgs(fx fixtures.Table) []string {
	var args []string
	for prefix, target := range fx.LocationMap {
		args = append(args, "--map", prefix+"="+target)
	}
	return args
}

func TestInfoOnEveryFixture(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range all {
		status, out, errOut := runCLI(t, append([]string{"info", fx.Dir}, mapArgs(fx)...)...)
		if status != 0 {
			t.Errorf("%s: status %d: %s", fx.Name, status, errOut)
			continue
		}
		if !strings.Contains(out, "format version:  ") || !strings.Contains(out, "snapshots (") {
			t.Errorf("%s: info output lacks the format version or snapshots:\n%s", fx.Name, out)
		}
	}
}

func TestInfoShowsLegacyV1SpecAndDefaults(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_partitioned")
	_, out, _ := runCLI(t, append([]string{"info", fx.Dir}, mapArgs(fx)...)...)
	for _, want := range []string{"format version:  1", "event_time_hour = hour(event_time)", "action = identity(action)"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	fx, _ = fixtures.Get("impala_iceberg_v3_all_types")
	_, out, _ = runCLI(t, append([]string{"info", fx.Dir}, mapArgs(fx)...)...)
	if !strings.Contains(out, `col_timestamp optional timestamp  initial-default "1969-12-31T23:59:59.123456"`) {
		t.Errorf("info lacks the pre-1970 timestamp default:\n%s", out)
	}
}

func TestFilesJSONAndSnapshotSelection(t *testing.T) {
	fx, _ := fixtures.Get("duckdb_lineitem_iceberg")
	count := func(args ...string) (int, int64) {
		status, out, errOut := runCLI(t, append(append([]string{"files", fx.Dir, "--json"}, mapArgs(fx)...), args...)...)
		if status != 0 {
			t.Fatalf("files %v: status %d: %s", args, status, errOut)
		}
		var got struct {
			DataFiles []struct {
				RecordCount int64 `json:"record_count"`
			} `json:"data_files"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, f := range got.DataFiles {
			n += f.RecordCount
		}
		return len(got.DataFiles), n
	}
	if files, n := count(); files != 1 || n != 51793 {
		t.Errorf("current: %d files, %d records; want 1 and 51793", files, n)
	}
	if files, n := count("--snapshot", "7817332053627255703"); files != 1 || n != 60175 {
		t.Errorf("first snapshot: %d files, %d records; want 1 and 60175", files, n)
	}
}

func TestErrorsAreOneLineWithNonZeroStatus(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_partitioned")
	cases := [][]string{
		{"info"},
		{"info", "/no/such/table"},
		{"files", fx.Dir, "--no-relocate"}, // no --map: the recorded paths do not exist here
		{"files", fx.Dir, "--no-relocate=yes"},
		{"files", fx.Dir, "--snapshot", "notanumber"},
		{"files", fx.Dir, "--snapshot", "1", "--ref", "main"},
		{"info", fx.Dir, "--map", "nonsense"},
		{"info", fx.Dir, "--bogus"},
		{"nosuchcommand"},
	}
	for _, c := range cases {
		status, _, errOut := runCLI(t, c...)
		if status == 0 {
			t.Errorf("%v: status 0, want an error", c)
		}
		if strings.Contains(errOut, "goroutine ") || strings.Contains(errOut, "panic") {
			t.Errorf("%v: stderr shows a panic:\n%s", c, errOut)
		}
		if strings.TrimSpace(errOut) == "" {
			t.Errorf("%v: no error message", c)
		}
	}
}

func TestScanJSONLinesFollowTheSpecSingleValueForm(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_v3_all_types")
	status, out, errOut := runCLI(t, append([]string{"scan", fx.Dir, "--columns", "id,col_decimal,col_date,col_timestamp,col_binary"}, mapArgs(fx)...)...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	// Row 1 predates the columns: its values are the initial defaults.
	want := `{"id":1,"col_decimal":"123.45","col_date":"2024-01-01","col_timestamp":"1969-12-31T23:59:59.123456","col_binary":"0102030405060708"}`
	if !strings.Contains(out, want+"\n") {
		t.Errorf("output lacks %s:\n%s", want, out)
	}
	fx, _ = fixtures.Get("impala_iceberg_timestamptz_part")
	_, out, _ = runCLI(t, append([]string{"scan", fx.Dir}, mapArgs(fx)...)...)
	if !strings.Contains(out, `{"i":-2,"ts":"1969-01-01T00:00:00.000000+00:00"}`) {
		t.Errorf("timestamptz must carry +00:00:\n%s", out)
	}
	fx, _ = fixtures.Get("duckdb_uuid")
	_, out, _ = runCLI(t, append([]string{"scan", fx.Dir, "--format", "csv"}, mapArgs(fx)...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 11 || lines[0] != "uuid" {
		t.Errorf("csv: want a header and 10 rows, got:\n%s", out)
	}
	fx, _ = fixtures.Get("duckdb_lineitem_iceberg")
	_, out, _ = runCLI(t, append([]string{"scan", fx.Dir, "--columns", "l_orderkey", "--limit", "5", "--format", "table"}, mapArgs(fx)...)...)
	if !strings.HasSuffix(out, "(5 rows)\n") {
		t.Errorf("table: want 5 rows:\n%s", out)
	}
}

func TestScanAppliesDeletionVectors(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_v3_deletion_vectors")
	status, out, errOut := runCLI(t, append([]string{"scan", fx.Dir, "--format", "csv"}, mapArgs(fx)...)...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	// INDEX.md: SELECT * ORDER BY i → 1, 3, 5.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines[1:])
	if strings.Join(lines, ",") != "i,1,3,5" {
		t.Errorf("got %q, want i then 1, 3, 5", lines)
	}
}

// INDEX.md's answers for the fixtures with row-level deletes, through the
// CLI (CSV: strings bare, timestamps ISO).
func TestScanDeleteFixtures(t *testing.T) {
	cases := []struct {
		table string
		args  []string
		want  []string
	}{
		{"impala_iceberg_v2_delete_pos_and_multi_eq_ids", nil, []string{"1,str1,2020-12-01", "333333,str3,2024-01-25", "4,str4,2024-01-26", "5,str5,2024-01-27"}},
		{"impala_iceberg_v2_delete_equality_partitioned", nil, []string{"1,str1,2023-12-24", "1,str1,2023-12-25", "2,str2,2023-12-24", "222,str2,2023-12-25", "333333,str3,2023-12-24", "4,str4,2023-12-24"}},
		{"impala_iceberg_v2_equality_delete_schema_evolution", nil, []string{"1,2024-03-20,str1,", "44,2024-03-21,str4,4444", "5,2024-03-22,str5,"}},
		{"impala_iceberg_v2_equality_delete_schema_evolution", []string{"--snapshot", "3986738438831924669"}, []string{"1,2024-03-20,str1", "4,2024-03-21,str4", "5,2024-03-22,str5"}},
		{"impala_iceberg_v2_partitioned_position_deletes", []string{"--columns", "id,action,_pos"}, []string{
			"10,click,5", "12,click,3", "14,download,2", "16,download,5", "18,click,1", "2,download,0", "20,view,3", "4,view,7", "6,view,0", "8,download,3"}},
		{"impala_iceberg_v2_positional_not_all_data_files_have_delete_files", nil, []string{"1,a", "2,b", "3,c", "4,d", "5,X", "6,f"}},
		{"impala_iceberg_v3_row_lineage", []string{"--columns", "i,_row_id,_last_updated_sequence_number"}, []string{"1,0,1", "2,1,2", "3,2,3"}},
		{"duckdb_equality_deletes/mytable", nil, []string{"4,d,2025-01-04", "5,e,2025-01-05"}},
		{"duckdb_equality_deletes/mytable_partitioned", nil, []string{"1,a,2025-01-01", "4,d,2025-01-04", "5,e,2025-01-05"}},
	}
	for _, c := range cases {
		fx, err := fixtures.Get(c.table)
		if err != nil {
			t.Fatal(err)
		}
		args := append(append([]string{"scan", fx.Dir, "--format", "csv"}, mapArgs(fx)...), c.args...)
		status, out, errOut := runCLI(t, args...)
		if status != 0 {
			t.Errorf("%s: status %d: %s", c.table, status, errOut)
			continue
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")[1:]
		sort.Strings(lines)
		sort.Strings(c.want)
		if strings.Join(lines, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s %v:\ngot  %q\nwant %q", c.table, c.args, lines, c.want)
		}
	}
}

// --stats puts the scan's metrics on stderr as one JSON object and leaves
// stdout the data. INDEX.md (Impala): `where id > 10` → 10 of 20 rows,
// one row per file.
func TestScanStats(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_partitioned")
	args := append([]string{"scan", fx.Dir, "--filter", "id > 10", "--columns", "id", "--format", "csv"}, mapArgs(fx)...)
	status, out, errOut := runCLI(t, append(args, "--stats")...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 11 || lines[0] != "id" {
		t.Fatalf("stdout is not the header and 10 rows:\n%s", out)
	}
	for _, l := range lines[1:] {
		if n, err := strconv.Atoi(l); err != nil || n <= 10 {
			t.Errorf("row %q does not pass id > 10", l)
		}
	}
	if strings.Count(errOut, "\n") != 1 {
		t.Fatalf("stderr is not one line:\n%s", errOut)
	}
	var stats map[string]int64
	if err := json.Unmarshal([]byte(errOut), &stats); err != nil {
		t.Fatalf("stderr is not a JSON object of counters: %v\n%s", err, errOut)
	}
	for _, key := range []string{"manifests_skipped", "files_skipped", "files_planned", "row_groups_read", "row_groups_skipped",
		"pages_skipped", "bytes_read", "bytes_skipped", "rows_filtered", "rows_deleted", "rows_returned"} {
		v, ok := stats[key]
		if !ok || v < 0 {
			t.Errorf("stats lack %q or it is negative: %s", key, errOut)
		}
	}
	if stats["rows_returned"] != 10 || stats["files_skipped"]+stats["files_planned"] != 20 || stats["files_planned"] < 10 || stats["rows_deleted"] != 0 {
		t.Errorf("stats contradict the 10 rows returned from 20 one-row files: %s", errOut)
	}

	_, plain, errOut := runCLI(t, args...)
	if plain != out || errOut != "" {
		t.Errorf("without --stats: stdout differs or stderr is not empty: %q", errOut)
	}
}

// A table copied out of HDFS reads without --map; --no-relocate reads the
// recorded paths, and its error shows the --map that fixes it, which does.
func TestMovedTableReadsWithoutMapAndNoRelocateSuggestsIt(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_partitioned")
	status, out, errOut := runCLI(t, "scan", fx.Dir, "--columns", "id", "--format", "csv")
	if status != 0 {
		t.Fatalf("scan without --map: status %d: %s", status, errOut)
	}
	if rows := strings.Count(out, "\n") - 1; rows != 20 {
		t.Errorf("scan without --map: %d rows, want 20 (INDEX.md)", rows)
	}
	// Commands that commit run on a copy, so the fixture stays as it is.
	copied := filepath.Join(t.TempDir(), "copied")
	if err := os.CopyFS(copied, os.DirFS(fx.Dir)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"files", fx.Dir}, {"scan", fx.Dir}, {"delete", copied, "id = 1"},
	} {
		status, _, errOut = runCLI(t, append(args, "--no-relocate")...)
		want := "table data is recorded under /test-warehouse/iceberg_test/iceberg_partitioned, which does not exist; " +
			"pass --map /test-warehouse/iceberg_test/iceberg_partitioned=" + args[1]
		if status == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%v --no-relocate: status %d, stderr %s; want the error to say %q", args, status, errOut, want)
		}
	}
	// Unrelocated, the copy names its original's files: expiry would
	// delete outside the directory the table was opened from.
	if status, _, errOut = runCLI(t, "expire", copied, "--no-relocate"); status == 0 || !strings.Contains(errOut, "which is not mapped onto it") {
		t.Errorf("expire --no-relocate: status %d: %s; want a refusal", status, errOut)
	}
	if _, _, errOut = runCLI(t, "append", copied, "no.parquet", "--no-relocate"); strings.Contains(errOut, "unknown flag") {
		t.Errorf("append refuses --no-relocate: %s", errOut)
	}
	status, out, errOut = runCLI(t, "files", fx.Dir, "--no-relocate", "--map", "/test-warehouse/iceberg_test/iceberg_partitioned="+fx.Dir)
	if status != 0 || strings.Count(out, ".parquet") < 20 {
		t.Errorf("files with the suggested --map: status %d: %s%s", status, errOut, out)
	}
}

// Committing to a moved table writes its files where the table now is and
// records them in the table's own spelling: the metadata is not rewritten.
func TestAppendToAMovedTableKeepsItsSpelling(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_partitioned")
	copied := filepath.Join(t.TempDir(), "copied")
	if err := os.CopyFS(copied, os.DirFS(fx.Dir)); err != nil {
		t.Fatal(err)
	}
	status, rows, errOut := runCLI(t, "scan", copied)
	if status != 0 {
		t.Fatalf("scan: %s", errOut)
	}
	in := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if status, _, errOut = runCLI(t, "append", copied, in); status != 0 {
		t.Fatalf("append: %s", errOut)
	}
	status, out, errOut := runCLI(t, "files", copied, "--json")
	if status != 0 {
		t.Fatalf("files: %s", errOut)
	}
	var got struct {
		DataFiles []struct {
			Path        string `json:"path"`
			WrittenPath string `json:"written_path"`
		} `json:"data_files"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	const recorded = "/test-warehouse/iceberg_test/iceberg_partitioned/"
	if len(got.DataFiles) <= 20 {
		t.Fatalf("%d data files after the append", len(got.DataFiles))
	}
	for _, f := range got.DataFiles {
		if !strings.HasPrefix(f.WrittenPath, recorded) {
			t.Errorf("data file %s is not recorded under %s", f.WrittenPath, recorded)
		}
		if f.Path != filepath.Join(copied, strings.TrimPrefix(f.WrittenPath, recorded)) {
			t.Errorf("data file %s is read from %s", f.WrittenPath, f.Path)
		}
		if _, err := os.Stat(f.Path); err != nil {
			t.Error(err)
		}
	}
	if _, out, _ = runCLI(t, "scan", copied, "--columns", "id", "--format", "csv"); strings.Count(out, "\n") != 41 {
		t.Errorf("after the append: %d rows, want 40", strings.Count(out, "\n")-1)
	}
}
