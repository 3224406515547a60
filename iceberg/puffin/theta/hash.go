package theta

import (
	"encoding/binary"
	"math"

	"github.com/twmb/murmur3"
)

// DefaultSeed is DataSketches' default update seed, the one Iceberg's
// sketches use.
const DefaultSeed = 9001

// Hash is the theta hash of data: MurmurHash3_x64_128 with both halves
// seeded by DefaultSeed, the first 64 bits shifted right by one so that
// the hash is a non-negative int64.
func Hash(data []byte) int64 {
	h1, _ := murmur3.SeedSum128(DefaultSeed, DefaultSeed, data)
	return int64(h1 >> 1)
}

// HashString is Hash of the string's bytes (UTF-8), without a copy.
func HashString(s string) int64 {
	h1, _ := murmur3.SeedStringSum128(DefaultSeed, DefaultSeed, s)
	return int64(h1 >> 1)
}

// HashUint64 is Hash of v's 8 little-endian bytes (Iceberg's binary form of
// a long, a double's bits, a timestamp).
func HashUint64(v uint64) int64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return Hash(b[:])
}

// HashUint32 is Hash of v's 4 little-endian bytes (an int, a date, a
// float's bits).
func HashUint32(v uint32) int64 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return Hash(b[:])
}

// seedHash is the 16-bit check a serialised sketch carries of the seed it
// was hashed with: the low 16 bits of MurmurHash3 (seed 0) of the seed as
// one little-endian long. Sketches of different seeds must not be merged.
func seedHash(seed uint64) uint16 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h1, _ := murmur3.SeedSum128(0, 0, b[:])
	return uint16(h1)
}

var defaultSeedHash = seedHash(DefaultSeed)

// maxTheta is theta = 1.0: every hash is kept.
const maxTheta = math.MaxInt64

// estimate is Java's Sketch.estimate: the retained count divided by theta
// as a fraction.
func estimate(theta int64, count int) float64 {
	return float64(count) * (float64(maxTheta) / float64(theta))
}
