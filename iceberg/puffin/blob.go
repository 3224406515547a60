package puffin

import (
	"fmt"
	"io"
)

// ReadBlob reads the blob meta describes from r and decompresses it.
func ReadBlob(r io.ReaderAt, meta BlobMetadata) ([]byte, error) {
	if meta.Offset < 0 || meta.Length < 0 {
		return nil, errNegative
	}
	if meta.Length > maxBlobLength {
		return nil, corruptf("puffin: blob %s of %d bytes is too large", meta.Type, meta.Length)
	}
	if err := checkCodec(meta.CompressionCodec); err != nil {
		return nil, err
	}
	raw := make([]byte, meta.Length)
	if err := readFullAt(r, raw, meta.Offset); err != nil {
		return nil, err
	}
	data, err := decompress(meta.CompressionCodec, raw, maxDecompressed)
	if err != nil {
		return nil, fmt.Errorf("blob %s at offset %d: %w", meta.Type, meta.Offset, err)
	}
	return data, nil
}
