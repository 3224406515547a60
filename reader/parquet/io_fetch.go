package parquet

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// FetchOptions tune how a file's bytes are requested. On an object store
// every request costs a round trip, so neighbouring ranges are merged and
// fetched concurrently, ahead of decoding; on a local disk the same plan
// turns many small reads into a few large ones.
type FetchOptions struct {
	// CoalesceGap merges two needed ranges into one request when at most
	// this many unneeded bytes lie between them. Default 1 MiB; negative:
	// every column chunk is a request of its own.
	CoalesceGap int64
	// MaxRequest caps the size of one merged request. Default 32 MiB.
	MaxRequest int64
	// Concurrency is how many requests of one file may be in flight.
	// Default 8.
	Concurrency int
	// PrefetchBytes bounds the bytes one file holds fetched ahead of
	// decoding (the next row group's columns). Default 128 MiB; 0 keeps the
	// default, a negative value turns read-ahead off.
	PrefetchBytes int64

	// ChunkWindow bounds the bytes one column chunk holds: a chunk (or the
	// part of it a read needs) longer than this is read page by page
	// through windows of this size instead of whole, and is not
	// prefetched. 0 means DefaultChunkWindow; negative reads every chunk
	// whole. A memory limit lowers it.
	ChunkWindow int64
	// MaxPageBytes refuses a page that claims more bytes (stored or
	// uncompressed) before anything is allocated for it: a corrupt or
	// hostile file's 2 GiB page header would otherwise cost 2 GiB. 0: no
	// cap beyond the format's own. A memory limit sets it, with
	// ChunkWindow.
	MaxPageBytes int64

	// direct reads every range when it is needed, without prefetching:
	// the choice for local files when no option is set.
	Direct bool
}

// DefaultChunkWindow is the window of a scan without a memory limit: an
// ordinary column chunk (a 128 MiB row group's share) is read whole, in
// one request, while one of a huge row group is read through windows
// rather than held whole. Measured on a 1 GiB row group of four columns
// (internal/memlimit): peak RSS 2329 MiB reading chunks whole, 995 MiB
// with this window (162 MiB under a 256 MiB memory limit).
const DefaultChunkWindow = 64 << 20

// Shaped reports whether any option that shapes requests is set
// (CoalesceGap, MaxRequest, Concurrency, PrefetchBytes): a caller that set
// none leaves the choice of reading to the file's kind.
func (o FetchOptions) Shaped() bool {
	return o.CoalesceGap != 0 || o.MaxRequest != 0 || o.Concurrency != 0 || o.PrefetchBytes != 0
}

func (o FetchOptions) withDefaults() FetchOptions {
	if o.CoalesceGap == 0 {
		o.CoalesceGap = 1 << 20
	}
	if o.MaxRequest <= 0 {
		o.MaxRequest = 32 << 20
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.PrefetchBytes == 0 {
		o.PrefetchBytes = 128 << 20
	}
	if o.ChunkWindow == 0 {
		o.ChunkWindow = DefaultChunkWindow
	}
	return o
}

// span is one request's bytes: several needed ranges and the small gaps
// between them.
type span struct {
	off  int64
	buf  []byte // pooled
	refs atomic.Int32
	done chan struct{}
	err  error
	// rowGroup is the row group the span was fetched for; the fetcher
	// drops its own reference once decoding has moved past it.
	rowGroup int
	// group, for a span fetched only when first touched, names the spans
	// that start together; 0 for spans fetched at once.
	group   int
	started bool
	owned   bool // the fetcher still holds its reference
}

func (s *span) end() int64 { return s.off + int64(len(s.buf)) }

func (s *span) unref() {
	if s.refs.Add(-1) == 0 {
		PutBytes(s.buf)
		s.buf = nil
	}
}

// fetcher holds one file's fetched spans. Chunk readers take their bytes
// from a span without a copy; a range no span covers is read directly.
type fetcher struct {
	r    io.ReaderAt
	opts FetchOptions
	sem  chan struct{}
	wg   sync.WaitGroup

	mu        sync.Mutex
	spans     []*span
	held      int64 // bytes of spans the fetcher still holds
	lazyGroup int
	closed    bool
	// requests and bytes count what was fetched, for metrics and tests.
	requests, bytes atomic.Int64
}

func newFetcher(r io.ReaderAt, opts FetchOptions) *fetcher {
	opts = opts.withDefaults()
	return &fetcher{r: r, opts: opts, sem: make(chan struct{}, opts.Concurrency)}
}

// coalesce merges sorted-by-offset copies of ranges whose gaps are at most
// gap bytes, keeping each merged range at most maxSize unless a single
// range is larger on its own.
func coalesce(ranges []ByteRange, gap, maxSize int64) []ByteRange {
	if len(ranges) == 0 {
		return nil
	}
	sorted := slices.Clone(ranges)
	slices.SortFunc(sorted, func(a, b ByteRange) int { return cmp.Compare(a.Off, b.Off) })
	out := []ByteRange{sorted[0]}
	for _, r := range sorted[1:] {
		last := &out[len(out)-1]
		end := last.Off + last.Size
		if gap >= 0 && r.Off <= end+gap && max(end, r.Off+r.Size)-last.Off <= maxSize {
			last.Size = max(end, r.Off+r.Size) - last.Off
			continue
		}
		out = append(out, r)
	}
	return out
}

// prefetch starts fetching ranges (coalesced) for row group rowGroup.
// Ranges a held span already covers are skipped. With lazy, nothing is
// fetched until a chunk reader first touches one of them; then all start
// at once. With speculative, the fetch is skipped when it would take the
// bytes held past PrefetchBytes.
func (f *fetcher) prefetch(ranges []ByteRange, rowGroup int, lazy, speculative bool) {
	if f.opts.Direct {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	var needed []ByteRange
	for _, r := range ranges {
		if r.Size > 0 && f.coveringLocked(r.Off, r.Size) == nil {
			needed = append(needed, r)
		}
	}
	merged := coalesce(needed, f.opts.CoalesceGap, f.opts.MaxRequest)
	total := int64(0)
	for _, r := range merged {
		total += r.Size
	}
	if speculative && (f.opts.PrefetchBytes < 0 || f.held+total > f.opts.PrefetchBytes) {
		return
	}
	group := 0
	if lazy {
		f.lazyGroup++
		group = f.lazyGroup
	}
	for _, r := range merged {
		s := &span{off: r.Off, buf: GetBytes(int(r.Size)), done: make(chan struct{}), rowGroup: rowGroup, group: group, owned: true}
		s.refs.Store(1)
		f.held += r.Size
		f.spans = append(f.spans, s)
		if !lazy {
			f.startLocked(s)
		}
	}
}

// startLocked launches s's request; the request holds a reference so the
// buffer outlives a concurrent release.
func (f *fetcher) startLocked(s *span) {
	if s.started {
		return
	}
	s.started = true
	s.refs.Add(1)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer s.unref()
		f.sem <- struct{}{}
		n, err := f.r.ReadAt(s.buf, s.off)
		<-f.sem
		if n < len(s.buf) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			s.err = fmt.Errorf("reading %d bytes at offset %d: %w", len(s.buf), s.off, err)
		}
		f.requests.Add(1)
		f.bytes.Add(int64(n))
		close(s.done)
	}()
}

func (f *fetcher) coveringLocked(off, size int64) *span {
	for _, s := range f.spans {
		if s.owned && s.off <= off && off+size <= s.end() {
			return s
		}
	}
	return nil
}

// take returns the bytes [off, off+size) from a span that covers them,
// waiting for its request, and the span the caller must unref when done.
// It returns a nil span when no span covers the range.
func (f *fetcher) take(off, size int64) ([]byte, *span, error) {
	f.mu.Lock()
	s := f.coveringLocked(off, size)
	if s == nil {
		f.mu.Unlock()
		return nil, nil, nil
	}
	s.refs.Add(1)
	if !s.started {
		for _, other := range f.spans {
			if other.group == s.group && other.owned {
				f.startLocked(other)
			}
		}
	}
	f.mu.Unlock()
	<-s.done
	if s.err != nil {
		s.unref()
		return nil, nil, s.err
	}
	start := off - s.off
	return s.buf[start : start+size : start+size], s, nil
}

// releaseBefore drops the fetcher's hold on spans fetched for row groups
// before rowGroup: decoding has moved on, so only chunk readers still
// using them keep them alive.
func (f *fetcher) releaseBefore(rowGroup int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := f.spans[:0]
	for _, s := range f.spans {
		if s.rowGroup < rowGroup {
			f.dropLocked(s)
			continue
		}
		kept = append(kept, s)
	}
	clear(f.spans[len(kept):])
	f.spans = kept
}

func (f *fetcher) dropLocked(s *span) {
	if !s.owned {
		return
	}
	s.owned = false
	f.held -= int64(len(s.buf))
	if !s.started {
		// Never requested: no reader waits on it.
		s.started = true
		close(s.done)
	}
	s.unref()
}

// close drops every span and waits for requests in flight.
func (f *fetcher) close() {
	f.mu.Lock()
	f.closed = true
	for _, s := range f.spans {
		f.dropLocked(s)
	}
	f.spans = nil
	f.mu.Unlock()
	f.wg.Wait()
}
