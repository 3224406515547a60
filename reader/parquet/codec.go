package parquet

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unsafe"

	"github.com/andybalholm/brotli"
	"github.com/floedb/floe/errkind"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Streaming codecs are driven directly (parquet-go's wrappers panic on a
// corrupt gzip header) and their readers pooled, as each holds tens of KiB.
var (
	gzipReaders   sync.Pool
	brotliReaders sync.Pool
	// zstdFree keeps decoders between scans. Not a sync.Pool: every second
	// GC cycle empties one, and a new decoder builds its tables and
	// buffers again (see buffer_pool.go for what that cost small scans).
	zstdFree = make(chan *zstd.Decoder, 2*runtime.GOMAXPROCS(0)+2)
)

// getZstd returns a kept decoder or a new one whose DecodeAll stops at
// cap(dst): we always know the page's uncompressed size, so a corrupt
// frame cannot make us allocate more.
func getZstd() (*zstd.Decoder, error) {
	select {
	case d := <-zstdFree:
		return d, nil
	default:
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
	}
}

// putZstd keeps d for the next page, or closes it when enough are kept.
func putZstd(d *zstd.Decoder) {
	select {
	case zstdFree <- d:
	default:
		d.Close()
	}
}

func CheckCodec(c Codec) error {
	switch c {
	case CodecUncompressed, CodecSnappy, CodecGzip, CodecZstd, CodecLZ4Raw, CodecBrotli:
		return nil
	case CodecLZ4:
		return errkind.Errorf(errkind.Unsupported, "codec LZ4 (Hadoop framing) is not supported; LZ4_RAW is")
	}
	return errkind.Errorf(errkind.Unsupported, "codec %s is not supported", c)
}

// Decompress fills dst, whose length is the uncompressed size the page
// header promises, from src. The output always lands in dst itself, so the
// caller may point dst straight at an Arrow output buffer.
func Decompress(codec Codec, dst, src []byte) error {
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
		d, derr := getZstd()
		if derr != nil {
			return fmt.Errorf("zstd: cannot create a decoder: %w", derr)
		}
		out, err = d.DecodeAll(src, dst[:0])
		putZstd(d)
	case CodecLZ4Raw:
		var n int
		n, err = lz4.UncompressBlock(src, dst)
		out = dst[:n]
	case CodecGzip:
		return streamDecompress(codec, dst, src)
	case CodecBrotli:
		return streamDecompress(codec, dst, src)
	default:
		return CheckCodec(codec)
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

// streamDecompress reads exactly len(dst) bytes from a gzip or brotli
// stream over src.
func streamDecompress(codec Codec, dst, src []byte) error {
	in := bytes.NewReader(src)
	var r io.Reader
	if codec == CodecGzip {
		zr, _ := gzipReaders.Get().(*gzip.Reader)
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(in)
		} else {
			err = zr.Reset(in)
		}
		if err != nil {
			return fmt.Errorf("GZIP: %w", err)
		}
		defer gzipReaders.Put(zr)
		r = zr
	} else {
		br, _ := brotliReaders.Get().(*brotli.Reader)
		if br == nil {
			br = brotli.NewReader(in)
		} else if err := br.Reset(in); err != nil {
			return fmt.Errorf("BROTLI: %w", err)
		}
		defer brotliReaders.Put(br)
		r = br
	}
	if _, err := io.ReadFull(r, dst); err != nil {
		return fmt.Errorf("%s: page decompresses to fewer bytes than its header says (%d): %w", codec, len(dst), err)
	}
	return nil
}
