package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/inspect"
)

// rowsOf drains rdr into one string per row (every column's value).
func rowsOf(t *testing.T, rdr array.RecordReader) []string {
	t.Helper()
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = rec.Column(c).GetOneForMarshal(i)
			}
			b, err := json.Marshal(row)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// floe_inspect_plan's array, each element read alone as floe_task_stream
// reads a task (with the table's location map, as another process would
// be given it), gives floe_inspect's rows in order, on a table with
// position deletes whose current snapshot lists several manifests.
func TestInspectPlanReadsAsInspect(t *testing.T) {
	const name = "impala_iceberg_v2_partitioned_position_deletes"
	h := openFixtureHandle(t, name)
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind, options string
		minTasks      int
	}{
		{"files", `{"task_size": 1}`, 2},
		{"entries", `{"task_size": 1, "columns": ["status", "data_file"], "filter": "data_file.content = 1"}`, 1},
		{"all_entries", `{}`, 1},
		{"delete_files", `{"task_size": 1, "columns": ["file_path"], "limit": 1}`, 1},
	} {
		data, err := planInspect(h, inspect.Kind(c.kind), []byte(c.options))
		if err != nil {
			t.Fatalf("%s %s: %v", c.kind, c.options, err)
		}
		var tasks []json.RawMessage
		if err := json.Unmarshal(data, &tasks); err != nil {
			t.Fatalf("%s: not a JSON array: %v", c.kind, err)
		}
		if len(tasks) < c.minTasks {
			t.Errorf("%s %s: %d tasks, want at least %d", c.kind, c.options, len(tasks), c.minTasks)
		}
		var got []string
		for _, task := range tasks {
			rdr, cancel, err := openInspectTask(task, tableOptions{LocationMap: fx.LocationMap}, nil, 0)
			if err != nil {
				t.Fatalf("%s: %v", c.kind, err)
			}
			got = append(got, rowsOf(t, rdr)...)
			cancel()
		}
		req, err := parseInspectOptions([]byte(stripTaskSize(t, c.options)))
		if err != nil {
			t.Fatal(err)
		}
		rdr, cancel, err := openInspect(h, inspect.Kind(c.kind), req)
		if err != nil {
			t.Fatal(err)
		}
		want := rowsOf(t, rdr)
		cancel()
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s %s: tasks read %d rows, floe_inspect %d:\n%v\n%v", c.kind, c.options, len(got), len(want), got, want)
		}
	}
}

func stripTaskSize(t *testing.T, options string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(options), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "task_size")
	b, _ := json.Marshal(m)
	return string(b)
}

// What floe_inspect_plan refuses, with the status a caller sees, and a
// limit of 0 rows planned as no task.
func TestInspectPlanRefuses(t *testing.T) {
	h := openFixtureHandle(t, "impala_iceberg_v2_partitioned_position_deletes")
	for _, c := range []struct {
		kind, options string
		want          status
	}{
		{"snapshots", `{}`, statusUnsupported},
		{"partitions", `{}`, statusUnsupported},
		{"filez", `{}`, statusInvalidArgument},
		{"files", `{"task_size": -1}`, statusInvalidArgument},
		{"files", `{"task_size": "big"}`, statusInvalidArgument},
		{"files", `{"task_sise": 1}`, statusInvalidArgument},
		{"files", `{"columns": ["no_such"]}`, statusInvalidArgument},
		{"files", `{"snapshot_id": 1}`, statusNotFound},
		{"all_files", `{"ref": "main"}`, statusInvalidArgument},
	} {
		_, err := planInspect(h, inspect.Kind(c.kind), []byte(c.options))
		if got := classify(err, statusFormat); err == nil || got != c.want {
			t.Errorf("%s %s: %v (status %d), want status %d", c.kind, c.options, err, got, c.want)
		}
	}
	data, err := planInspect(h, "files", []byte(`{"limit": 0}`))
	if err != nil || string(data) != "[]" {
		t.Errorf("limit 0: %s, %v", data, err)
	}
	// A limit given with the task replaces the task's; 0 reads no row.
	data, err = planInspect(h, "entries", []byte(`{"task_size": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []json.RawMessage
	if err := json.Unmarshal(data, &tasks); err != nil || len(tasks) < 2 {
		t.Fatalf("%d tasks, %v", len(tasks), err)
	}
	fx, _ := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	rdr, cancel, err := openInspectTask(tasks[1], tableOptions{LocationMap: fx.LocationMap}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rowsOf(t, rdr)); n < 2 {
		t.Fatalf("task 1 has %d rows: a limit of 1 would not show", n)
	}
	cancel()
	for _, limit := range []int64{0, 1} {
		rdr, cancel, err := openInspectTask(tasks[1], tableOptions{LocationMap: fx.LocationMap}, &limit, 0)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(rowsOf(t, rdr)); int64(n) != limit {
			t.Errorf("limit %d: %d rows", limit, n)
		}
		cancel()
	}
	// An inspect task of an unknown version is refused as a bad argument.
	if _, _, err := openInspectTask([]byte(`{"inspect_version": 9, "kind": "files", "manifests": [{"manifest_path": "m.avro"}]}`), tableOptions{}, nil, 0); classify(err, statusFormat) != statusInvalidArgument {
		t.Errorf("version 9: %v", err)
	}
}
