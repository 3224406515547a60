package manifest

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/twmb/avro/ocf"
)

// deflateWriter is the deflate block codec Java uses by default for
// manifests. The Avro library's own deflate codec builds a new compressor
// (about a megabyte) per 64 KiB block; this one reuses a pooled compressor,
// which made writing a 10,000-entry manifest several times faster.
type deflateWriter struct {
	w   *flate.Writer
	out bytes.Buffer
}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.DefaultCompression)
	return w
}}

func newDeflateWriter() *deflateWriter {
	return &deflateWriter{w: flateWriters.Get().(*flate.Writer)}
}

func (*deflateWriter) Name() string { return "deflate" }

// Compress returns a buffer that the next call reuses; the container
// writer copies it out first.
func (d *deflateWriter) Compress(src []byte) ([]byte, error) {
	d.out.Reset()
	d.w.Reset(&d.out)
	if _, err := d.w.Write(src); err != nil {
		return nil, err
	}
	if err := d.w.Close(); err != nil {
		return nil, err
	}
	return d.out.Bytes(), nil
}

func (*deflateWriter) Decompress(src []byte) ([]byte, error) {
	return ocf.DeflateCodec(0).Decompress(src)
}

// deflateReader decompresses manifest blocks. The Avro library's codec
// builds a new decompressor per block and grows its output from a few
// hundred bytes by doubling, copying each time; planning a table of a
// million files decompresses thousands of blocks, so this one reuses
// pooled decompressors and sizes the output from the compressed size.
// The output is never reused: decoded bounds point into it.
type deflateReader struct{}

var flateReaders sync.Pool

// deflateRatio is a first guess of how much a manifest block expands:
// manifests of many similar entries compress about this well.
const deflateRatio = 6

func (deflateReader) DecompressBounded(src []byte, limit int64) ([]byte, error) {
	in := bytes.NewReader(src)
	fr, _ := flateReaders.Get().(io.ReadCloser)
	if fr == nil {
		fr = flate.NewReader(in)
	} else if err := fr.(flate.Resetter).Reset(in, nil); err != nil {
		return nil, err
	}
	defer flateReaders.Put(fr)
	out := make([]byte, 0, min(int64(len(src))*deflateRatio+512, limit+1))
	for {
		if len(out) == cap(out) {
			if int64(len(out)) > limit {
				return nil, fmt.Errorf("Avro block decompresses past the %d byte limit", limit)
			}
			out = slices.Grow(out, int(min(int64(len(out)), limit+1-int64(len(out)))))
		}
		n, err := fr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("Avro block decompresses past the %d byte limit", limit)
	}
	return out, nil
}

func (d *deflateWriter) Close() error {
	if d.w != nil {
		flateWriters.Put(d.w)
		d.w = nil
	}
	return nil
}
