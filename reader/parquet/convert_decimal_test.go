package parquet

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// The typed sign extensions agree with PutDecimal128 (the general path)
// on random values, the extremes, and sources at odd offsets (page values
// follow their levels at any byte offset).
func TestIntToDecimal128MatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 1000
	for _, width := range []int{4, 8} {
		src := make([]byte, width*n+3)
		vals := src[3:]
		for i := range n {
			v := r.Int64() >> r.IntN(64)
			switch i {
			case 0:
				v = math.MinInt64
			case 1:
				v = math.MaxInt64
			case 2:
				v = -1
			case 3:
				v = math.MinInt32
			case 4:
				v = math.MaxInt32
			}
			if width == 4 {
				binary.LittleEndian.PutUint32(vals[4*i:], uint32(int32(v)))
			} else {
				binary.LittleEndian.PutUint64(vals[8*i:], uint64(v))
			}
		}
		got, want := make([]byte, 16*n), make([]byte, 16*n)
		if width == 4 {
			int32ToDecimal128(got, vals, n)
		} else {
			int64ToDecimal128(got, vals, n)
		}
		for i := range n {
			var v int64
			if width == 4 {
				v = int64(int32(binary.LittleEndian.Uint32(vals[4*i:])))
			} else {
				v = int64(binary.LittleEndian.Uint64(vals[8*i:]))
			}
			PutDecimal128(want[16*i:], v, 1)
		}
		for i := range n {
			if string(got[16*i:16*i+16]) != string(want[16*i:16*i+16]) {
				t.Fatalf("width %d, value %d: % x, want % x", width, i, got[16*i:16*i+16], want[16*i:16*i+16])
			}
		}
	}
}

func BenchmarkIntToDecimal128(b *testing.B) {
	const n = 64 << 10
	src, dst := make([]byte, 8*n+1), make([]byte, 16*n)
	b.SetBytes(16 * n)
	for b.Loop() {
		int64ToDecimal128(dst, src[1:], n)
	}
}
