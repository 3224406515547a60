package parquet

import (
	"fmt"
	"io"
)

// readAt reads metadata structures (page indexes, bloom filters,
// dictionary pages for pruning) from the footer read when it holds them,
// else from the file.
func (f *File) readAt(p []byte, off int64) (int, error) {
	if off >= f.tailOff && off+int64(len(p)) <= f.tailOff+int64(len(f.tail)) {
		return copy(p, f.tail[off-f.tailOff:]), nil
	}
	if b, s, err := f.fetcher.take(off, int64(len(p))); err != nil {
		return 0, err
	} else if s != nil {
		n := copy(p, b)
		s.unref()
		return n, nil
	}
	return f.r.ReadAt(p, off)
}

// fetch returns the bytes of r without copying when the footer read or a
// fetched span holds them, recording the span in spans; else it reads them
// into a pooled buffer recorded in owned.
func (f *File) fetch(r ByteRange, owned *[][]byte, spans *[]*span) ([]byte, error) {
	tailEnd := f.tailOff + int64(len(f.tail))
	if r.Off >= f.tailOff && r.Off+r.Size <= tailEnd {
		start := r.Off - f.tailOff
		return f.tail[start : start+r.Size : start+r.Size], nil
	}
	if len(f.tail) > 0 && r.Off < f.tailOff && r.Off+r.Size > f.tailOff && r.Off+r.Size <= tailEnd {
		// A chunk that ends in the footer read: only its head is fetched
		// (prefetch trims it so), the rest comes from the tail.
		head, err := f.fetch(ByteRange{r.Off, f.tailOff - r.Off}, owned, spans)
		if err != nil {
			return nil, err
		}
		b := GetBytes(int(r.Size))
		n := copy(b, head)
		copy(b[n:], f.tail[:r.Size-int64(n)])
		*owned = append(*owned, b)
		return b, nil
	}
	b, s, err := f.fetcher.take(r.Off, r.Size)
	if err != nil {
		return nil, err
	}
	if s != nil {
		*spans = append(*spans, s)
		return b, nil
	}
	b = GetBytes(int(r.Size))
	n, err := f.r.ReadAt(b, r.Off)
	if n < len(b) {
		PutBytes(b)
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading %d bytes at offset %d: %w", r.Size, r.Off, err)
	}
	*owned = append(*owned, b)
	return b, nil
}

// ChunkRanges are the byte ranges a BatchReader's column chunks will read.
func (br *BatchReader) ChunkRanges() []ByteRange {
	var out []ByteRange
	for _, l := range br.Leaves {
		c := &l.chunk
		if c.meta.FilePath != "" || CheckCodec(c.meta.Codec) != nil {
			continue // load reports these
		}
		ranges, _, err := c.f.planChunkRead(c.meta, c.rowStart, c.rowEnd, c.rowGroupRows)
		if err != nil {
			continue
		}
		out = append(out, ranges...)
	}
	return out
}

// Prefetch starts fetching the bytes the batch reader will read, merged
// into few requests, so decoding finds them ready. Speculative prefetches
// (of a row group not yet being decoded) stay within the file's
// read-ahead budget; lazy ones wait until a column first needs its bytes.
func (br *BatchReader) Prefetch(speculative, lazy bool) {
	if br == nil || len(br.Leaves) == 0 {
		return
	}
	f := br.Leaves[0].chunk.f
	f.Prefetch(br.ChunkRanges(), br.rowGroup, lazy, speculative)
}

// Prefetch fetches ranges ahead, leaving out what the footer read holds.
func (f *File) Prefetch(ranges []ByteRange, rowGroup int, lazy, speculative bool) {
	trimmed := ranges[:0:0]
	window := f.fetcher.opts.ChunkWindow
	for _, r := range ranges {
		if window > 0 && r.Size > window {
			continue // streamed through windows when it is read (chunkReader)
		}
		if r.Off+r.Size > f.tailOff && len(f.tail) > 0 {
			if r.Off >= f.tailOff {
				continue
			}
			r.Size = f.tailOff - r.Off
		}
		trimmed = append(trimmed, r)
	}
	f.fetcher.prefetch(trimmed, rowGroup, lazy, speculative)
}

// ReleaseFetched lets go of bytes fetched for row groups before rowGroup
// that no reader uses any longer.
func (f *File) ReleaseFetched(rowGroup int) { f.fetcher.releaseBefore(rowGroup) }

// Close releases the file's fetched bytes and waits for requests in
// flight. The io.ReaderAt it was opened on stays the caller's to close.
func (f *File) Close() {
	if f.fetcher != nil {
		f.fetcher.close()
	}
}

// FetchStats are the requests and bytes the file's coalesced fetches made.
func (f *File) FetchStats() (requests, bytes int64) {
	return f.fetcher.requests.Load(), f.fetcher.bytes.Load()
}
