package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// A real task's bytes with one key changed by hand are refused (as an
// invalid argument when UnmarshalTask refuses them) or read to an end or
// an error, never a panic.
func TestReview29MalformedTasks(t *testing.T) {
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Metadata, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	edits := map[string]any{
		"format_version":    99,
		"current_schema_id": 7,
		"columns":           []string{"readable_metrics.nope", "partition.x"},
		"filter":            map[string]any{"type": "eq", "term": "record_count", "value": "x"},
		"partition_specs":   []any{map[string]any{"spec-id": 0, "fields": []any{map[string]any{"source-id": 1, "field-id": 1000, "name": "b", "transform": "bucket[0]"}}}},
		"schemas":           []any{map[string]any{"type": "struct", "schema-id": 0, "fields": []any{}}},
		"limit":             1 << 62,
		"batch_size":        1 << 40,
	}
	manifestEdits := map[string]any{
		"content":           7,
		"partition_spec_id": 42,
		"manifest_length":   1,
		"sequence_number":   -3,
		"added_snapshot_id": 0,
		"first_row_id":      -1,
		"added_files_count": -1,
	}
	for _, kind := range []Kind{Files, Entries, AllDeleteFiles} {
		cols := []string{"readable_metrics", "partition", "content"}
		if kind == Entries {
			cols = []string{"status", "data_file", "readable_metrics"}
		}
		tasks, err := PlanTasks(context.Background(), tbl, kind, Options{Columns: cols}, 1)
		if err != nil {
			t.Fatal(err)
		}
		base, err := tasks[0].MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		try := func(what string, edit func(m map[string]any)) {
			var m map[string]any
			if err := json.Unmarshal(base, &m); err != nil {
				t.Fatal(err)
			}
			edit(m)
			data, _ := json.Marshal(m)
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s %s: panic %v", kind, what, p)
				}
			}()
			task, err := UnmarshalTask(data)
			if err != nil {
				if !errors.Is(err, errkind.InvalidArgument) {
					t.Errorf("%s %s: refused as %v: %v", kind, what, errkind.Of(err), err)
				}
				return
			}
			rr, err := task.Reader(context.Background(), tbl.IO, nil)
			if err != nil {
				return
			}
			defer rr.Release()
			for rr.Next() {
			}
		}
		for k, v := range edits {
			try(k, func(m map[string]any) { m[k] = v })
		}
		for k, v := range manifestEdits {
			try("manifest "+k, func(m map[string]any) {
				m["manifests"].([]any)[0].(map[string]any)[k] = v
			})
		}
		try("manifest path", func(m map[string]any) {
			m["manifests"].([]any)[0].(map[string]any)["manifest_path"] = fmt.Sprint(m["manifests"].([]any)[0].(map[string]any)["manifest_path"]) + ".gone"
		})
	}
}
