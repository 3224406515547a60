package scan

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// Serialised tasks arrive from other processes and machines: garbage must
// give an error, and a task that parses must serialise and parse again.
func FuzzUnmarshalTask(f *testing.F) {
	for _, name := range []string{"impala_iceberg_v2_delete_pos_and_multi_eq_ids", "impala_iceberg_v3_deletion_vectors", "impala_test_default_part"} {
		fx, err := fixtures.Get(name)
		if err != nil {
			f.Fatal(err)
		}
		tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
		if err != nil {
			f.Fatal(err)
		}
		s, err := New(context.Background(), tbl, Options{Columns: []string{"i", "_pos", "_partition"}, Filter: textFilter("i > 1 or i is null")})
		if err != nil {
			f.Fatal(err)
		}
		for _, task := range s.Tasks() {
			raw, err := task.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		task, err := UnmarshalTask(data)
		if err != nil {
			return
		}
		again, err := task.MarshalBinary()
		if err != nil {
			return // a value the schema cannot hold, caught on the way out
		}
		if _, err := UnmarshalTask(again); err != nil {
			t.Fatalf("a task that parsed does not parse after serialising: %v", err)
		}
	})
}
