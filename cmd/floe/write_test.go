package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// lineitemFile is one data file of the PySpark-written TPC-H fixture.
func lineitemFile(t *testing.T) string {
	t.Helper()
	fx, err := fixtures.Get("duckdb_lineitem_iceberg")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(fx.Dir, "data", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data files in %s: %v", fx.Dir, err)
	}
	sort.Strings(files)
	return files[0]
}

// parquetOrderKeys reads a Parquet file with arrow-go's own reader, an
// independent account of what the file holds: its rows and the sum of
// l_orderkey.
func parquetOrderKeys(t *testing.T, path string) (rows, sum int64) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	idx := tbl.Schema().FieldIndices("l_orderkey")
	for _, chunk := range tbl.Column(idx[0]).Data().Chunks() {
		c := chunk.(*array.Int64)
		for i := 0; i < c.Len(); i++ {
			sum += c.Value(i)
		}
	}
	return tbl.NumRows(), sum
}

// scanRows runs `floe scan` and decodes its JSON lines.
func scanRows(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	status, out, errOut := runCLI(t, append([]string{"scan"}, args...)...)
	if status != 0 {
		t.Fatalf("scan %v: status %d: %s", args, status, errOut)
	}
	var rows []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var row map[string]any
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("scan output %q: %v", sc.Text(), err)
		}
		rows = append(rows, row)
	}
	return rows
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	status, out, errOut := runCLI(t, args...)
	if status != 0 {
		t.Fatalf("floe %v: status %d: %s", args, status, errOut)
	}
	return out
}

func countParquet(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			n++
		}
		return nil
	})
	return n
}

func TestAppendParquetCreatesWarehouseTableAndRetriesIdempotently(t *testing.T) {
	warehouse := t.TempDir()
	t.Setenv("FLOE_WAREHOUSE", warehouse)
	src := lineitemFile(t)
	wantRows, wantSum := parquetOrderKeys(t, src)

	out := mustRun(t, "append", "tpch.lineitem", src, "--token", "load-1", "--property", "source=fixture", "--partition", "l_returnflag")
	if !strings.Contains(out, "created "+filepath.Join(warehouse, "tpch", "lineitem")) {
		t.Errorf("append did not report creating the table:\n%s", out)
	}
	var id int64
	var rows int64
	if _, err := fmtSscanf(out, &id, &rows); err != nil {
		t.Fatalf("append output %q: %v", out, err)
	}
	if rows != wantRows {
		t.Errorf("append reports %d rows, the file holds %d", rows, wantRows)
	}
	got := scanRows(t, "tpch.lineitem", "--columns", "l_orderkey,l_returnflag")
	var sum int64
	for _, r := range got {
		n, _ := r["l_orderkey"].(json.Number).Int64()
		sum += n
	}
	if int64(len(got)) != wantRows || sum != wantSum {
		t.Errorf("scan back: %d rows, sum(l_orderkey) %d; the file: %d rows, sum %d", len(got), sum, wantRows, wantSum)
	}
	tableDir := filepath.Join(warehouse, "tpch", "lineitem")
	files := countParquet(t, filepath.Join(tableDir, "data"))
	if entries, _ := os.ReadDir(filepath.Join(tableDir, "data")); len(entries) < 2 {
		t.Errorf("data is not partitioned by l_returnflag: %v", entries)
	}

	// The retried step: same token, nothing committed, nothing written.
	again := mustRun(t, "append", "tpch.lineitem", src, "--token", "load-1")
	if !strings.Contains(again, "already committed") || !strings.Contains(again, strings.Fields(out)[len(strings.Fields(out))-7]) {
		t.Errorf("retry output:\n%s", again)
	}
	if n := countParquet(t, filepath.Join(tableDir, "data")); n != files {
		t.Errorf("retry left %d data files, want %d", n, files)
	}
	if n := len(scanRows(t, "tpch.lineitem", "--columns", "l_orderkey")); int64(n) != wantRows {
		t.Errorf("after the retry: %d rows, want %d", n, wantRows)
	}
	info := mustRun(t, "info", "tpch.lineitem", "--json")
	if !strings.Contains(info, `"floe.commit-token": "load-1"`) || !strings.Contains(info, `"source": "fixture"`) {
		t.Errorf("the snapshot summary lacks the token or the property")
	}

	// A second load, then expiring all but the newest snapshot.
	mustRun(t, "append", "tpch.lineitem", src, "--token", "load-2")
	if n := len(scanRows(t, "tpch.lineitem", "--columns", "l_orderkey")); int64(n) != 2*wantRows {
		t.Errorf("after two loads: %d rows, want %d", n, 2*wantRows)
	}
	exp := mustRun(t, "expire", "tpch.lineitem", "--older-than", "0d", "--retain-last", "1")
	if !strings.HasPrefix(exp, "expired 1 snapshots") {
		t.Errorf("expire: %s", exp)
	}
	if n := len(scanRows(t, "tpch.lineitem", "--columns", "l_orderkey")); int64(n) != 2*wantRows {
		t.Errorf("after expiring: %d rows, want %d", n, 2*wantRows)
	}
}

// fmtSscanf reads "snapshot ID: N rows" from append's last line.
func fmtSscanf(out string, id, rows *int64) (int, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return sscanf(lines[len(lines)-1], "snapshot %d: %d rows", id, rows)
}

func TestAppendJSONLInfersSchema(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "events.jsonl")
	data := `{"id": 1, "name": "a", "score": 1, "tags": ["x", "y"], "where": {"lat": 1.5, "ok": true}}
{"id": 2, "name": null, "score": 2.25}

{"id": 3, "name": "c", "tags": [], "where": {"lat": -2, "ok": false}}
`
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	loc := filepath.Join(dir, "events")
	mustRun(t, "append", loc, in, "--partition", "id:bucket[4]")
	info := mustRun(t, "info", loc)
	for _, want := range []string{"id optional long", "name optional string", "score optional double",
		"tags optional list", "element optional string", "id_bucket = bucket[4](id)"} {
		if !strings.Contains(info, want) {
			t.Errorf("info lacks %q:\n%s", want, info)
		}
	}
	rows := scanRows(t, loc)
	sort.Slice(rows, func(i, j int) bool { return rows[i]["id"].(json.Number) < rows[j]["id"].(json.Number) })
	if len(rows) != 3 {
		t.Fatalf("got %d rows, want 3", len(rows))
	}
	if rows[0]["name"] != "a" || rows[1]["name"] != nil || rows[1]["score"].(json.Number) != "2.25" {
		t.Errorf("rows: %v", rows)
	}
	where, _ := rows[2]["where"].(map[string]any)
	if where["lat"].(json.Number) != "-2" || where["ok"] != false {
		t.Errorf("row 3 where = %v", rows[2]["where"])
	}
	// A row that contradicts the table's schema is refused, committing nothing.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": "x"}`+"\n"), 0o644)
	if status, _, errOut := runCLI(t, "append", loc, bad); status == 0 || errOut == "" {
		t.Errorf("a string id was appended (status %d)", status)
	}
	if n := len(scanRows(t, loc)); n != 3 {
		t.Errorf("after a refused append: %d rows", n)
	}
}

func TestCreateWithSchemaFile(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	os.WriteFile(schema, []byte(`{"type": "struct", "schema-id": 0, "fields": [
	  {"id": 1, "name": "ts", "required": false, "type": "timestamptz"},
	  {"id": 2, "name": "v", "required": true, "type": "long"}]}`), 0o644)
	loc := filepath.Join(dir, "t")
	mustRun(t, "create", loc, "--schema", schema, "--partition", "ts:day", "--property", "write.parquet.compression-codec=snappy", "--format-version", "3")
	info := mustRun(t, "info", loc)
	for _, want := range []string{"format version:  3", "ts_day = day(ts)", "v required long"} {
		if !strings.Contains(info, want) {
			t.Errorf("info lacks %q:\n%s", want, info)
		}
	}
	if status, _, errOut := runCLI(t, "create", loc, "--schema", schema); status == 0 || !strings.Contains(errOut, "already exists") {
		t.Errorf("creating twice: status %d: %s", status, errOut)
	}
	in := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(in, []byte(`{"ts": "2024-03-01T10:00:00Z", "v": 1}`+"\n"+`{"ts": "2024-03-02 10:00:00+00:00", "v": 2}`+"\n"), 0o644)
	mustRun(t, "append", loc, in)
	if entries, _ := os.ReadDir(filepath.Join(loc, "data")); len(entries) != 2 {
		t.Errorf("want one directory per day, got %v", entries)
	}
	if rows := scanRows(t, loc); len(rows) != 2 {
		t.Errorf("got %d rows", len(rows))
	}
}

func TestWriteCommandErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"create", filepath.Join(dir, "t")},
		{"append", filepath.Join(dir, "t")},
		{"append", filepath.Join(dir, "t"), filepath.Join(dir, "x.csv")},
		{"append", filepath.Join(dir, "t"), filepath.Join(dir, "missing.jsonl")},
		{"append", filepath.Join(dir, "t"), lineitemFile(t), "--property", "novalue"},
		{"expire", filepath.Join(dir, "t"), "--retain-last", "0"},
		{"expire", filepath.Join(dir, "t"), "--older-than", "soon"},
		{"expire", filepath.Join(dir, "nothing-here")},
	} {
		if status, _, errOut := runCLI(t, args...); status != 1 || errOut == "" {
			t.Errorf("floe %v: status %d, stderr %q", args, status, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "t")); err == nil {
		t.Errorf("a failed command left a table behind")
	}
}

func sscanf(s, format string, args ...any) (int, error) { return fmt.Sscanf(s, format, args...) }

// FuzzJSONLSchema: inferring a schema from JSON lines, and reading them
// against it, gives errors, never panics. Seeds are real rows: fixture
// tables scanned to JSON lines.
func FuzzJSONLSchema(f *testing.F) {
	for _, name := range []string{"impala_iceberg_v3_all_types", "impala_test_default_part", "duckdb_uuid"} {
		fx, err := fixtures.Get(name)
		if err != nil {
			f.Fatal(err)
		}
		var out, errOut strings.Builder
		if run(append([]string{"scan", fx.Dir, "--limit", "5"}, mapArgs(fx)...), &out, &errOut) != 0 {
			f.Fatalf("scan %s: %s", name, errOut.String())
		}
		f.Add([]byte(out.String()))
	}
	f.Add([]byte(`{"a": [1, 2.5], "b": {"c": null}}` + "\n" + `{"a": [], "b": {"c": "x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := jsonlBytes("fuzz.jsonl", data)
		schema, err := in.schema()
		if err != nil {
			return
		}
		assignFieldIDs(schema)
		rdr, err := in.batches(context.Background(), schema)
		if err != nil {
			return
		}
		for rdr.Next() {
		}
		_ = rdr.Err()
		rdr.Release()
	})
}

// add-files registers Parquet files another engine wrote (DuckDB, a
// fixture table's live files) in a new table; scanning it reads their rows.
func TestAddFilesCommand(t *testing.T) {
	dir := t.TempDir()
	fx, err := fixtures.Get("duckdb_uuid")
	if err != nil {
		t.Fatal(err)
	}
	src, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := src.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	schemaJSON, err := src.Metadata.CurrentSchema().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	schemaPath := filepath.Join(dir, "schema.json")
	writeTestFile(t, schemaPath, string(schemaJSON))
	loc := filepath.Join(dir, "t")
	mustRun(t, "create", loc, "--schema", schemaPath)
	args := []string{"add-files", loc}
	for _, task := range plan.Tasks {
		args = append(args, task.Path)
	}
	if out := mustRun(t, append(args, "--token", "a1")...); !strings.Contains(out, fmt.Sprintf("added %d files, %d rows", len(plan.Tasks), plan.RecordCount())) {
		t.Fatalf("add-files: %s", out)
	}
	if out := mustRun(t, append(args, "--token", "a1")...); !strings.Contains(out, "already committed") {
		t.Fatalf("retried add-files: %s", out)
	}
	if out := mustRun(t, "scan", loc, "--format", "jsonl"); int64(strings.Count(out, "\n")) != plan.RecordCount() {
		t.Fatalf("scan after add-files: %s", out)
	}
	if status, _, errOut := runCLI(t, append(args[:2], plan.Tasks[0].Path)...); status == 0 || !strings.Contains(errOut, "already references") {
		t.Fatalf("adding a file twice: %d %s", status, errOut)
	}
}
