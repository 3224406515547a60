package kernels

import (
	"encoding/binary"
	"math/bits"
)

// SetRuns calls fn for each maximal run [start, end) of set bits among the
// first n bits of bitmap (LSB order), in ascending order, stopping at the
// first error. It steps a 64-bit word at a time with bit scans, so a
// sparse or a dense selection costs little more than one step per run.
func SetRuns(bitmap []byte, n int, fn func(start, end int) error) error {
	runStart := -1
	for base := 0; base < n; base += 64 {
		w := bitmapWord(bitmap, base, n)
		pos := 0
		for pos < 64 {
			if runStart < 0 {
				rest := w >> pos
				if rest == 0 {
					break
				}
				pos += bits.TrailingZeros64(rest)
				runStart = base + pos
				continue
			}
			pos += bits.TrailingZeros64(^(w >> pos))
			if pos == 64 {
				break // the run may go on in the next word
			}
			if err := fn(runStart, base+pos); err != nil {
				return err
			}
			runStart = -1
		}
	}
	if runStart >= 0 {
		return fn(runStart, n)
	}
	return nil
}

// bitmapWord is bits [base, base+64) of bitmap, those at or past n cleared;
// base is a multiple of 8. A base at or past n gives 0: bitsAt reads the
// word after a bitmap's last one.
func bitmapWord(bitmap []byte, base, n int) uint64 {
	if base >= n {
		return 0
	}
	var w uint64
	first := base >> 3
	if first+8 <= len(bitmap) {
		w = binary.LittleEndian.Uint64(bitmap[first:])
	} else {
		for k := 0; first+k < len(bitmap); k++ {
			w |= uint64(bitmap[first+k]) << (8 * k)
		}
	}
	if left := n - base; left < 64 {
		w &= 1<<left - 1
	}
	return w
}

// CountRuns returns the number of maximal runs of set bits among the first
// n bits of bitmap: the run starts, a set bit whose predecessor is clear,
// counted a word at a time.
func CountRuns(bitmap []byte, n int) int {
	runs := 0
	var carry uint64 // the last bit of the previous word
	for base := 0; base < n; base += 64 {
		w := bitmapWord(bitmap, base, n)
		runs += bits.OnesCount64(w &^ (w<<1 | carry))
		carry = w >> 63
	}
	return runs
}
