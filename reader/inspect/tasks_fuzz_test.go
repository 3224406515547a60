package inspect

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// A serialised task is a caller's bytes (floe_task_stream reads them):
// whatever they hold, UnmarshalTask refuses them as an invalid argument
// or reads a task that serialises back to bytes read as the same task,
// and reading it fails or ends, never panics.
func FuzzUnmarshalTask(f *testing.F) {
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		f.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Metadata, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		f.Fatal(err)
	}
	for _, kind := range []Kind{Files, Entries, AllDeleteFiles} {
		tasks, err := PlanTasks(context.Background(), tbl, kind, Options{Limit: 2, Columns: []string{"readable_metrics"}}, 1)
		if err != nil {
			f.Fatal(err)
		}
		for _, task := range tasks {
			b, err := task.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"inspect_version": 1, "kind": "files", "manifests": [{"manifest_path": "m.avro"}], "schemas": [null], "partition_specs": [{"spec-id": 0, "fields": [{"source-id": 9, "field-id": 1000, "name": "x", "transform": "bucket[4]"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		task, err := UnmarshalTask(data)
		if err != nil {
			if !errors.Is(err, errkind.InvalidArgument) {
				t.Fatalf("refused as %v, not an invalid argument: %v", errkind.Of(err), err)
			}
			return
		}
		again, err := task.MarshalBinary()
		if err != nil {
			return // a value read that does not write back (a schema JSON refuses)
		}
		back, err := UnmarshalTask(again)
		if err != nil {
			t.Fatalf("a task's own bytes are refused: %v\n%s", err, again)
		}
		if third, _ := back.MarshalBinary(); !bytes.Equal(third, again) {
			t.Fatalf("bytes change on a second trip:\n%s\n%s", again, third)
		}
		rr, err := task.Reader(context.Background(), tbl.IO, nil)
		if err != nil {
			return
		}
		defer rr.Release()
		for rr.Next() {
		}
	})
}
