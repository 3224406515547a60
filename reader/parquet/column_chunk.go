package parquet

import (
	"fmt"
	"hash/crc32"
	"io"

	"github.com/floedb/floe/errkind"
)

// chunkReader walks the pages of one column chunk. The whole chunk is
// fetched with a single ReadAt the first time a page is needed, so a
// column costs one request however many pages it has.
type chunkReader struct {
	f         *File
	meta      *ColumnChunk
	leaf      *Node
	verifyCRC bool
	// rows wanted from the row group, so the offset index can trim the read
	rowStart, rowEnd, rowGroupRows int64
	// skippedRows counts rows in data pages the trimmed read left out
	skippedRows int64

	// data is the part of the chunk's needed bytes being walked; parts
	// are the rest, in file order (a dictionary page and the data pages
	// wanted may lie apart).
	data  []byte
	parts [][]byte
	// owned are pooled buffers to give back; spans are fetched spans the
	// parts point into.
	owned      [][]byte
	spans      []*span
	loaded     bool
	loadErr    error
	pos        int
	valuesSeen int64
	hdr        PageHeader
}

func (c *chunkReader) ensureLoaded() error {
	if !c.loaded {
		c.loaded = true
		c.loadErr = c.load()
	}
	return c.loadErr
}

func (c *chunkReader) load() error {
	if c.meta.FilePath != "" {
		return errkind.Errorf(errkind.Unsupported, "column %s lives in another file (%q); external column chunks are not supported", c.leaf.DottedPath(), c.meta.FilePath)
	}
	if err := CheckCodec(c.meta.Codec); err != nil {
		return fmt.Errorf("column %s: %w", c.leaf.DottedPath(), err)
	}
	ranges, skipped, err := c.f.planChunkRead(c.meta, c.rowStart, c.rowEnd, c.rowGroupRows)
	if err != nil {
		return fmt.Errorf("column %s: %w", c.leaf.DottedPath(), err)
	}
	c.skippedRows = skipped
	for _, r := range ranges {
		part, err := c.f.fetch(r, &c.owned, &c.spans)
		if err != nil {
			return fmt.Errorf("column %s: %w", c.leaf.DottedPath(), err)
		}
		c.parts = append(c.parts, part)
	}
	c.data, c.parts = c.parts[0], c.parts[1:]
	return nil
}

// next returns the next page's header and its body as stored (compressed).
// It returns io.EOF after the chunk's last page.
func (c *chunkReader) next() (*PageHeader, []byte, error) {
	if err := c.ensureLoaded(); err != nil {
		return nil, nil, err
	}
	for c.pos >= len(c.data) && len(c.parts) > 0 {
		c.data, c.parts, c.pos = c.parts[0], c.parts[1:], 0
	}
	if c.pos >= len(c.data) || (c.meta.NumValues > 0 && c.valuesSeen >= c.meta.NumValues) {
		return nil, nil, io.EOF
	}
	r := ThriftReader{Buf: c.data[c.pos:]}
	if err := ParsePageHeader(&r, &c.hdr); err != nil {
		return nil, nil, fmt.Errorf("column %s at chunk offset %d: %w", c.leaf.DottedPath(), c.pos, err)
	}
	c.pos += r.Pos
	size := int(c.hdr.CompressedSize)
	if size > len(c.data)-c.pos {
		return nil, nil, fmt.Errorf("column %s: page of %d bytes overruns its column chunk (%d bytes left)", c.leaf.DottedPath(), size, len(c.data)-c.pos)
	}
	body := c.data[c.pos : c.pos+size : c.pos+size]
	if c.verifyCRC && c.hdr.hasCRC {
		if got := crc32.ChecksumIEEE(body); got != c.hdr.crc {
			return nil, nil, fmt.Errorf("column %s: page at file offset %d fails its CRC check (stored %08x, computed %08x)", c.leaf.DottedPath(), c.meta.Start()+int64(c.pos), c.hdr.crc, got)
		}
	}
	c.pos += size
	if c.hdr.Typ == PageData || c.hdr.Typ == PageDataV2 {
		c.valuesSeen += int64(c.hdr.NumValues)
	}
	return &c.hdr, body, nil
}

func (c *chunkReader) release() {
	for _, b := range c.owned {
		PutBytes(b)
	}
	for _, s := range c.spans {
		s.unref()
	}
	c.data, c.parts, c.owned, c.spans = nil, nil, c.owned[:0], c.spans[:0]
}
