package kernels

import (
	"math/rand/v2"
	"testing"
)

// naiveDeposit and naiveExtract are the bit-by-bit definitions.
func naiveDeposit(keep []byte, n int, pass []byte) int {
	j, left := 0, 0
	for i := range n {
		if keep[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		if pass[j>>3]&(1<<(j&7)) == 0 {
			keep[i>>3] &^= 1 << (i & 7)
		} else {
			left++
		}
		j++
	}
	return left
}

func naiveExtract(outer []byte, n int, inner []byte, outerKept int) []byte {
	out := make([]byte, (outerKept+7)/8)
	j := 0
	for i := range n {
		if len(outer) > 0 && outer[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		if inner[i>>3]&(1<<(i&7)) != 0 {
			out[j>>3] |= 1 << (j & 7)
		}
		j++
	}
	return out
}

// randomBitmap has n bits set with probability density, in runs when
// runs is set (a clustered filter), with junk in the bits past n.
func randomBitmap(r *rand.Rand, n int, density float64, runs bool) []byte {
	b := make([]byte, (n+7)/8)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	on := r.Float64() < density
	for i := range n {
		if !runs || r.IntN(50) == 0 {
			on = r.Float64() < density
		}
		if on {
			b[i>>3] |= 1 << (i & 7)
		} else {
			b[i>>3] &^= 1 << (i & 7)
		}
	}
	return b
}

func TestDepositAndExtractMatchBitByBit(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 3000 {
		n := r.IntN(700)
		if trial%100 == 0 {
			n = 64 * r.IntN(12)
		}
		density := []float64{0, 0.02, 0.5, 0.97, 1}[r.IntN(5)]
		runs := r.IntN(2) == 0
		keep := randomBitmap(r, n, density, runs)
		kept := CountBits(keep, 0, n)
		pass := randomBitmap(r, kept, []float64{0, 0.3, 1}[r.IntN(3)], runs)
		inner := randomBitmap(r, n, 0.5, runs)

		got := ExtractBits(keep, n, inner, kept)
		want := naiveExtract(keep, n, inner, kept)
		if string(got) != string(want) {
			t.Fatalf("trial %d n %d: ExtractBits % x, want % x", trial, n, got, want)
		}
		if all := ExtractBits(nil, n, inner, n); string(all) != string(naiveExtract(nil, n, inner, n)) {
			t.Fatalf("trial %d n %d: ExtractBits over all rows % x", trial, n, all)
		}

		a, b := append([]byte(nil), keep...), append([]byte(nil), keep...)
		if l1, l2 := DepositBits(a, n, kept, pass), naiveDeposit(b, n, pass); l1 != l2 || string(a) != string(b) {
			t.Fatalf("trial %d n %d: DepositBits left %d % x, want %d % x", trial, n, l1, a, l2, b)
		}
	}
}

func BenchmarkDepositBits(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 64 << 10
	keep := randomBitmap(r, n, 0.5, false)
	kept := CountBits(keep, 0, n)
	pass := randomBitmap(r, kept, 0.3, false)
	work := make([]byte, len(keep))
	for b.Loop() {
		copy(work, keep)
		DepositBits(work, n, kept, pass)
	}
}

func BenchmarkDepositBitByBit(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 64 << 10
	keep := randomBitmap(r, n, 0.5, false)
	kept := CountBits(keep, 0, n)
	pass := randomBitmap(r, kept, 0.3, false)
	work := make([]byte, len(keep))
	for b.Loop() {
		copy(work, keep)
		naiveDeposit(work, n, pass)
	}
}
