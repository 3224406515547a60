package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/parquet-go/bitpack"
)

// The RLE/bit-packed hybrid encoding carries levels, dictionary indexes and
// v2 booleans: a sequence of runs, each either one repeated value or groups
// of 8 bit-packed values.

var errHybridShort = errors.New("RLE/bit-packed data ends before all values")

func hybridHeader(src []byte, pos int) (header uint64, next int, err error) {
	v, n := binary.Uvarint(src[pos:])
	if n <= 0 {
		return 0, 0, errHybridShort
	}
	return v, pos + n, nil
}

func rleValue(src []byte, pos, width int) (uint32, error) {
	if pos+width > len(src) {
		return 0, errHybridShort
	}
	var v uint32
	for i := range width {
		v |= uint32(src[pos+i]) << (8 * i)
	}
	return v, nil
}

// hybridAllEqual reports whether the first run is an RLE run of at least n
// copies of want: the common "no nulls" definition levels, which we then
// need not expand.
func hybridAllEqual(src []byte, bitWidth, n int, want uint32) bool {
	if len(src) == 0 {
		return false
	}
	h, pos, err := hybridHeader(src, 0)
	if err != nil || h&1 != 0 || h>>1 < uint64(n) {
		return false
	}
	v, err := rleValue(src, pos, (bitWidth+7)/8)
	return err == nil && v == want
}

// hybridCount counts the values the runs in src encode, stopping at limit,
// so a page header's value count is checked before buffers are sized by it.
func hybridCount(src []byte, bitWidth, limit int) int {
	if bitWidth == 0 {
		return limit
	}
	n, pos := 0, 0
	for n < limit && pos < len(src) {
		h, next, err := hybridHeader(src, pos)
		if err != nil {
			break
		}
		pos = next
		if h&1 == 0 {
			pos += (bitWidth + 7) / 8
			n += int(min(h>>1, uint64(limit-n)))
			continue
		}
		groups := h >> 1
		if groups > uint64(len(src)-pos)/uint64(bitWidth) {
			// a short last run still holds what its bytes hold
			n += min((len(src)-pos)*8/bitWidth, limit-n)
			break
		}
		pos += int(groups) * bitWidth
		n += int(min(groups*8, uint64(limit-n)))
	}
	return min(n, limit)
}

// decodeHybridU8 fills dst with values of at most 8 bits.
func decodeHybridU8(dst []uint8, src []byte, bitWidth int) error {
	if bitWidth < 0 || bitWidth > 8 {
		return fmt.Errorf("level bit width %d out of range", bitWidth)
	}
	if bitWidth == 0 {
		clear(dst)
		return nil
	}
	mask := uint64(1)<<bitWidth - 1
	out, pos := 0, 0
	for out < len(dst) {
		if pos >= len(src) {
			return errHybridShort
		}
		h, next, err := hybridHeader(src, pos)
		if err != nil {
			return err
		}
		pos = next
		if h&1 == 0 {
			count := min(h>>1, uint64(len(dst)-out))
			v, err := rleValue(src, pos, (bitWidth+7)/8)
			if err != nil {
				return err
			}
			pos += (bitWidth + 7) / 8
			// Some writers (parquet-go for booleans) store a run of ones
			// as 0xff; the value is the low bitWidth bits.
			fill(dst[out:out+int(count)], uint8(uint64(v)&mask))
			out += int(count)
			continue
		}
		groups := h >> 1
		if groups > uint64(len(src)-pos)/uint64(bitWidth) {
			return errHybridShort
		}
		for g := uint64(0); g < groups && out < len(dst); g++ {
			var word uint64
			for i := range bitWidth {
				word |= uint64(src[pos+i]) << (8 * i)
			}
			pos += bitWidth
			k := min(8, len(dst)-out)
			for i := range k {
				dst[out+i] = uint8(word >> (uint(i) * uint(bitWidth)) & mask)
			}
			out += k
		}
		if out >= len(dst) {
			break
		}
	}
	return nil
}

// decodeBitPackedLegacyU8 reads the deprecated BIT_PACKED level encoding:
// values packed from the most significant bit, no run headers.
func decodeBitPackedLegacyU8(dst []uint8, src []byte, bitWidth int) (int, error) {
	need := (len(dst)*bitWidth + 7) / 8
	if need > len(src) {
		return 0, errHybridShort
	}
	for i := range dst {
		var v uint8
		for b := range bitWidth {
			bit := i*bitWidth + b
			v = v<<1 | (src[bit/8]>>(7-uint(bit%8)))&1
		}
		dst[i] = v
	}
	return need, nil
}

// hybridI32 decodes dictionary indexes. It keeps a padded scratch so the
// vectorised unpacker may read past the end of a run.
type hybridI32 struct {
	pad []byte
}

func (h *hybridI32) decode(dst []int32, src []byte, bitWidth int) error {
	if bitWidth < 0 || bitWidth > 32 {
		return fmt.Errorf("dictionary index bit width %d out of range", bitWidth)
	}
	if bitWidth == 0 {
		clear(dst)
		return nil
	}
	width := (bitWidth + 7) / 8
	out, pos := 0, 0
	for out < len(dst) {
		if pos >= len(src) {
			return errHybridShort
		}
		hdr, next, err := hybridHeader(src, pos)
		if err != nil {
			return err
		}
		pos = next
		if hdr&1 == 0 {
			count := min(hdr>>1, uint64(len(dst)-out))
			v, err := rleValue(src, pos, width)
			if err != nil {
				return err
			}
			pos += width
			fill(dst[out:out+int(count)], int32(v))
			out += int(count)
			continue
		}
		groups := hdr >> 1
		if groups > uint64(len(src)-pos)/uint64(bitWidth) {
			return errHybridShort
		}
		runBytes := int(groups) * bitWidth
		n := min(int(groups)*8, len(dst)-out)
		need := bitpack.ByteCount(uint(bitWidth*n)) + bitpack.PaddingInt32
		packed := src[pos:]
		if len(packed) < need {
			h.pad = append(h.pad[:0], src[pos:pos+runBytes]...)
			for len(h.pad) < need {
				h.pad = append(h.pad, 0)
			}
			packed = h.pad
		}
		bitpack.Unpack(dst[out:out+n], packed, uint(bitWidth))
		out += n
		pos += runBytes
	}
	return nil
}

func fill[T any](s []T, v T) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for i := 1; i < len(s); i *= 2 {
		copy(s[i:], s[:i])
	}
}

// bitWidthOf is the number of bits needed for values up to max.
func bitWidthOf(max int) int { return bits.Len(uint(max)) }
