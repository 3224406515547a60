package parquet

import (
	"encoding/binary"
	"fmt"
)

// Parquet's split-block bloom filter: a BloomFilterHeader (Thrift) followed
// by numBytes of 32-byte blocks, each eight 32-bit words. A value's
// XXH64 (seed 0) of its PLAIN encoding picks a block with its upper half
// and one bit per word with its lower half.

// maxBloomFilterBytes is the format's cap on a filter's bitset.
const maxBloomFilterBytes = 128 << 20

// bloomHeaderGuess is read when the writer did not store the filter's
// length: the header and, for small filters, the bitset too.
const bloomHeaderGuess = 32 << 10

var bloomSalts = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// bloomFilterHeader is the part of BloomFilterHeader a reader needs. The
// algorithm, hash and compression are unions; only the split-block
// algorithm, XXH64 and no compression are defined.
type bloomFilterHeader struct {
	NumBytes                         int32
	splitBlock, xxHash, uncompressed bool
}

// Usable reports whether the filter can be checked: the one defined
// algorithm, hash and compression, and a bitset of whole blocks.
func (h *bloomFilterHeader) Usable() bool {
	return h.splitBlock && h.xxHash && h.uncompressed && h.NumBytes > 0 && h.NumBytes%32 == 0 && h.NumBytes <= maxBloomFilterBytes
}

// ParseBloomFilterHeader reads the header at the start of buf and returns
// it with its length in bytes.
func ParseBloomFilterHeader(buf []byte) (bloomFilterHeader, int, error) {
	var h bloomFilterHeader
	r := &ThriftReader{Buf: buf}
	// unionMember records whether a union holds member 1, the only one
	// the format defines for each of the three.
	unionMember := func(dst *bool) error {
		return r.readStruct(func(id int16, typ byte) error {
			if id == 1 && typ == thriftStruct {
				*dst = true
			}
			return r.skip(typ)
		})
	}
	err := r.readStruct(func(id int16, typ byte) error {
		switch {
		case id == 1 && expect(typ, thriftI32):
			v, err := r.i32()
			h.NumBytes = v
			return err
		case id == 2 && typ == thriftStruct:
			return unionMember(&h.splitBlock)
		case id == 3 && typ == thriftStruct:
			return unionMember(&h.xxHash)
		case id == 4 && typ == thriftStruct:
			return unionMember(&h.uncompressed)
		}
		return r.skip(typ)
	})
	if err != nil {
		return h, 0, fmt.Errorf("bloom filter header: %w", err)
	}
	return h, r.Pos, nil
}

// SplitBlockBloom is a filter's bitset.
type SplitBlockBloom struct {
	Blocks []byte
	buf    []byte // pooled, holds blocks
}

// MayContain reports whether a value with hash h may have been added.
func (b *SplitBlockBloom) MayContain(h uint64) bool {
	numBlocks := uint64(len(b.Blocks) / 32)
	index := ((h >> 32) * numBlocks) >> 32
	block := b.Blocks[index*32 : index*32+32]
	key := uint32(h)
	for i, salt := range bloomSalts {
		bit := (key * salt) >> 27
		if binary.LittleEndian.Uint32(block[4*i:])&(1<<bit) == 0 {
			return false
		}
	}
	return true
}

func (b *SplitBlockBloom) Release() {
	PutBytes(b.buf)
	*b = SplitBlockBloom{}
}

// ReadBloomFilter reads a chunk's bloom filter with one ReadAt (two when
// the writer did not store its length and it is larger than a guess), or
// returns nil when there is none it can use.
func (f *File) ReadBloomFilter(c *ColumnChunk) (*SplitBlockBloom, error) {
	off := c.BloomFilterOffset
	if off <= 0 || off >= f.size {
		return nil, nil
	}
	span := int64(c.BloomFilterLength)
	if span <= 0 {
		span = min(bloomHeaderGuess, f.size-off)
	}
	if span > f.size-off || span > maxBloomFilterBytes+bloomHeaderGuess {
		return nil, nil
	}
	buf := GetBytes(int(span))
	b, err := f.loadBloomFilter(c, buf, off)
	if b == nil || b.buf == nil {
		PutBytes(buf)
	}
	return b, err
}

func (f *File) loadBloomFilter(c *ColumnChunk, buf []byte, off int64) (*SplitBlockBloom, error) {
	if ok, err := f.ReadFull(buf, off, "bloom filter"); !ok {
		return nil, err
	}
	h, hdrLen, err := ParseBloomFilterHeader(buf)
	if err != nil || !h.Usable() {
		return nil, nil
	}
	total := hdrLen + int(h.NumBytes)
	if total > len(buf) {
		if c.BloomFilterLength > 0 || int64(total) > f.size-off {
			return nil, nil
		}
		more := make([]byte, total)
		copy(more, buf)
		if ok, err := f.ReadFull(more[len(buf):], off+int64(len(buf)), "bloom filter"); !ok {
			return nil, err
		}
		return &SplitBlockBloom{Blocks: more[hdrLen:total]}, nil
	}
	return &SplitBlockBloom{Blocks: buf[hdrLen:total], buf: buf}, nil
}
