package main

import (
	"testing"

	"github.com/floedb/floe/reader/scan"
)

// floe_task_stream's options take the table options that reach the files
// and the read settings a task no longer carries; floe_task_io_open's take
// the read settings alone. Bad values and unknown keys are refused as
// invalid arguments.
func TestParseTaskOptions(t *testing.T) {
	o, read, err := parseTaskOptions([]byte(`{"location_map": {"/a": "/b"}, "limit": 5, "batch_size": 7, "verify_crc": true, "memory_limit": 33554432}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.LocationMap["/a"] != "/b" || read.Limit == nil || *read.Limit != 5 || read.BatchSize != 7 || !read.VerifyCRC || read.MemoryLimit != 32<<20 {
		t.Fatalf("options %+v, read options %+v", o, read)
	}
	if _, read, err := parseTaskOptions(nil); err != nil || read.Limit != nil || read.BatchSize != 0 || read.VerifyCRC {
		t.Fatalf("no options: %+v, %v", read, err)
	}
	zero := int64(0)
	if _, read, err := parseTaskOptions([]byte(`{"limit": 0}`)); err != nil || read.Limit == nil || *read.Limit != zero {
		t.Fatalf("limit 0 (no row) read as %+v, %v", read, err)
	}
	for _, bad := range []string{`{"limit": -1}`, `{"batch_size": -3}`, `{"warehouse": "/w"}`, `{"limt": 1}`, `{"verify_crc": 1}`, `{"memory_limit": 5}`} {
		if _, _, err := parseTaskOptions([]byte(bad)); err == nil {
			t.Errorf("task options %s accepted", bad)
		} else if got := classify(err, statusInternal); got != statusInvalidArgument {
			t.Errorf("task options %s: status %d (%v)", bad, got, err)
		}
	}
	read, err = parseTaskIOOptions([]byte(`{"limit": 3, "batch_size": 2}`))
	if err != nil || *read.Limit != 3 || read.BatchSize != 2 || read.MemoryLimit != 0 {
		t.Fatalf("task I/O options: %+v, %v", read, err)
	}
	if read, err := parseTaskIOOptions(nil); err != nil || read != (scan.ReadOptions{}) {
		t.Fatalf("no task I/O options: %+v, %v", read, err)
	}
	for _, bad := range []string{`{"limit": -1}`, `{"location_map": {}}`, `{"memory_limit": 33554432}`, `[1]`} {
		if _, err := parseTaskIOOptions([]byte(bad)); err == nil {
			t.Errorf("task I/O options %s accepted", bad)
		} else if got := classify(err, statusInternal); got != statusInvalidArgument {
			t.Errorf("task I/O options %s: status %d (%v)", bad, got, err)
		}
	}
}
