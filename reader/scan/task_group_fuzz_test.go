package scan

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// Serialised task groups arrive from other processes and machines:
// garbage must give an error, and a group that parses must serialise and
// parse again. Seeds are real groups: packed files, splits of a file, and
// a bare task.
func FuzzUnmarshalTaskGroup(f *testing.F) {
	for name, text := range map[string]string{
		"impala_iceberg_v2_partitioned_position_deletes": "id > 1 or action = 'view'",
		"impala_iceberg_v3_deletion_vectors":             "i > 1 or i is null",
		"impala_iceberg_v2_delete_pos_and_multi_eq_ids":  "i > 1 or i is null",
	} {
		fx, err := fixtures.Get(name)
		if err != nil {
			f.Fatal(err)
		}
		tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
		if err != nil {
			f.Fatal(err)
		}
		filter := textFilter(text)
		for _, splitSize := range []int64{0, 300} {
			s, err := New(context.Background(), tbl, Options{Columns: []string{"_pos", "_partition"}, Filter: filter, SplitSize: splitSize})
			if err != nil {
				f.Fatal(err)
			}
			for _, g := range s.TaskGroups() {
				raw, err := g.MarshalBinary()
				if err != nil {
					f.Fatal(err)
				}
				f.Add(raw)
			}
			if splitSize > 0 {
				raw, err := (&TaskGroup{Tasks: s.Tasks()[:2]}).MarshalBinary()
				if err != nil {
					f.Fatal(err)
				}
				f.Add(raw)
			}
			raw, err := s.Tasks()[0].MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := UnmarshalTaskGroup(data)
		if err != nil {
			return
		}
		again, err := g.MarshalBinary()
		if err != nil {
			return // a value the schema cannot hold, caught on the way out
		}
		if _, err := UnmarshalTaskGroup(again); err != nil {
			t.Fatalf("a group that parsed does not parse after serialising: %v", err)
		}
		_, _ = g.Schema()
	})
}
