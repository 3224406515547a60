package parquetfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Parquet's split-block bloom filter (SBBF), as the format specifies it: a
// bitset of 32-byte blocks of eight 32-bit words; a value's XXH64 (seed 0)
// of its PLAIN encoding (a byte array's bytes without their length) picks
// a block with its upper 32 bits and one bit in each word with its lower
// 32 bits times the eight salts. reader/parquet checks filters the same
// way (bloom_filter.go); the two are tested against each other.

var bloomSalts = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

const (
	bloomMinBytes = 32
	// DefaultBloomMaxBytes caps one chunk's bitset (Java's
	// write.parquet.bloom-filter-max-bytes default).
	DefaultBloomMaxBytes = 1 << 20
)

// bloomBytes is the bitset size for ndv distinct values at false-positive
// probability fpp: the format's formula for SBBF (bits = -8·ndv /
// ln(1 - fpp^(1/8))), rounded up to a power of two within
// [32, the largest power of two ≤ maxBytes].
func bloomBytes(ndv int, fpp float64, maxBytes int) int {
	limit := max(bloomMinBytes, 1<<(bits.Len(uint(maxBytes))-1))
	m := -8 * float64(ndv) / math.Log(1-math.Pow(fpp, 1.0/8))
	n := int(math.Ceil(m / 8))
	if n <= bloomMinBytes {
		return bloomMinBytes
	}
	if n >= limit {
		return limit
	}
	return 1 << bits.Len(uint(n-1))
}

// bloomCapacity is the most distinct values a filter of maxBytes holds at
// fpp (the inverse of bloomBytes before rounding).
func bloomCapacity(fpp float64, maxBytes int) int {
	limit := max(bloomMinBytes, 1<<(bits.Len(uint(maxBytes))-1))
	return int(-float64(limit*8) * math.Log(1-math.Pow(fpp, 1.0/8)) / 8)
}

func bloomInsert(blocks []byte, h uint64) {
	numBlocks := uint64(len(blocks) / 32)
	index := ((h >> 32) * numBlocks) >> 32
	block := blocks[index*32 : index*32+32]
	key := uint32(h)
	for i, salt := range bloomSalts {
		w := binary.LittleEndian.Uint32(block[4*i:])
		binary.LittleEndian.PutUint32(block[4*i:], w|1<<((key*salt)>>27))
	}
}

// bloomBuilder gathers one chunk's value hashes. Up to setLimit
// distinct values it keeps the distinct hashes, so the filter is sized to
// them exactly at the end; past that it fills a maxBytes filter directly
// and, at the end, folds it to the size the distinct values it holds call
// for (estimated from its unset bits). Folding halves a power-of-two
// filter by OR-ing block pairs 2j and 2j+1 into block j: a value's block
// in the half-size filter is its block's index shifted right by one, and
// its bits within the block depend only on its hash's lower half, so no
// value is lost. Memory per chunk is at most maxBytes or the set's
// 16 bytes per value below setLimit.
type bloomBuilder struct {
	fpp      float64
	maxBytes int
	setLimit int
	set      hashSet
	full     []byte // the maxBytes filter once the set outgrew setLimit
	buf      [8]byte
}

// bloomSetLimit keeps a chunk's set of distinct hashes within 512 KiB
// (at most half full), so many open files with filters stay small.
const bloomSetLimit = 1 << 15

func newBloomBuilder(fpp float64, maxBytes int) *bloomBuilder {
	if maxBytes <= 0 {
		maxBytes = DefaultBloomMaxBytes
	}
	return &bloomBuilder{fpp: fpp, maxBytes: maxBytes, setLimit: min(bloomCapacity(fpp, maxBytes), bloomSetLimit)}
}

func (b *bloomBuilder) add(h uint64) {
	if b.full != nil {
		bloomInsert(b.full, h)
		return
	}
	b.set.add(h)
	if b.set.n > b.setLimit {
		b.full = make([]byte, bloomBytes(math.MaxInt32, b.fpp, b.maxBytes))
		b.set.each(func(h uint64) { bloomInsert(b.full, h) })
		b.set.clear()
	}
}

// folded is the full filter halved down to the size its estimated
// distinct values need. Each insert sets one of a block's 256 bits in each
// of its eight words, so a bit stays unset with probability
// exp(-n / (32·blocks)), and n ≈ -32·blocks·ln(unset fraction).
func (b *bloomBuilder) folded() []byte {
	blocks := b.full
	unset := 0
	for i := 0; i < len(blocks); i += 8 {
		unset += 64 - bits.OnesCount64(binary.LittleEndian.Uint64(blocks[i:]))
	}
	n := math.MaxInt32
	if unset > 0 {
		n = int(-float64(len(blocks)/32*32) * math.Log(float64(unset)/float64(len(blocks)*8)))
	}
	want := bloomBytes(n, b.fpp, b.maxBytes)
	for len(blocks) > want {
		half := len(blocks) / 2
		for j := 0; j < half; j += 32 {
			src := blocks[2*j : 2*j+64]
			for w := 0; w < 32; w += 8 {
				x := binary.LittleEndian.Uint64(src[w:]) | binary.LittleEndian.Uint64(src[32+w:])
				binary.LittleEndian.PutUint64(blocks[j+w:], x)
			}
		}
		blocks = blocks[:half]
	}
	return blocks
}

// addValues hashes v's values as PLAIN encodes them. Booleans get no
// filter (the caller never asks for one).
func (b *bloomBuilder) addValues(t format.Type, v *Values) {
	switch t {
	case format.Int32:
		for _, x := range v.I32 {
			binary.LittleEndian.PutUint32(b.buf[:4], uint32(x))
			b.add(xxhash.Sum64(b.buf[:4]))
		}
	case format.Int64:
		for _, x := range v.I64 {
			binary.LittleEndian.PutUint64(b.buf[:], uint64(x))
			b.add(xxhash.Sum64(b.buf[:]))
		}
	case format.Float:
		for _, x := range v.F32 {
			binary.LittleEndian.PutUint32(b.buf[:4], math.Float32bits(x))
			b.add(xxhash.Sum64(b.buf[:4]))
		}
	case format.Double:
		for _, x := range v.F64 {
			binary.LittleEndian.PutUint64(b.buf[:], math.Float64bits(x))
			b.add(xxhash.Sum64(b.buf[:]))
		}
	case format.ByteArray, format.FixedLenByteArray:
		for _, x := range v.Bytes {
			b.add(xxhash.Sum64(x))
		}
	}
}

// empty reports whether no value was added.
func (b *bloomBuilder) empty() bool { return b.full == nil && b.set.n == 0 }

// encode gives the filter as a file holds it: its Thrift header, then
// the bitset.
func (b *bloomBuilder) encode() ([]byte, error) {
	var blocks []byte
	if b.full != nil {
		blocks = b.folded()
	} else {
		blocks = make([]byte, bloomBytes(b.set.n, b.fpp, b.maxBytes))
		b.set.each(func(h uint64) { bloomInsert(blocks, h) })
	}
	h, err := thrift.Marshal(&thrift.CompactProtocol{}, &format.BloomFilterHeader{
		NumBytes:    int32(len(blocks)),
		Algorithm:   format.BloomFilterAlgorithm{Value: &format.SplitBlockAlgorithm{}},
		Hash:        format.BloomFilterHash{Value: &format.XxHash{}},
		Compression: format.BloomFilterCompression{Value: &format.BloomFilterUncompressed{}},
	})
	if err != nil {
		return nil, fmt.Errorf("parquetfile: bloom filter header: %w", err)
	}
	return append(h, blocks...), nil
}

// reset empties the builder for the next row group.
func (b *bloomBuilder) reset() {
	b.full = nil
	b.set.clear()
}

// hashSet is an open-addressing set of 64-bit hashes; the zero hash is
// kept aside, since 0 marks an empty slot.
type hashSet struct {
	slots []uint64
	n     int
	zero  bool
}

func (s *hashSet) add(h uint64) {
	if h == 0 {
		if !s.zero {
			s.zero = true
			s.n++
		}
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return
		case h:
			return
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}

func (s *hashSet) each(fn func(uint64)) {
	if s.zero {
		fn(0)
	}
	for _, h := range s.slots {
		if h != 0 {
			fn(h)
		}
	}
}

func (s *hashSet) clear() {
	clear(s.slots)
	s.n, s.zero = 0, false
}
