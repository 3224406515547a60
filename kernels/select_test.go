package kernels

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// inputs returns, for dt, a fresh array with nulls, a slice of it at an
// odd offset, a slice at a byte-aligned offset, one without nulls and an
// empty one.
func inputs(mem memory.Allocator, dt arrow.DataType, r *rand.Rand) map[string]arrow.Array {
	full := randomArray(mem, dt, 300, r, 0.2)
	return map[string]arrow.Array{
		"full":     full,
		"sliced":   array.NewSlice(full, 5, 290),
		"aligned":  array.NewSlice(full, 16, 200),
		"nonulls":  randomArray(mem, dt, 150, r, 0),
		"empty":    randomArray(mem, dt, 0, r, 0.2),
		"emptycut": array.NewSlice(full, 300, 300),
	}
}

// keepPatterns returns keep bitmaps for n rows: none, all, sparse, dense,
// half, and long runs (which take the block-copy paths).
func keepPatterns(n int, r *rand.Rand) map[string][]byte {
	out := map[string][]byte{}
	make1 := func(name string, keep func(i int) bool) {
		b := make([]byte, (n+7)/8)
		for i := range n {
			if keep(i) {
				bitutil.SetBit(b, i)
			}
		}
		out[name] = b
	}
	make1("none", func(int) bool { return false })
	make1("all", func(int) bool { return true })
	make1("sparse", func(int) bool { return r.IntN(100) == 0 })
	make1("half", func(int) bool { return r.IntN(2) == 0 })
	make1("dense", func(int) bool { return r.IntN(100) != 0 })
	make1("runs", func(i int) bool { return (i/70)%2 == 0 })
	make1("lastonly", func(i int) bool { return i == n-1 })
	return out
}

func indicesOf(keep []byte, n int) []int32 {
	var idx []int32
	for i := range n {
		if bitutil.BitIsSet(keep, i) {
			idx = append(idx, int32(i))
		}
	}
	return idx
}

func TestFilterAndSelectEveryType(t *testing.T) {
	mem := newTrackingAllocator(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range testTypes() {
		for name, arr := range inputs(mem, dt, r) {
			for pname, keep := range keepPatterns(arr.Len(), r) {
				t.Run(dt.String()+"/"+name+"/"+pname, func(t *testing.T) {
					want := takeOracle(t, mem, arr, indicesOf(keep, arr.Len()))
					defer want.Release()

					got, err := Filter(arr, keep, mem)
					if err != nil {
						t.Fatal(err)
					}
					defer got.Release()
					checkOutput(t, mem, got)
					assertEqual(t, want, got)
					if pname == "all" && got != arr {
						t.Fatalf("keeping every row should return the input itself")
					}

					sel, err := SelectionFromBitmap(keep, 0, arr.Len())
					if err != nil {
						t.Fatal(err)
					}
					got2, err := Select(arr, sel, mem)
					if err != nil {
						t.Fatal(err)
					}
					defer got2.Release()
					assertEqual(t, want, got2)

					// The same selection from a bitmap starting mid-byte.
					shifted := make([]byte, len(keep)+1)
					bitutil.CopyBitmap(keep, 0, arr.Len(), shifted, 5)
					sel, err = SelectionFromBitmap(shifted, 5, arr.Len())
					if err != nil {
						t.Fatal(err)
					}
					got3, err := Select(arr, sel, mem)
					if err != nil {
						t.Fatal(err)
					}
					defer got3.Release()
					assertEqual(t, want, got3)

					// And from its positions, without a bitmap.
					sel, err = SelectionFromIndices(indicesOf(keep, arr.Len()), arr.Len())
					if err != nil {
						t.Fatal(err)
					}
					got4, err := Select(arr, sel, mem)
					if err != nil {
						t.Fatal(err)
					}
					defer got4.Release()
					checkOutput(t, mem, got4)
					assertEqual(t, want, got4)
				})
			}
			arr.Release()
		}
	}
}

func TestTakeEveryType(t *testing.T) {
	mem := newTrackingAllocator(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range testTypes() {
		for name, arr := range inputs(mem, dt, r) {
			n := arr.Len()
			orders := map[string][]int32{"empty": {}}
			if n > 0 {
				random := make([]int32, 2*n)
				for j := range random {
					random[j] = int32(r.IntN(n))
				}
				reversed := make([]int32, n)
				for j := range reversed {
					reversed[j] = int32(n - 1 - j)
				}
				ascending := make([]int32, n)
				for j := range ascending {
					ascending[j] = int32(j)
				}
				orders["random"], orders["reversed"], orders["ascending"] = random, reversed, ascending
				orders["repeat"] = []int32{int32(n - 1), int32(n - 1), 0, 0, 0}
			}
			for oname, idx := range orders {
				t.Run(dt.String()+"/"+name+"/"+oname, func(t *testing.T) {
					want := takeOracle(t, mem, arr, idx)
					defer want.Release()
					got, err := Take(arr, idx, mem)
					if err != nil {
						t.Fatal(err)
					}
					defer got.Release()
					checkOutput(t, mem, got)
					assertEqual(t, want, got)
				})
			}
			arr.Release()
		}
	}
}

func TestTakeRejectsOutOfRange(t *testing.T) {
	mem := newTrackingAllocator(t)
	arr := randomArray(mem, arrow.PrimitiveTypes.Int64, 10, rand.New(rand.NewPCG(1, 1)), 0)
	defer arr.Release()
	for _, idx := range [][]int32{{0, 10}, {-1}, {3, 2, 11}} {
		if out, err := Take(arr, idx, mem); err == nil {
			out.Release()
			t.Errorf("Take(%v) of 10 rows: want an error", idx)
		}
	}
	if _, err := Filter(arr, []byte{0xff}, mem); err == nil {
		t.Errorf("Filter with a 1-byte bitmap over 10 rows: want an error")
	}
}

func TestFilterRecord(t *testing.T) {
	mem := newTrackingAllocator(t)
	r := rand.New(rand.NewPCG(5, 6))
	types := testTypes()
	fields := make([]arrow.Field, len(types))
	cols := make([]arrow.Array, len(types))
	for i, dt := range types {
		fields[i] = arrow.Field{Name: dt.String(), Type: dt, Nullable: true}
		full := randomArray(mem, dt, 1000, r, 0.1)
		cols[i] = array.NewSlice(full, 3, 1000)
		full.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 997)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()

	for pname, keep := range keepPatterns(997, r) {
		t.Run(pname, func(t *testing.T) {
			got, err := FilterRecord(rec, keep, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			idx := indicesOf(keep, 997)
			if got.NumRows() != int64(len(idx)) {
				t.Fatalf("%d rows, want %d", got.NumRows(), len(idx))
			}
			if pname == "all" && got != rec {
				t.Fatalf("keeping every row should return the batch itself")
			}
			for i, col := range got.Columns() {
				want := takeOracle(t, mem, rec.Column(i), idx)
				defer want.Release()
				checkOutput(t, mem, col)
				assertEqual(t, want, col)
			}
		})
	}
}

func TestSelection(t *testing.T) {
	bitmap := []byte{0b1010_0101, 0xff, 0x00, 0b0000_0001}
	sel, err := SelectionFromBitmap(bitmap, 0, 25)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{0, 2, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 24}
	if !slices.Equal(sel.Indices(), want) || sel.Len() != len(want) || sel.All() || sel.None() || sel.Rows() != 25 {
		t.Fatalf("selection %v (len %d), want %v", sel.Indices(), sel.Len(), want)
	}
	// At bit offset 3 the same bytes keep rows 2, 4, 5, ... relative to 3.
	sel, _ = SelectionFromBitmap(bitmap, 3, 13)
	if got := sel.Indices(); !slices.Equal(got, []int32{2, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {
		t.Fatalf("offset selection %v", got)
	}
	if got := BitmapToIndices(bitmap, 3, 13, nil); !slices.Equal(got, sel.Indices()) {
		t.Fatalf("BitmapToIndices %v", got)
	}
	if CountBits(bitmap, 0, 32) != 13 {
		t.Fatalf("CountBits %d", CountBits(bitmap, 0, 32))
	}
	sel, _ = SelectionFromBitmap([]byte{0xff, 0x03}, 0, 10)
	if !sel.All() || len(sel.Indices()) != 10 {
		t.Fatalf("all-set bitmap: All %v", sel.All())
	}
	sel, _ = SelectionFromBitmap([]byte{0xff, 0x00}, 8, 8)
	if !sel.None() {
		t.Fatalf("empty bitmap: None %v", sel.None())
	}
	if _, err := SelectionFromIndices([]int32{1, 1}, 5); err == nil {
		t.Errorf("repeated selection indices: want an error")
	}
	if _, err := SelectionFromIndices([]int32{4, 5}, 5); err == nil {
		t.Errorf("out-of-range selection index: want an error")
	}
	if sel, err := SelectionFromIndices([]int32{0, 1, 2}, 3); err != nil || !sel.All() {
		t.Errorf("complete selection indices: All %v, err %v", sel.All(), err)
	}
}

// TestBitmapIndicesLong crosses word boundaries at every bit offset.
func TestBitmapIndicesLong(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	bitmap := make([]byte, 64)
	for i := range bitmap {
		bitmap[i] = byte(r.Uint32())
	}
	bitmap[10], bitmap[11], bitmap[12], bitmap[13], bitmap[14], bitmap[15], bitmap[16], bitmap[17] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	for offset := range 16 {
		n := 64*8 - offset
		var want []int32
		for i := range n {
			if bitutil.BitIsSet(bitmap, offset+i) {
				want = append(want, int32(i))
			}
		}
		if got := BitmapToIndices(bitmap, offset, n, nil); !slices.Equal(got, want) {
			t.Fatalf("offset %d: indices differ", offset)
		}
	}
}

func TestKeepBitmap(t *testing.T) {
	mem := newTrackingAllocator(t)
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	vals := []any{true, false, nil, true, true, nil, false, true, true, true, nil}
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v.(bool))
		}
	}
	mask := b.NewBooleanArray()
	defer mask.Release()
	for _, off := range []int{0, 1, 3} {
		sliced := array.NewSlice(mask, int64(off), int64(len(vals))).(*array.Boolean)
		keep := KeepBitmap(sliced, nil)
		for i := range sliced.Len() {
			want := vals[off+i] == true
			if bitutil.BitIsSet(keep, i) != want {
				t.Errorf("offset %d row %d: keep %v, want %v", off, i, !want, want)
			}
		}
		sliced.Release()
	}
}
