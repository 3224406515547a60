package parquet

import (
	"errors"
	"fmt"
	"io"
)

// DecompressChunk reads one column chunk (leaf of row group rowGroup) and
// decompresses every page of it, dictionary pages included, decoding
// nothing; it returns the bytes the pages decompress to. It is the floor
// a decode of the chunk cannot go below with this codec library: the
// benchmarks report a full scan as a multiple of it.
func (f *File) DecompressChunk(rowGroup, leaf int) (int64, error) {
	var buf scratch
	defer buf.release()
	var total int64
	err := f.CompressedPages(rowGroup, leaf, func(codec Codec, compressed []byte, size, stored int) error {
		total += int64(stored)
		if codec == CodecUncompressed {
			total += int64(size)
			return nil
		}
		if err := Decompress(codec, buf.take(size), compressed); err != nil {
			return err
		}
		total += int64(size)
		return nil
	})
	return total, err
}

// CompressedPages calls fn with each page of one column chunk as stored:
// its codec, the compressed bytes, the size they decompress to, and the
// bytes a v2 page stores uncompressed ahead of them (its levels; such a
// page may also be stored uncompressed whole: codec is then
// CodecUncompressed). Only dictionary and data pages are handed over, as
// the reader decodes only those. compressed points into buffers reused
// once the call returns: copy what is kept. The benchmarks hand the pages
// to other codec libraries this way.
func (f *File) CompressedPages(rowGroup, leaf int, fn func(codec Codec, compressed []byte, size, stored int) error) error {
	if rowGroup < 0 || rowGroup >= len(f.RowGroups) || leaf < 0 || leaf >= len(f.Leaves) {
		return fmt.Errorf("no column chunk %d of row group %d", leaf, rowGroup)
	}
	rg := &f.RowGroups[rowGroup]
	meta := &rg.Columns[leaf]
	c := chunkReader{f: f, meta: meta, leaf: f.Leaves[leaf], rowEnd: rg.NumRows, rowGroupRows: rg.NumRows}
	defer c.release()
	for {
		h, body, err := c.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typ != PageData && h.Typ != PageDataV2 && h.Typ != PageDictionary {
			continue // index pages and unknown kinds: the reader skips them too
		}
		codec, size, stored := meta.Codec, int(h.UncompressedSize), 0
		if h.Typ == PageDataV2 {
			// v2 levels are stored uncompressed ahead of the values.
			levels := int(h.repLength) + int(h.defLength)
			if levels < 0 || levels > len(body) || levels > size {
				return fmt.Errorf("column %s: page v2 levels (%d bytes) overrun the page", c.leaf.DottedPath(), levels)
			}
			body, size, stored = body[levels:], size-levels, levels
			if !h.isCompressed {
				codec = CodecUncompressed
			}
		}
		if codec == CodecUncompressed && len(body) < size {
			return fmt.Errorf("column %s: page has %d bytes, header says %d", c.leaf.DottedPath(), len(body), size)
		}
		if err := fn(codec, body, size, stored); err != nil {
			return fmt.Errorf("column %s: %w", c.leaf.DottedPath(), err)
		}
	}
}
