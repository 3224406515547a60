package scan

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

func taskRows(t *testing.T, rr array.RecordReader) []string {
	t.Helper()
	defer rr.Release()
	var rows [][]string
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = impalaValue(rec.Column(c), r)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return joined(rows)
}

// A host-driven read returns what a direct read does, on fixture tables
// written by Impala and DuckDB with every kind of delete and with a filter
// that prunes pages, and fetches less than the file when pruning can.
func TestHostIOReadsLikeADirectRead(t *testing.T) {
	cases := []struct {
		table  string
		filter string
		pruned bool
	}{
		{"impala_iceberg_v2_delete_pos_and_multi_eq_ids", "", false},
		{"impala_iceberg_v2_partitioned_position_deletes", "", false},
		{"impala_iceberg_v3_deletion_vectors", "", false},
		{"duckdb_equality_deletes/mytable_partitioned", "", false},
		{"impala_iceberg_migrated_complex_test", "", false},
		{"duckdb_lineitem_iceberg", "l_orderkey < 100", true},
		{"duckdb_lineitem_iceberg", "", false},
	}
	ctx := context.Background()
	for _, c := range cases {
		fx, err := fixtures.Get(c.table)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{}
		if c.filter != "" {
			opts.Filter = textFilter(c.filter)
		}
		s, err := New(ctx, tbl, opts)
		if err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		for _, task := range s.Tasks() {
			rr, err := task.Reader(ctx, fileio.Local{}, mem, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := taskRows(t, rr)
			h, err := task.HostIO(ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, rounds, filled := driveHostIO(t, h, mem)
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: host-driven read gave %d rows %v, direct %d rows %v", c.table, task.Path, len(got), got, len(want), want)
			}
			if c.pruned && filled >= task.FileSize {
				t.Errorf("%s: the filter prunes pages, yet %d of %d bytes were asked for", task.Path, filled, task.FileSize)
			}
			t.Logf("%s: %d rows, %d rounds, %d of %d bytes", task.Path, len(got), rounds, filled, task.FileSize)
		}
		// A bin-packed group (several small files) reads the same way.
		for _, g := range s.TaskGroups() {
			rr, err := g.Reader(ctx, fileio.Local{}, mem, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := taskRows(t, rr)
			h, err := g.HostIO(ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := driveHostIO(t, h, mem)
			if !slices.Equal(got, want) {
				t.Errorf("%s: group of %d tasks: host-driven read gave %v, direct %v", c.table, len(g.Tasks), got, want)
			}
		}
		mem.AssertSize(t, 0)
	}
}

// driveHostIO drives a read as a host with its own I/O would: asks for
// ranges, fills them from the local files, and decodes. It returns the
// rows, the rounds taken and the bytes filled.
func driveHostIO(t *testing.T, h *HostIO, mem memory.Allocator) (rows []string, rounds int, filled int64) {
	t.Helper()
	ctx := context.Background()
	for {
		need, err := h.Needed(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(need) == 0 {
			break
		}
		if rounds++; rounds > 8 {
			t.Fatalf("still needs %v after 8 rounds", need)
		}
		for _, r := range need {
			data, err := fileio.Local{}.ReadFile(ctx, r.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Fill(r.Path, r.Offset, data[r.Offset:r.Offset+r.Length]); err != nil {
				t.Fatal(err)
			}
			filled += r.Length
		}
	}
	rr, err := h.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	return taskRows(t, rr), rounds, filled
}

// Reading before every range is filled fails with a clear error, and a
// fill outside the task's files is refused.
func TestHostIORefusesUnfilledReads(t *testing.T) {
	ctx := context.Background()
	s := openScan(t, "impala_iceberg_v2_partitioned_position_deletes", Options{})
	task := s.Tasks()[0]
	h, err := task.HostIO(ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rr, err := h.Reader(ctx, memory.DefaultAllocator); err == nil {
		for rr.Next() {
			t.Error("a read with nothing filled returned a batch")
		}
		if err := rr.Err(); err == nil || !strings.Contains(err.Error(), "not filled by the host") {
			t.Errorf("a read with nothing filled: error %v", err)
		}
		rr.Release()
	}
	if err := h.Fill("/elsewhere.parquet", 0, []byte("x")); err == nil {
		t.Error("a fill of a file the task does not read was accepted")
	}
	if err := h.Fill(task.Path, task.FileSize-1, []byte("xy")); err == nil {
		t.Error("a fill past the end of the file was accepted")
	}
}
