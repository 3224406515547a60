package kernels

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func bitString(b []byte, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = '0'
		if bitutil.BitIsSet(b, i) {
			out[i] = '1'
		}
	}
	return string(out)
}

func TestCompareToBitmapNullsNaNAndSlices(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{1, 5, 0, 9, 5}, []bool{true, true, false, true, true})
	ints := ib.NewInt64Array()
	ib.Release()
	defer ints.Release()
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{1, math.NaN(), 3}, nil)
	floats := fb.NewFloat64Array()
	fb.Release()
	defer floats.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"apple", "apricot", "", "banana"}, []bool{true, true, false, true})
	strs := sb.NewStringArray()
	sb.Release()
	defer strs.Release()

	dst := make([]byte, 8)
	cases := []struct {
		name string
		run  func() error
		n    int
		want string
	}{
		// A null never satisfies a comparison, not even !=.
		{"int =", func() error { return CompareToBitmap(ints, CmpEq, []any{int64(5)}, dst) }, 5, "01001"},
		{"int !=", func() error { return CompareToBitmap(ints, CmpNotEq, []any{int64(5)}, dst) }, 5, "10010"},
		{"int <", func() error { return CompareToBitmap(ints, CmpLt, []any{int64(6)}, dst) }, 5, "11001"},
		{"int in", func() error { return CompareToBitmap(ints, CmpIn, []any{int64(9), int64(1)}, dst) }, 5, "10010"},
		{"int is null", func() error { return CompareToBitmap(ints, CmpIsNull, nil, dst) }, 5, "00100"},
		// NaN orders nowhere.
		{"float >", func() error { return CompareToBitmap(floats, CmpGt, []any{0.0}, dst) }, 3, "101"},
		{"float is nan", func() error { return CompareToBitmap(floats, CmpIsNaN, nil, dst) }, 3, "010"},
		{"string starts with", func() error { return CompareToBitmap(strs, CmpStartsWith, []any{"ap"}, dst) }, 4, "1100"},
		{"string not starts with", func() error { return CompareToBitmap(strs, CmpNotStartsWith, []any{"ap"}, dst) }, 4, "0001"},
	}
	for _, c := range cases {
		if err := c.run(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := bitString(dst, c.n); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// Offsets of sliced arrays are respected.
	sliced := array.NewSlice(ints, 1, 4).(*array.Int64)
	defer sliced.Release()
	if err := CompareToBitmap(sliced, CmpGtEq, []any{int64(5)}, dst); err != nil {
		t.Fatal(err)
	}
	if got := bitString(dst, 3); got != "101" {
		t.Errorf("sliced >=: %s, want 101", got)
	}
	if err := CompareToBitmap(ints, CmpEq, []any{"five"}, dst); err == nil {
		t.Error("a string literal against a long column must be an error")
	}
}
