package kernels

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestSequenceAndCoalesce(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	seq, err := Sequence(100, 5, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer seq.Release()
	for i := 0; i < 5; i++ {
		if seq.Value(i) != int64(100+i) {
			t.Fatalf("sequence[%d] = %d", i, seq.Value(i))
		}
	}
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{0, 7, 0, 9, 0}, []bool{false, true, false, true, false})
	stored := b.NewInt64Array()
	b.Release()
	defer stored.Release()
	got, err := CoalesceInt64(stored, seq, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	want := []int64{100, 7, 102, 9, 104}
	for i, w := range want {
		if !got.IsValid(i) || got.Value(i) != w {
			t.Errorf("coalesce[%d] = %v, want %d", i, got.Value(i), w)
		}
	}
	// A sliced input keeps its offset right.
	sliced := array.NewSlice(stored, 1, 4).(*array.Int64)
	defer sliced.Release()
	seq3 := array.NewSlice(seq, 1, 4).(*array.Int64)
	defer seq3.Release()
	got3, err := CoalesceInt64(sliced, seq3, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer got3.Release()
	for i, w := range []int64{7, 102, 9} {
		if got3.Value(i) != w {
			t.Errorf("sliced coalesce[%d] = %d, want %d", i, got3.Value(i), w)
		}
	}
}
