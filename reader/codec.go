package reader

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/brotli"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/pierrec/lz4/v4"
)

var (
	gzipCodec   gzip.Codec
	brotliCodec brotli.Codec
	// Decoders whose DecodeAll stops at cap(dst): we always know the page's
	// uncompressed size, so a corrupt frame cannot make us allocate more.
	zstdDecoders = sync.Pool{New: func() any {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
		if err != nil {
			return err
		}
		return d
	}}
)

func checkCodec(c Codec) error {
	switch c {
	case CodecUncompressed, CodecSnappy, CodecGzip, CodecZstd, CodecLZ4Raw, CodecBrotli:
		return nil
	case CodecLZ4:
		return fmt.Errorf("codec LZ4 (Hadoop framing) is not supported; LZ4_RAW is")
	}
	return fmt.Errorf("codec %s is not supported", c)
}

// decompress fills dst, whose length is the uncompressed size the page
// header promises, from src. The output always lands in dst itself, so the
// caller may point dst straight at an Arrow output buffer.
func decompress(codec Codec, dst, src []byte) error {
	size := len(dst)
	var out []byte
	var err error
	switch codec {
	case CodecUncompressed:
		if len(src) != size {
			return fmt.Errorf("uncompressed page has %d bytes, header says %d", len(src), size)
		}
		copy(dst, src)
		return nil
	case CodecSnappy:
		var n int
		if n, err = snappy.DecodedLen(src); err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		if n != size {
			return fmt.Errorf("snappy: block decodes to %d bytes, header says %d", n, size)
		}
		out, err = snappy.Decode(dst, src)
	case CodecZstd:
		d, ok := zstdDecoders.Get().(*zstd.Decoder)
		if !ok {
			return fmt.Errorf("zstd: cannot create a decoder")
		}
		out, err = d.DecodeAll(src, dst[:0])
		zstdDecoders.Put(d)
	case CodecLZ4Raw:
		var n int
		n, err = lz4.UncompressBlock(src, dst)
		out = dst[:n]
	case CodecGzip:
		out, err = gzipCodec.Decode(dst[:0], src)
	case CodecBrotli:
		out, err = brotliCodec.Decode(dst[:0], src)
	default:
		return checkCodec(codec)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", codec, err)
	}
	if len(out) != size {
		return fmt.Errorf("%s: page decompressed to %d bytes, header says %d", codec, len(out), size)
	}
	if size > 0 && unsafe.SliceData(out) != unsafe.SliceData(dst) {
		copy(dst, out)
	}
	return nil
}
