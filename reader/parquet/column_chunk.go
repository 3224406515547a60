package parquet

import (
	"errors"
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

	// data is the part of the chunk's needed bytes being walked, dataOff
	// its file offset (where an error says a page is).
	data    []byte
	dataOff int64
	// owned are pooled buffers to give back; spans are fetched spans the
	// data points into.
	owned [][]byte
	spans []*span
	// pending are the needed ranges not yet read, in file order (a
	// dictionary page and the data pages wanted may lie apart), and
	// stream the one being read through windows (FetchOptions.ChunkWindow)
	// when it is too long to hold whole.
	pending    []ByteRange
	stream     *chunkStream
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
	c.pending = ranges
	return c.nextRange()
}

// nextRange starts reading the next pending range: whole when it fits a
// window, else streamed.
func (c *chunkReader) nextRange() error {
	r := c.pending[0]
	c.pending = c.pending[1:]
	c.pos = 0
	if window := c.f.fetcher.opts.ChunkWindow; window <= 0 || r.Size <= window {
		part, err := c.f.fetch(r, &c.owned, &c.spans)
		if err != nil {
			return fmt.Errorf("column %s: %w", c.leaf.DottedPath(), err)
		}
		c.data, c.dataOff = part, r.Off
		return nil
	}
	if c.stream == nil {
		c.stream = &chunkStream{r: c.f.r, window: c.f.fetcher.opts.ChunkWindow}
	}
	c.stream.start(r)
	c.data = nil
	return c.more(0)
}

// more makes c.data[c.pos:] hold at least need bytes (or all the streamed
// range has left), reading on through the stream.
func (c *chunkReader) more(need int) error {
	if c.stream == nil || !c.stream.active() || len(c.data)-c.pos >= need {
		return nil
	}
	data, err := c.stream.refill(c.data[c.pos:], need)
	if err != nil {
		return fmt.Errorf("column %s: %w", c.leaf.DottedPath(), err)
	}
	c.data, c.pos, c.dataOff = data, 0, c.stream.next-int64(len(data))
	return nil
}

// next returns the next page's header and its body as stored (compressed).
// It returns io.EOF after the chunk's last page.
func (c *chunkReader) next() (*PageHeader, []byte, error) {
	if err := c.ensureLoaded(); err != nil {
		return nil, nil, err
	}
	// Make the next header readable (windowed reads), moving to the next
	// needed range when this one is done.
	reserve := c.headerReserve()
	if err := c.more(reserve); err != nil {
		return nil, nil, err
	}
	for c.pos >= len(c.data) && len(c.pending) > 0 {
		if err := c.nextRange(); err != nil {
			return nil, nil, err
		}
		if err := c.more(reserve); err != nil {
			return nil, nil, err
		}
	}
	if c.pos >= len(c.data) || (c.meta.NumValues > 0 && c.valuesSeen >= c.meta.NumValues) {
		return nil, nil, io.EOF
	}
	r := ThriftReader{Buf: c.data[c.pos:]}
	for {
		err := ParsePageHeader(&r, &c.hdr)
		if err == nil {
			break
		}
		// A streamed header may run past the bytes read so far: read more
		// (twice as much each time, so a long header costs a few reads)
		// and parse again. Only a truncated header is retried, and only up
		// to maxStreamedHeader: anything else is corrupt as it stands.
		if have := len(c.data) - c.pos; c.stream != nil && c.stream.active() && errors.Is(err, errThriftTruncated) {
			if have >= maxStreamedHeader {
				return nil, nil, fmt.Errorf("column %s: a page header longer than %d bytes", c.leaf.DottedPath(), maxStreamedHeader)
			}
			if err := c.more(min(2*have+reserve, maxStreamedHeader)); err != nil {
				return nil, nil, err
			}
			r = ThriftReader{Buf: c.data[c.pos:]}
			continue
		}
		return nil, nil, fmt.Errorf("column %s: page header at file offset %d: %w", c.leaf.DottedPath(), c.dataOff+int64(c.pos), err)
	}
	c.pos += r.Pos
	size := int(c.hdr.CompressedSize)
	if max := c.f.maxPageBytes; max > 0 && (int64(size) > max || int64(c.hdr.UncompressedSize) > max) {
		return nil, nil, errkind.Errorf(errkind.Corrupt, "column %s: a page claims %d bytes (%d uncompressed), more than the %d the memory limit allows one page",
			c.leaf.DottedPath(), size, c.hdr.UncompressedSize, max)
	}
	if err := c.more(size); err != nil {
		return nil, nil, err
	}
	if size > len(c.data)-c.pos {
		return nil, nil, fmt.Errorf("column %s: page of %d bytes overruns its column chunk (%d bytes left)", c.leaf.DottedPath(), size, len(c.data)-c.pos)
	}
	body := c.data[c.pos : c.pos+size : c.pos+size]
	if c.verifyCRC && c.hdr.hasCRC {
		if got := crc32.ChecksumIEEE(body); got != c.hdr.crc {
			return nil, nil, fmt.Errorf("column %s: page at file offset %d fails its CRC check (stored %08x, computed %08x)", c.leaf.DottedPath(), c.dataOff+int64(c.pos), c.hdr.crc, got)
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
	c.data, c.owned, c.spans = nil, c.owned[:0], c.spans[:0]
	if c.stream != nil {
		c.stream.close()
	}
	c.pending = nil
}

// pageHeaderReserve is what a streamed chunk makes readable before it
// parses a page header: more than most headers (statistics included), and
// a window at most; a longer header is read on as it parses.
const pageHeaderReserve = 64 << 10

// maxStreamedHeader bounds a page header read through windows: headers
// carry statistics, and a writer may put long min/max values there, but
// one of 16 MiB is corrupt (or hostile).
const maxStreamedHeader = 16 << 20

func (c *chunkReader) headerReserve() int {
	return int(min(pageHeaderReserve, max(c.f.fetcher.opts.ChunkWindow, 1)))
}

// chunkStream reads one long byte range of a column chunk through
// windows, so that a chunk of any size holds about two windows: the one
// being walked and the one before it, whose last page a reader may still
// be decoding when the next header is needed (a page's values are
// consumed before the next page is asked for, so two suffice).
type chunkStream struct {
	r         io.ReaderAt
	window    int64
	next, end int64 // file offsets: the next byte to read, the range's end
	cur, prev []byte
}

func (s *chunkStream) start(r ByteRange) { s.next, s.end = r.Off, r.Off+r.Size }

func (s *chunkStream) active() bool { return s.next < s.end }

// refill returns a buffer holding rest (the unread bytes of the current
// window) followed by as much of the range as a window (or need, if
// larger) allows.
func (s *chunkStream) refill(rest []byte, need int) ([]byte, error) {
	size := int(min(max(s.window, int64(need)), int64(len(rest))+s.end-s.next))
	buf := GetBytes(size)
	n := copy(buf, rest)
	read := size - n
	if got, err := s.r.ReadAt(buf[n:size], s.next); got < read {
		PutBytes(buf)
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading %d bytes at offset %d: %w", read, s.next, err)
	}
	s.next += int64(read)
	if s.prev != nil {
		PutBytes(s.prev)
	}
	s.prev, s.cur = s.cur, buf
	return buf[:size], nil
}

func (s *chunkStream) close() {
	for _, b := range [][]byte{s.prev, s.cur} {
		if b != nil {
			PutBytes(b)
		}
	}
	s.prev, s.cur, s.next, s.end = nil, nil, 0, 0
}
