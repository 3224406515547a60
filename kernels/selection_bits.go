package kernels

import "math/bits"

// Bit deposit and extract over selection bitmaps (LSB order): what the
// late-materialising reader does when one conjunct's result, computed on
// the rows still kept, narrows the rows of the window, and when a column
// decoded for some rows is cut down to fewer. Word at a time: a word of
// the outer bitmap that is all set or all clear costs one step, a mixed
// one a step per set bit. The per-row loops they replace were a quarter
// of a TPC-H Q6 scan's CPU time over DuckDB's files.

// DepositBits clears the set bits of keep (n bits, kept of them set)
// whose rank among the set bits is clear in pass (kept bits), and returns
// how many stay set: keep's set positions take pass's bits in order.
func DepositBits(keep []byte, n, kept int, pass []byte) int {
	j, left := 0, 0
	for base := 0; base < n; base += 64 {
		w := bitmapWord(keep, base, n)
		if w == 0 {
			continue
		}
		k := bits.OnesCount64(w)
		p := bitsAt(pass, j, k, kept)
		j += k
		var out uint64
		if k == 64 {
			out = p
		} else {
			// branch-free: pass bits are as good as random
			for m := w; m != 0; m &= m - 1 {
				out |= m & -m & -(p & 1)
				p >>= 1
			}
		}
		left += bits.OnesCount64(out)
		putBitmapWord(keep, base, n, out)
	}
	return left
}

// ExtractBits returns the bits of inner at the positions outer sets
// among n bits, packed in order into a bitmap of outerKept bits; an
// empty outer selects all n (and outerKept is n).
func ExtractBits(outer []byte, n int, inner []byte, outerKept int) []byte {
	if len(outer) == 0 {
		out := make([]byte, (n+7)/8)
		copy(out, inner[:(n+7)/8])
		if r := n & 7; r != 0 {
			out[len(out)-1] &= 1<<r - 1
		}
		return out
	}
	out := make([]byte, (outerKept+7)/8+8)
	j := 0
	for base := 0; base < n; base += 64 {
		w := bitmapWord(outer, base, n)
		if w == 0 {
			continue
		}
		x := bitmapWord(inner, base, n)
		var got uint64
		k := 64
		if w == ^uint64(0) {
			got = x
		} else {
			k = 0
			for m := w; m != 0; m &= m - 1 {
				got |= (x >> bits.TrailingZeros64(m) & 1) << k
				k++
			}
		}
		appendBits(out, j, got, k)
		j += k
	}
	return out[:(outerKept+7)/8]
}

// bitsAt reads k (<= 64) bits of b starting at bit j, of a bitmap of
// size bits; bits past size read as clear.
func bitsAt(b []byte, j, k, size int) uint64 {
	w := bitmapWord(b, j&^7, size) >> (j & 7)
	if have := 64 - j&7; have < k {
		w |= bitmapWord(b, j&^7+64, size) << have
	}
	if k < 64 {
		w &= 1<<k - 1
	}
	return w
}

// appendBits ors the k low bits of v into out at bit j; out has 8 bytes
// of slack past the last whole byte written.
func appendBits(out []byte, j int, v uint64, k int) {
	if k == 0 {
		return
	}
	at, shift := j>>3, j&7
	lo := v << shift
	for i := 0; i < 8 && at+i < len(out); i++ {
		out[at+i] |= byte(lo >> (8 * i))
	}
	if shift != 0 && k+shift > 64 && at+8 < len(out) {
		out[at+8] |= byte(v >> (64 - shift))
	}
}

// putBitmapWord stores w as bits [base, base+64) of bitmap, leaving the
// bits at or past n as they are.
func putBitmapWord(bitmap []byte, base, n int, w uint64) {
	first := base >> 3
	for k := 0; k < 8 && first+k < len(bitmap) && base+8*k < n; k++ {
		b := byte(w >> (8 * k))
		if rest := n - base - 8*k; rest < 8 {
			mask := byte(1<<rest - 1)
			b = bitmap[first+k]&^mask | b&mask
		}
		bitmap[first+k] = b
	}
}
