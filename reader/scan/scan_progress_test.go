package scan

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The progress counters: planned tasks and their byte spans (split files
// count their ranges, whole files their sizes), and, as tasks are read to
// their end, done ones that reach the planned totals exactly.
func TestProgressCountersReachThePlan(t *testing.T) {
	for _, c := range []struct {
		table string
		opts  Options
	}{
		{"impala_iceberg_partitioned", Options{Threads: 1}},
		{"impala_iceberg_partitioned", Options{Threads: 3}},
		{"impala_iceberg_v2_partitioned_position_deletes", Options{}},
		{"duckdb_lineitem_iceberg", Options{Columns: []string{"l_orderkey"}, SplitSize: 1 << 20, Threads: 2}},
	} {
		tbl := openFixtureTable(t, c.table)
		ctx := context.Background()
		s, err := New(ctx, tbl, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		var spans int64
		for _, task := range s.Tasks() {
			if task.Length > 0 {
				spans += task.Length
			} else {
				spans += task.FileSize
			}
		}
		m := s.Metrics()
		if m.TasksPlanned != int64(len(s.Tasks())) || m.TaskBytesPlanned != spans || spans == 0 {
			t.Fatalf("%s: planned %d tasks of %d bytes, want %d of %d", c.table, m.TasksPlanned, m.TaskBytesPlanned, len(s.Tasks()), spans)
		}
		if m.TasksDone != 0 || m.TaskBytesDone != 0 {
			t.Fatalf("%s: done before reading: %+v", c.table, m)
		}
		rr, err := s.Reader(ctx, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		halfway := false
		for rr.Next() {
			if m := s.Metrics(); m.TasksDone > 0 && m.TasksDone < m.TasksPlanned {
				halfway = true
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		m = s.Metrics()
		if m.TasksDone != m.TasksPlanned || m.TaskBytesDone != m.TaskBytesPlanned {
			t.Fatalf("%s %+v: done %d tasks of %d bytes, planned %d of %d", c.table, c.opts, m.TasksDone, m.TaskBytesDone, m.TasksPlanned, m.TaskBytesPlanned)
		}
		if m.TasksPlanned > 3 && c.opts.Threads == 1 && !halfway {
			t.Errorf("%s: the counters never showed a scan part way", c.table)
		}
	}
}
