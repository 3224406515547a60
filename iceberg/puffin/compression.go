package puffin

import (
	"bytes"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// zstdDecoder and zstdEncoder are shared: DecodeAll and EncodeAll are safe
// for concurrent use and building either is far from free.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(maxDecompressed),
		zstd.WithDecoderMaxWindow(maxDecompressed))
})

// The encoder always writes single-segment frames: only they carry the
// content size for inputs under 256 bytes, and the spec requires it (Java
// sizes its output buffer from it and fails without it).
var zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true))
})

// decompress undoes codec on data, refusing output larger than limit.
func decompress(codec string, data []byte, limit int) ([]byte, error) {
	switch codec {
	case CodecNone:
		return data, nil
	case CodecZstd:
		dec, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		out, err := dec.DecodeAll(data, nil)
		if err != nil {
			return nil, corruptf("puffin: zstd: %w", err)
		}
		if len(out) > limit {
			return nil, corruptf("puffin: zstd output exceeds %d bytes", limit)
		}
		return out, nil
	case CodecLZ4:
		return decompressLZ4Frame(data, limit)
	}
	return nil, checkCodec(codec)
}

func decompressLZ4Frame(data []byte, limit int) ([]byte, error) {
	zr := lz4.NewReader(bytes.NewReader(data))
	var out bytes.Buffer
	n, err := io.Copy(&out, io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, corruptf("puffin: lz4: %w", err)
	}
	if n > int64(limit) {
		return nil, corruptf("puffin: lz4 output exceeds %d bytes", limit)
	}
	return out.Bytes(), nil
}

// compress applies codec to data. Frames carry their content size, as the
// spec asks.
func compress(codec string, data []byte) ([]byte, error) {
	switch codec {
	case CodecNone:
		return data, nil
	case CodecZstd:
		enc, err := zstdEncoder()
		if err != nil {
			return nil, err
		}
		return enc.EncodeAll(data, nil), nil
	case CodecLZ4:
		var out bytes.Buffer
		zw := lz4.NewWriter(&out)
		if err := zw.Apply(lz4.SizeOption(uint64(len(data)))); err != nil {
			return nil, err
		}
		if _, err := zw.Write(data); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}
	return nil, checkCodec(codec)
}
