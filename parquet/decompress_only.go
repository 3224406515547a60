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
	if rowGroup < 0 || rowGroup >= len(f.RowGroups) || leaf < 0 || leaf >= len(f.Leaves) {
		return 0, fmt.Errorf("no column chunk %d of row group %d", leaf, rowGroup)
	}
	rg := &f.RowGroups[rowGroup]
	meta := &rg.Columns[leaf]
	c := chunkReader{f: f, meta: meta, leaf: f.Leaves[leaf], rowEnd: rg.NumRows, rowGroupRows: rg.NumRows}
	defer c.release()
	var buf scratch
	defer buf.release()
	var total int64
	for {
		h, body, err := c.next()
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		size := int(h.UncompressedSize)
		if h.Typ == PageDataV2 {
			// v2 levels are stored uncompressed ahead of the values.
			levels := int(h.repLength + h.defLength)
			if levels < 0 || levels > len(body) || levels > size {
				return total, fmt.Errorf("column %s: page v2 levels (%d bytes) overrun the page", c.leaf.DottedPath(), levels)
			}
			if !h.isCompressed {
				total += int64(size)
				continue
			}
			body, size = body[levels:], size-levels
			total += int64(levels)
		}
		if meta.Codec == CodecUncompressed {
			total += int64(size)
			continue
		}
		if err := Decompress(meta.Codec, buf.take(size), body); err != nil {
			return total, fmt.Errorf("column %s: %w", c.leaf.DottedPath(), err)
		}
		total += int64(size)
	}
}
