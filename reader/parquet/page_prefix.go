package parquet

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
	"runtime"

	"github.com/klauspost/compress/zstd"
)

// Pages decompressed in part. A selected read (late materialisation)
// whose window keeps no row past some point needs nothing of a page
// beyond that point; when the page is PLAIN and zstd, the values of its
// first rows are a prefix of the decompressed bytes, and a zstd stream
// stops there. Writers such as DuckDB put a whole row group's column in
// one page, so a clustered filter keeping the first quarter of a row
// group otherwise decompresses every column's page whole (the foreign
// benchmark's clustered 1 %: three quarters of its CPU).
//
// A page read in part keeps its compressed body (pageState.rest); should
// a later read of the row group want rows past the part, the page is
// decompressed whole then and the reader set where the part ended
// (completePage), so a wrong guess costs the prefix twice, never a wrong
// value.

// prefixTailShare: a window's selection counts as ended when its last
// 1/prefixTailShare rows keep none. A spread selection keeps rows up to
// the window's end, and the next window would need the same page again.
const prefixTailShare = 8

// prefixChunk is how far a byte-array prefix is decompressed at a time
// while its lengths are walked.
const prefixChunk = 64 << 10

// pageRest is a page prepared in part: what completing it needs.
type pageRest struct {
	h    PageHeader
	body []byte
}

// zstdStreams keeps stream decoders apart from zstdFree's: a stream
// decoder keeps a window of history (up to a page), so fewer are kept.
var zstdStreams = make(chan *zstd.Decoder, runtime.GOMAXPROCS(0)+1)

func getZstdStream() (*zstd.Decoder, error) {
	select {
	case d := <-zstdStreams:
		return d, nil
	default:
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	}
}

func putZstdStream(d *zstd.Decoder) {
	_ = d.Reset(nil) // let go of the page
	select {
	case zstdStreams <- d:
	default:
		d.Close()
	}
}

// selectedPrefix is how many rows of a window of n rows a selected read
// needs: through its last kept row when the selection ends before the
// window's last 1/prefixTailShare, else 0 (all of them).
func selectedPrefix(keep []byte, n int) int {
	nb := (n + 7) / 8
	for i := nb - 1; i >= 0; i-- {
		b := keep[i]
		if i == nb-1 && n%8 != 0 {
			b &= byte(1)<<(n%8) - 1
		}
		if b == 0 {
			continue
		}
		end := 8*i + bits.Len8(b)
		if n-end >= max(n/prefixTailShare, 1) {
			return end
		}
		return 0
	}
	return 0
}

// pagePrefix decompresses the part of a v1 data page that holds its first
// want entries, when the page allows it (flat, PLAIN, zstd, RLE levels):
// the bytes (levels whole, then the values of those entries) and true;
// false when it does not, or the stream disagrees with the header (the
// whole page's decompression then says what is wrong).
func (l *LeafReader) pagePrefix(h *PageHeader, body []byte, want int) ([]byte, bool) {
	width := PhysicalWidth(l.Node)
	if l.codec != CodecZstd || h.Typ != PageData || h.Encoding != EncPlain || l.maxRep > 0 ||
		(l.maxDef > 0 && h.defEncoding != EncRLE) || want <= 0 || want >= int(h.NumValues) ||
		(width == 0 && l.Node.Physical != ByteArray) {
		return nil, false
	}
	size := int(h.UncompressedSize)
	// The stream holds a window of history: refuse a frame whose window
	// is not about the page (a page's frame is one segment of its size).
	var fh zstd.Header
	if err := fh.Decode(body); err != nil || !fh.HasFCS || fh.FrameContentSize != uint64(size) || fh.WindowSize > uint64(size)+1<<20 {
		return nil, false
	}
	d, err := getZstdStream()
	if err != nil {
		return nil, false
	}
	defer putZstdStream(d)
	if d.Reset(bytes.NewReader(body)) != nil {
		return nil, false
	}
	buf := l.pageBuf.take(size)
	filled := 0
	// fill makes buf[:to] decompressed (at most the page).
	fill := func(to int) bool {
		to = min(to, size)
		if to <= filled {
			return true
		}
		if _, err := io.ReadFull(d, buf[filled:to]); err != nil {
			return false
		}
		filled = to
		return true
	}
	pos, values := 0, want
	if l.maxDef > 0 {
		if !fill(4) {
			return nil, false
		}
		n := int(binary.LittleEndian.Uint32(buf))
		if n > size-4 || !fill(4+n) {
			return nil, false
		}
		defs, bw := buf[4:4+n], bitWidthOf(l.maxDef)
		pos = 4 + n
		if !hybridAllEqual(defs, bw, want, uint32(l.maxDef)) {
			lv := l.levelBuf.take(want)
			if decodeHybridU8(lv, defs, bw) != nil {
				return nil, false
			}
			values = 0
			for _, v := range lv {
				if int(v) == l.maxDef {
					values++
				}
			}
		}
	}
	end := pos + values*width
	if width == 0 {
		// PLAIN byte arrays: walk the lengths as the bytes arrive.
		end = pos
		for range values {
			if end+4 > filled && !fill(max(end+4, filled+prefixChunk)) {
				return nil, false
			}
			if end+4 > filled {
				return nil, false
			}
			end += 4 + int(binary.LittleEndian.Uint32(buf[end:]))
			if end > size {
				return nil, false
			}
		}
	}
	if end > size || !fill(end) {
		return nil, false
	}
	l.pagesPrefixed++
	return buf[:end], true
}

// completePage decompresses the whole of a page prepared in part and sets
// the reader where the part ended.
func (l *LeafReader) completePage() error {
	rest, pos := l.pg.rest, l.pg.pos
	if err := l.preparePageWant(&rest.h, rest.body, 0); err != nil {
		return err
	}
	if err := l.skipValues(l.valuesIn(0, pos)); err != nil {
		return l.wrap(err)
	}
	l.pg.pos = pos
	return nil
}
