package kernels

import (
	"math/rand/v2"
	"testing"
)

func TestSetRunsMatchesBitByBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 2000 {
		n := rng.IntN(300)
		density := rng.Float64()
		bitmap := make([]byte, (n+7)/8+rng.IntN(3))
		for i := range bitmap {
			bitmap[i] = byte(rng.IntN(256)) // bits past n must be ignored
		}
		for i := range n {
			if rng.Float64() < density {
				bitmap[i>>3] |= 1 << (i & 7)
			} else {
				bitmap[i>>3] &^= 1 << (i & 7)
			}
		}
		var want [][2]int
		for i := 0; i < n; {
			if bitmap[i>>3]&(1<<(i&7)) == 0 {
				i++
				continue
			}
			j := i
			for j < n && bitmap[j>>3]&(1<<(j&7)) != 0 {
				j++
			}
			want = append(want, [2]int{i, j})
			i = j
		}
		var got [][2]int
		if err := SetRuns(bitmap, n, func(s, e int) error { got = append(got, [2]int{s, e}); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("trial %d (n=%d): %d runs, want %d: %v vs %v", trial, n, len(got), len(want), got, want)
		}
		if c := CountRuns(bitmap, n); c != len(want) {
			t.Fatalf("trial %d (n=%d): CountRuns = %d, want %d", trial, n, c, len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d (n=%d): run %d is %v, want %v", trial, n, i, got[i], want[i])
			}
		}
	}
}

func BenchmarkSetRunsSparse(b *testing.B) {
	n := 65536
	bitmap := make([]byte, n/8)
	for i := 0; i < n; i += 97 {
		bitmap[i>>3] |= 1 << (i & 7)
	}
	for b.Loop() {
		runs := 0
		_ = SetRuns(bitmap, n, func(s, e int) error { runs++; return nil })
	}
}
