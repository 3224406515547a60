package scan

import (
	"context"
	"testing"
)

// A task keeps its filter as an expression: files whose partitions leave
// the same residual share one, it is tightened in memory by AddFilter, and
// written as REST JSON only when the task is serialised, which reads back
// to the same filter.
func TestTaskFilterInMemoryAndOnTheWire(t *testing.T) {
	tbl := openFixtureTable(t, "impala_iceberg_partitioned")
	s, err := New(context.Background(), tbl, Options{Filter: textFilter("id > 3")})
	if err != nil {
		t.Fatal(err)
	}
	tasks := s.Tasks()
	if len(tasks) < 2 {
		t.Fatalf("%d tasks, want several", len(tasks))
	}
	shared := map[string]int{}
	for _, task := range tasks {
		if task.Filter == nil {
			t.Fatalf("task %s has no filter", task.Path)
		}
		shared[task.Filter.String()]++
	}
	if len(shared) != 1 {
		t.Errorf("residuals %v, want the one filter the partitions leave undecided", shared)
	}
	if err := s.AddFilter(textFilter("id < 8")); err != nil {
		t.Fatal(err)
	}
	tightened := s.Tasks()[0]
	if got, want := tightened.Filter.String(), "(id > 3 and id < 8)"; got != want {
		t.Errorf("tightened filter %s, want %s", got, want)
	}
	raw, err := tightened.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalTask(raw)
	if err != nil {
		t.Fatal(err)
	}
	if back.Filter == nil || back.Filter.String() != tightened.Filter.String() {
		t.Errorf("filter %v read back from %s, want %s", back.Filter, raw, tightened.Filter)
	}
}
