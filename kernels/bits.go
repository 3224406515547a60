package kernels

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// loadBits returns n ≤ 64 bits of src starting at bit pos, in LSB order.
// Bits past the end of src read as zero. The common case is small enough
// to inline.
func loadBits(src []byte, pos, n int) uint64 {
	b, shift := pos>>3, uint(pos&7)
	if b+9 > len(src) {
		return loadBitsTail(src, pos, n)
	}
	// A shift by 64 (shift 0) yields 0 in Go, so no branch is needed.
	w := binary.LittleEndian.Uint64(src[b:])>>shift | uint64(src[b+8])<<(64-shift)
	if n < 64 {
		w &= 1<<uint(n) - 1
	}
	return w
}

// loadBitsTail is loadBits near the end of src, byte by byte.
func loadBitsTail(src []byte, pos, n int) uint64 {
	b, shift := pos>>3, uint(pos&7)
	need := (int(shift) + n + 7) >> 3
	var lo, hi uint64
	for i := 0; i < need && b+i < len(src); i++ {
		if i < 8 {
			lo |= uint64(src[b+i]) << (8 * i)
		} else {
			hi = uint64(src[b+i])
		}
	}
	w := lo>>shift | hi<<(64-shift)
	if n < 64 {
		w &= 1<<uint(n) - 1
	}
	return w
}

// storeBits writes the low n bits of w as whole bytes at dst[byteOff:];
// the bits of the last byte past n are cleared.
func storeBits(dst []byte, byteOff int, w uint64, n int) {
	if n == 64 {
		binary.LittleEndian.PutUint64(dst[byteOff:], w)
		return
	}
	for i := 0; i*8 < n; i++ {
		dst[byteOff+i] = byte(w >> (8 * i))
	}
}

// gatherBits writes bit srcOff+idx[j] of src to bit j of dst, for every j;
// dst must hold (len(idx)+7)/8 bytes and every one of them is written.
// With sorted (strictly ascending) indices, 64 contiguous positions are
// moved as one word.
func gatherBits(dst, src []byte, srcOff int, idx []int32, sorted bool) {
	n := len(idx)
	for j := 0; j < n; j += 64 {
		width := min(64, n-j)
		var w uint64
		if sorted && width == 64 && idx[j+63]-idx[j] == 63 {
			w = loadBits(src, srcOff+int(idx[j]), 64)
		} else {
			for k, i := range idx[j : j+width] {
				p := srcOff + int(i)
				w |= uint64(src[p>>3]>>uint(p&7)&1) << uint(k)
			}
		}
		storeBits(dst, j>>3, w, width)
	}
}

// bitmapIndices writes the positions of the set bits among the n bits of
// bitmap starting at offset into dst (reusing its capacity), ascending.
// count must be the number of set bits. Dense words are walked run by run
// of set bits, sparse ones bit by bit.
func bitmapIndices(bitmap []byte, offset, n, count int, dst []int32) []int32 {
	if cap(dst) < count {
		dst = make([]int32, count)
	}
	dst = dst[:count]
	k := 0
	for base := 0; base < n; base += 64 {
		w := loadBits(bitmap, offset+base, min(64, n-base))
		if bits.OnesCount64(w) <= 40 {
			for w != 0 {
				dst[k] = int32(base + bits.TrailingZeros64(w))
				k++
				w &= w - 1
			}
			continue
		}
		for w != 0 {
			start := bits.TrailingZeros64(w)
			end := 64
			if rest := ^w >> uint(start); rest != 0 {
				end = start + bits.TrailingZeros64(rest)
			}
			run := dst[k : k+end-start]
			for t := range run {
				run[t] = int32(base + start + t)
			}
			k += end - start
			if end == 64 {
				break
			}
			w &^= 1<<uint(end) - 1
		}
	}
	return dst
}

// pext8 returns the table of 8-bit parallel bit extraction:
// pext8()[mask][value] holds value's bits at the mask's set positions,
// packed low. 64 KiB, built on first use.
var pext8 = sync.OnceValue(func() *[256][256]byte {
	t := new([256][256]byte)
	for m := range 256 {
		for v := range 256 {
			var out, k byte
			for b := range 8 {
				if m>>b&1 == 1 {
					out |= byte(v>>b&1) << k
					k++
				}
			}
			t[m][v] = out
		}
	}
	return t
})

// compressBits writes to dst, in order, the bits of src (from bit srcOff)
// at the rows whose bit is set in mask (from bit maskOff), over n rows: a
// software PEXT, a byte-table lookup per 8 rows. Every byte of dst up to
// the last written bit is written.
func compressBits(dst, src []byte, srcOff int, mask []byte, maskOff, n int) {
	table := pext8()
	var acc uint64
	fill, out := 0, 0
	for base := 0; base < n; base += 64 {
		width := min(64, n-base)
		m := loadBits(mask, maskOff+base, width)
		if m == 0 {
			continue
		}
		v := loadBits(src, srcOff+base, width)
		var kept uint64
		nb := 0
		if m == ^uint64(0) {
			kept, nb = v, 64
		} else {
			for b := uint(0); b < 64; b += 8 {
				mb := byte(m >> b)
				kept |= uint64(table[mb][byte(v>>b)]) << (uint(nb) & 63)
				nb += bits.OnesCount8(mb)
			}
		}
		acc |= kept << uint(fill)
		if fill+nb >= 64 {
			binary.LittleEndian.PutUint64(dst[out:], acc)
			out += 8
			acc = kept >> uint(64-fill) // 0 when fill is 0: Go shifts past the width give 0
			fill = fill + nb - 64
		} else {
			fill += nb
		}
	}
	for i := 0; i*8 < fill; i++ {
		dst[out+i] = byte(acc >> (8 * i))
	}
}
