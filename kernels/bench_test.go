package kernels

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
)

// The benchmarks run floe's kernels and arrow-go's compute functions side
// by side on the production allocator (C memory): 64 Ki rows, keeping
// 1 %, 50 % and 99 % of them at random.

const benchRows = 64 * 1024

func benchColumns(mem memory.Allocator) map[string]arrow.Array {
	r := rand.New(rand.NewPCG(1, 2))
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for range benchRows {
		if r.IntN(20) == 0 {
			ib.AppendNull()
			sb.AppendNull()
			continue
		}
		ib.Append(r.Int64())
		sb.Append(string(randomBytes(r, 4+r.IntN(16))))
	}
	defer ib.Release()
	defer sb.Release()
	return map[string]arrow.Array{"int64": ib.NewArray(), "string": sb.NewArray()}
}

func benchSelection(mem memory.Allocator, percent int) ([]byte, arrow.Array, arrow.Array) {
	r := rand.New(rand.NewPCG(3, uint64(percent)))
	keep := make([]byte, (benchRows+7)/8)
	mask := array.NewBooleanBuilder(mem)
	idx := array.NewInt32Builder(mem)
	defer mask.Release()
	defer idx.Release()
	for i := range benchRows {
		k := r.IntN(100) < percent
		mask.Append(k)
		if k {
			bitutil.SetBit(keep, i)
			idx.Append(int32(i))
		}
	}
	return keep, mask.NewArray(), idx.NewArray()
}

func BenchmarkFilter(b *testing.B) {
	mem := mallocator.NewMallocator()
	ctx := compute.WithAllocator(context.Background(), mem)
	for name, col := range benchColumns(mem) {
		for _, pct := range []int{1, 50, 99} {
			keep, mask, _ := benchSelection(mem, pct)
			b.Run(fmt.Sprintf("%s/%d%%/floe", name, pct), func(b *testing.B) {
				for b.Loop() {
					out, err := Filter(col, keep, mem)
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
			})
			b.Run(fmt.Sprintf("%s/%d%%/arrow", name, pct), func(b *testing.B) {
				for b.Loop() {
					out, err := compute.FilterArray(ctx, col, mask, *compute.DefaultFilterOptions())
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
			})
			mask.Release()
		}
		col.Release()
	}
}

func BenchmarkTake(b *testing.B) {
	mem := mallocator.NewMallocator()
	ctx := compute.WithAllocator(context.Background(), mem)
	for name, col := range benchColumns(mem) {
		for _, pct := range []int{1, 50, 99} {
			_, _, idxArr := benchSelection(mem, pct)
			ascending := idxArr.(*array.Int32).Int32Values()
			shuffled := append([]int32(nil), ascending...)
			rand.New(rand.NewPCG(5, 5)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			sb := array.NewInt32Builder(mem)
			sb.AppendValues(shuffled, nil)
			shuffledArr := sb.NewArray()
			sb.Release()
			for _, order := range []struct {
				name string
				idx  []int32
				arr  arrow.Array
			}{{"ascending", ascending, idxArr}, {"shuffled", shuffled, shuffledArr}} {
				b.Run(fmt.Sprintf("%s/%d%%/%s/floe", name, pct, order.name), func(b *testing.B) {
					for b.Loop() {
						out, err := Take(col, order.idx, mem)
						if err != nil {
							b.Fatal(err)
						}
						out.Release()
					}
				})
				b.Run(fmt.Sprintf("%s/%d%%/%s/arrow", name, pct, order.name), func(b *testing.B) {
					for b.Loop() {
						out, err := compute.TakeArray(ctx, col, order.arr)
						if err != nil {
							b.Fatal(err)
						}
						out.Release()
					}
				})
			}
			idxArr.Release()
			shuffledArr.Release()
		}
		col.Release()
	}
}

func BenchmarkConstantString(b *testing.B) {
	mem := mallocator.NewMallocator()
	value := "a partition value of 24b"
	b.Run("floe", func(b *testing.B) {
		for b.Loop() {
			out, err := Constant(arrow.BinaryTypes.String, value, benchRows, mem)
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
	})
	b.Run("builder", func(b *testing.B) {
		for b.Loop() {
			sb := array.NewStringBuilder(mem)
			sb.Reserve(benchRows)
			sb.ReserveData(benchRows * len(value))
			for range benchRows {
				sb.Append(value)
			}
			out := sb.NewArray()
			sb.Release()
			out.Release()
		}
	})
}

func BenchmarkHashRows(b *testing.B) {
	mem := mallocator.NewMallocator()
	cols := benchColumns(mem)
	defer cols["int64"].Release()
	defer cols["string"].Release()
	for _, name := range []string{"int64", "string"} {
		k, err := NewKeys([]arrow.Array{cols[name]})
		if err != nil {
			b.Fatal(err)
		}
		var dst []uint64
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				dst = k.Hash(7, dst)
			}
		})
	}
}
