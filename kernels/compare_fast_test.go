package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The fast path agrees with the test-per-row path bit for bit: every
// fixed-width type it takes, every op, nulls, sliced arrays (offsets not
// a multiple of 8) and lengths not a multiple of 8, literals inside,
// at and outside the values.
func TestCompareFastAgreesWithGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	mem := memory.NewGoAllocator()
	for round := range 300 {
		n := 1 + r.IntN(70)
		if round%25 == 4 { // past the decimal path's 1024-row chunks
			n = 1000 + r.IntN(2100)
		}
		nulls := r.IntN(3) == 0
		var arr arrow.Array
		var lit any
		pick := func() int64 { return int64(r.IntN(9)) - 4 }
		switch round % 5 {
		case 0:
			b := array.NewInt32Builder(mem)
			for range n {
				if nulls && r.IntN(4) == 0 {
					b.AppendNull()
				} else {
					b.Append(int32(pick()))
				}
			}
			arr, lit = b.NewArray(), int32(pick())
		case 1:
			b := array.NewInt64Builder(mem)
			for range n {
				if nulls && r.IntN(4) == 0 {
					b.AppendNull()
				} else {
					b.Append(pick())
				}
			}
			arr, lit = b.NewArray(), pick()
		case 2:
			b := array.NewDate32Builder(mem)
			for range n {
				if nulls && r.IntN(4) == 0 {
					b.AppendNull()
				} else {
					b.Append(arrow.Date32(pick()))
				}
			}
			arr, lit = b.NewArray(), int32(pick())
		case 3:
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond})
			for range n {
				if nulls && r.IntN(4) == 0 {
					b.AppendNull()
				} else {
					b.Append(arrow.Timestamp(pick()))
				}
			}
			arr, lit = b.NewArray(), pick()
		case 4:
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 2})
			dec := func() decimal128.Num {
				if r.IntN(3) == 0 { // values past 64 bits, both signs
					return decimal128.New(pick(), uint64(r.Uint32()))
				}
				return decimal128.FromI64(pick())
			}
			for range n {
				if nulls && r.IntN(4) == 0 {
					b.AppendNull()
				} else {
					b.Append(dec())
				}
			}
			arr, lit = b.NewArray(), dec()
		}
		if r.IntN(2) == 0 && n > 3 {
			from := r.IntN(n / 2)
			sliced := array.NewSlice(arr, int64(from), int64(n-r.IntN(2)))
			arr.Release()
			arr = sliced
		}
		for op := CmpEq; op <= CmpGtEq; op++ {
			size := bitutil.BytesForBits(int64(arr.Len()))
			fast, general := make([]byte, size), make([]byte, size)
			if !compareFast(arr, op, []any{lit}, fast) {
				t.Fatalf("%s: the fast path declined op %d", arr.DataType(), op)
			}
			if err := compareGeneral(arr, op, []any{lit}, general); err != nil {
				t.Fatal(err)
			}
			for i := range arr.Len() {
				if bitutil.BitIsSet(fast, i) != bitutil.BitIsSet(general, i) {
					t.Fatalf("%s op %d lit %v row %d (offset %d): fast %v, general %v", arr.DataType(), op, lit, i, arr.Data().Offset(),
						bitutil.BitIsSet(fast, i), bitutil.BitIsSet(general, i))
				}
			}
		}
		arr.Release()
	}
}

func BenchmarkCompareDecimal(b *testing.B) {
	bld := array.NewDecimal128Builder(memory.NewGoAllocator(), &arrow.Decimal128Type{Precision: 15, Scale: 2})
	for i := range 64 * 1024 {
		bld.Append(decimal128.FromI64(int64(i % 1000)))
	}
	benchCompare(b, bld.NewArray(), decimal128.FromI64(500))
}

func BenchmarkCompareInt64(b *testing.B) {
	bld := array.NewInt64Builder(memory.NewGoAllocator())
	for i := range 64 * 1024 {
		bld.Append(int64(i % 1000))
	}
	benchCompare(b, bld.NewArray(), int64(500))
}

// benchCompare measures arr < lit on both paths.
func benchCompare(b *testing.B, arr arrow.Array, lit any) {
	defer arr.Release()
	dst := make([]byte, bitutil.BytesForBits(int64(arr.Len())))
	lits := []any{lit}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			compareFast(arr, CmpLt, lits, dst)
		}
	})
	b.Run("general", func(b *testing.B) {
		for b.Loop() {
			clear(dst)
			_ = compareGeneral(arr, CmpLt, lits, dst)
		}
	})
}
