package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzSelectAndTake drives Filter, Select (with a mid-byte bitmap) and
// Take with arbitrary bitmaps and index lists over sliced arrays of flat
// and nested types, and checks them against arrow-go's slice-and-concat.
func FuzzSelectAndTake(f *testing.F) {
	f.Add([]byte{0xff, 0x00, 0xaa}, uint8(0), uint8(3))
	f.Add([]byte{0x01, 0x80, 0xfe, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint8(9), uint8(0))
	f.Add([]byte{}, uint8(1), uint8(255))

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := rand.New(rand.NewPCG(42, 42))
	var arrays []arrow.Array
	for _, dt := range []arrow.DataType{
		arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String,
		&arrow.FixedSizeBinaryType{ByteWidth: 3}, structType, listOfStruct,
		arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64),
	} {
		arrays = append(arrays, randomArray(mem, dt, 200, r, 0.3))
	}

	f.Fuzz(func(t *testing.T, data []byte, shift uint8, cut uint8) {
		before := mem.CurrentAlloc()
		for _, full := range arrays {
			start := int64(cut) % int64(full.Len())
			arr := array.NewSlice(full, start, int64(full.Len()))
			n := arr.Len()
			keep := make([]byte, (n+7)/8)
			copy(keep, data)
			var idx []int32
			for i := range n {
				if bitutil.BitIsSet(keep, i) {
					idx = append(idx, int32(i))
				}
			}
			want := takeOracle(t, mem, arr, idx)
			got, err := Filter(arr, keep, mem)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, want, got)
			got.Release()

			off := int(shift % 64)
			shifted := make([]byte, (off+n+7)/8)
			bitutil.CopyBitmap(keep, 0, n, shifted, off)
			sel, err := SelectionFromBitmap(shifted, off, n)
			if err != nil {
				t.Fatal(err)
			}
			got, err = Select(arr, sel, mem)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, want, got)
			got.Release()
			want.Release()

			// The same bytes as arbitrary take positions.
			take := make([]int32, len(data))
			for j, b := range data {
				take[j] = int32(int(b)*7+j) % int32(n)
			}
			want = takeOracle(t, mem, arr, take)
			got, err = Take(arr, take, mem)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, want, got)
			got.Release()
			want.Release()
			arr.Release()
		}
		if mem.CurrentAlloc() != before {
			t.Fatalf("leaked %d bytes", mem.CurrentAlloc()-before)
		}
	})
}
