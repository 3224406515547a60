package kernels

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Mixing constants: odd 64-bit values with well-spread bits (splitmix64's
// multipliers and the golden ratio).
const (
	mixK0 = 0x9e3779b97f4a7c15
	mixK1 = 0xbf58476d1ce4e5b9
	mixK2 = 0x94d049bb133111eb
)

// mix folds the 128-bit product of its scrambled inputs. a is fed back so
// that a value cancelling one factor still leaves the running hash.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a^mixK0, b^mixK1)
	return hi ^ lo ^ a
}

// hashBytes hashes a byte string to 64 bits. Short tails are read as
// overlapping words and the length is mixed in, so each length's tail
// encoding is injective.
func hashBytes(b []byte) uint64 {
	h := uint64(len(b)) * mixK2
	for len(b) > 16 {
		h = mix(h^binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]))
		b = b[16:]
	}
	x, y := tailWords(b)
	return mix(h^x, y^uint64(len(b)))
}

// tailWords reads at most 16 bytes as two words of overlapping reads:
// for each length the pair holds every byte, so two strings of one
// length are equal exactly when their pairs are.
func tailWords(b []byte) (x, y uint64) {
	switch n := len(b); {
	case n >= 8:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		x, y = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		x = uint64(b[0])<<16 | uint64(b[n/2])<<8 | uint64(b[n-1])
	}
	return x, y
}

// canonicalFloat maps equal keys to equal bits: -0.0 to 0.0 and every NaN
// to one NaN.
func canonicalFloat(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}
