package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/parquet-go/bitpack"
)

// The DELTA_* encodings, decoded here rather than through parquet-go so
// that header counts are checked against the page before anything is
// allocated, and so DELTA_LENGTH_BYTE_ARRAY strings are copied once, from
// the page straight into the Arrow buffer.

var errDeltaShort = errors.New("delta-encoded values end early")

type deltaDecoder struct {
	pad []byte // a miniblock copied with the padding the unpacker reads past
}

// binaryPacked decodes a DELTA_BINARY_PACKED run of at most maxValues
// values into dst (64-bit wrapping arithmetic: a 32-bit column keeps the
// low half). It returns the values and the bytes consumed.
func (d *deltaDecoder) binaryPacked(dst []uint64, src []byte, maxValues int) ([]uint64, int, error) {
	pos := 0
	uv := func() (uint64, error) {
		v, n := binary.Uvarint(src[pos:])
		if n <= 0 {
			return 0, errDeltaShort
		}
		pos += n
		return v, nil
	}
	zz := func() (uint64, error) {
		v, err := uv()
		return uint64(int64(v>>1) ^ -int64(v&1)), err
	}
	blockSize, err := uv()
	if err != nil {
		return nil, 0, err
	}
	miniBlocks, err := uv()
	if err != nil {
		return nil, 0, err
	}
	total, err := uv()
	if err != nil {
		return nil, 0, err
	}
	first, err := zz()
	if err != nil {
		return nil, 0, err
	}
	if total > uint64(maxValues) {
		return nil, 0, fmt.Errorf("delta header announces %d values, the page holds %d", total, maxValues)
	}
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<20 || miniBlocks == 0 || blockSize%miniBlocks != 0 || (blockSize/miniBlocks)%32 != 0 {
		return nil, 0, fmt.Errorf("bad delta block layout (%d values in %d miniblocks)", blockSize, miniBlocks)
	}
	dst = dst[:0]
	if total == 0 {
		return dst, pos, nil
	}
	n := int(total)
	if cap(dst) < n {
		dst = make([]uint64, 0, n)
	}
	dst = append(dst, first)
	prev := first
	perMini := int(blockSize / miniBlocks)
	for len(dst) < n {
		minDelta, err := zz()
		if err != nil {
			return nil, 0, err
		}
		if uint64(len(src)-pos) < miniBlocks {
			return nil, 0, errDeltaShort
		}
		widths := src[pos : pos+int(miniBlocks)]
		pos += int(miniBlocks)
		for _, bw := range widths {
			if len(dst) >= n {
				break
			}
			if bw > 64 {
				return nil, 0, fmt.Errorf("delta miniblock bit width %d", bw)
			}
			count := min(perMini, n-len(dst))
			full := perMini * int(bw) / 8
			need := (count*int(bw) + 7) / 8
			if len(src)-pos < need {
				return nil, 0, errDeltaShort
			}
			out := dst[len(dst) : len(dst)+count]
			d.unpack(out, src[pos:], int(bw), need)
			for i, v := range out {
				prev += minDelta + v
				out[i] = prev
			}
			dst = dst[:len(dst)+count]
			// the last miniblock is padded to full size by conforming writers
			pos += min(full, len(src)-pos)
		}
	}
	return dst, pos, nil
}

func (d *deltaDecoder) unpack(out []uint64, src []byte, bw, need int) {
	if bw == 0 {
		clear(out)
		return
	}
	if len(src) < need+bitpack.PaddingInt64 {
		d.pad = append(d.pad[:0], src[:need]...)
		d.pad = append(d.pad, make([]byte, bitpack.PaddingInt64)...)
		src = d.pad
	}
	bitpack.Unpack(out, src, uint(bw))
}

// lengthByteArray decodes DELTA_LENGTH_BYTE_ARRAY: the lengths, then the
// values back to back. offs receives n+1 offsets into the returned data,
// which aliases src.
func (d *deltaDecoder) lengthByteArray(offs []uint32, lens []uint64, src []byte, maxValues int) ([]uint32, []uint64, []byte, error) {
	lens, used, err := d.binaryPacked(lens, src, maxValues)
	if err != nil {
		return nil, nil, nil, err
	}
	data := src[used:]
	offs = append(offs[:0], 0)
	end := uint64(0)
	for _, l := range lens {
		if int64(l) < 0 || int64(int32(l)) != int64(l) {
			return nil, nil, nil, fmt.Errorf("negative or huge byte array length %d", int64(l))
		}
		end += uint64(uint32(l))
		if end > uint64(len(data)) {
			return nil, nil, nil, fmt.Errorf("byte array lengths overrun the page")
		}
		offs = append(offs, uint32(end))
	}
	return offs, lens, data[:end], nil
}

// byteArray decodes DELTA_BYTE_ARRAY (prefix lengths, then suffixes as
// DELTA_LENGTH_BYTE_ARRAY) into out, with n+1 offsets in offs.
func (d *deltaDecoder) byteArray(out []byte, offs []uint32, prefixes, lens []uint64, sufOffs []uint32, src []byte, maxValues int) ([]byte, []uint32, []uint64, []uint64, []uint32, error) {
	prefixes, used, err := d.binaryPacked(prefixes, src, maxValues)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	sufOffs, lens, suffixes, err := d.lengthByteArray(sufOffs, lens, src[used:], maxValues)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	if len(lens) != len(prefixes) {
		return nil, nil, nil, nil, nil, fmt.Errorf("DELTA_BYTE_ARRAY has %d prefixes for %d suffixes", len(prefixes), len(lens))
	}
	out, offs = out[:0], append(offs[:0], 0)
	limit := 1<<20 + 256*len(src)
	prevStart := 0
	for i, p := range prefixes {
		prevLen := len(out) - prevStart
		if p > uint64(prevLen) {
			return nil, nil, nil, nil, nil, fmt.Errorf("DELTA_BYTE_ARRAY prefix %d longer than the previous value (%d)", p, prevLen)
		}
		start := len(out)
		out = append(out, out[prevStart:prevStart+int(p)]...)
		out = append(out, suffixes[sufOffs[i]:sufOffs[i+1]]...)
		if len(out) > limit {
			return nil, nil, nil, nil, nil, fmt.Errorf("DELTA_BYTE_ARRAY page of %d bytes expands beyond %d bytes", len(src), limit)
		}
		offs = append(offs, uint32(len(out)))
		prevStart = start
	}
	return out, offs, prefixes, lens, sufOffs, nil
}
