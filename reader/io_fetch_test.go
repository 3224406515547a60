package reader

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
)

func TestCoalesce(t *testing.T) {
	cases := []struct {
		name     string
		in       []byteRange
		gap, max int64
		want     []byteRange
	}{
		{"empty", nil, 10, 100, nil},
		{"adjacent merge", []byteRange{{0, 10}, {10, 5}}, 0, 100, []byteRange{{0, 15}}},
		{"gap within threshold", []byteRange{{0, 10}, {15, 5}}, 5, 100, []byteRange{{0, 20}}},
		{"gap too wide", []byteRange{{0, 10}, {16, 5}}, 5, 100, []byteRange{{0, 10}, {16, 5}}},
		{"unsorted and overlapping", []byteRange{{50, 10}, {0, 30}, {20, 15}}, 0, 100, []byteRange{{0, 35}, {50, 10}}},
		{"contained", []byteRange{{0, 100}, {10, 5}}, 0, 1000, []byteRange{{0, 100}}},
		{"size cap", []byteRange{{0, 60}, {60, 60}, {120, 10}}, 0, 100, []byteRange{{0, 60}, {60, 70}}},
		{"single range over the cap stays whole", []byteRange{{0, 500}}, 0, 100, []byteRange{{0, 500}}},
		{"negative gap merges nothing", []byteRange{{10, 5}, {0, 10}}, -1, 100, []byteRange{{0, 10}, {10, 5}}},
	}
	for _, c := range cases {
		got := coalesce(c.in, c.gap, c.max)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: coalesce(%v) = %v, want %v", c.name, c.in, got, c.want)
		}
	}
}

// countingFile counts ReadAt calls and can fail or cut short the ones that
// start at a chosen offset.
type countingFile struct {
	r        io.ReaderAt
	calls    atomic.Int64
	failAt   int64
	shortAt  int64
	failWith error
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	c.calls.Add(1)
	if c.failWith != nil && off == c.failAt {
		return 0, c.failWith
	}
	n, err := c.r.ReadAt(p, off)
	if c.shortAt > 0 && off == c.shortAt && n > 1 {
		return n / 2, nil
	}
	return n, err
}

// multiGroupFile is bigger than the footer read and has several row groups.
func multiGroupFile(t *testing.T) []byte {
	data := smallTable(t, 120000, parquet.MaxRowsPerRowGroup(30000), parquet.Compression(&parquet.Uncompressed))
	if len(data) <= DefaultFooterReadSize {
		t.Fatalf("test file of %d bytes fits in the footer read", len(data))
	}
	return data
}

func allColumns(f *File) []Column {
	var cols []Column
	for _, n := range f.Root.Children {
		cols = append(cols, Column{Node: n})
	}
	return cols
}

// readGroups reads every row group, prefetching each (or not), and returns
// the batches' columns concatenated per row group as compared values.
func readGroups(t *testing.T, f *File, prefetch bool) []*Batch {
	var out []*Batch
	for rg := range f.RowGroups {
		br, err := f.NewBatchReader(ReadRequest{Columns: allColumns(f), RowGroup: rg, BatchSize: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		if prefetch {
			br.Prefetch(false, false)
		}
		b, err := br.Next()
		if err != nil {
			t.Fatal(err)
		}
		br.Close()
		f.ReleaseFetched(rg + 1)
		out = append(out, b)
	}
	return out
}

// A prefetched row group costs one request (its column chunks are
// neighbours) instead of one per column chunk, and decodes the same.
func TestPrefetchCoalescesAColumnChunksIntoOneRequest(t *testing.T) {
	data := multiGroupFile(t)
	plainIO := &countingFile{r: bytes.NewReader(data)}
	plain, err := OpenFile(plainIO, int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := readGroups(t, plain, false)
	fetchedIO := &countingFile{r: bytes.NewReader(data)}
	fetched, err := OpenFile(fetchedIO, int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := readGroups(t, fetched, true)
	defer fetched.Close()
	for i := range want {
		for c := range want[i].Columns {
			assertSameArrays(t, "prefetched column", want[i].Columns[c], got[i].Columns[c])
		}
		want[i].Release()
		got[i].Release()
	}
	groups := int64(len(fetched.RowGroups))
	// The last row group lies in the footer read, so it needs no request.
	if n := fetchedIO.calls.Load() - 1; n > groups {
		t.Errorf("prefetched read made %d requests after the footer for %d row groups", n, groups)
	}
	if n := plainIO.calls.Load() - 1; n <= groups {
		t.Errorf("unprefetched read made only %d requests; the test does not show coalescing", n)
	}
	if reqs, _ := fetched.FetchStats(); reqs == 0 || reqs > groups {
		t.Errorf("FetchStats requests = %d for %d row groups", reqs, groups)
	}
}

// A failed or short fetch fails the read with an error; it never yields
// data.
func TestPrefetchErrorsFailTheRead(t *testing.T) {
	data := multiGroupFile(t)
	probe := openBytes(t, data)
	start := probe.RowGroups[0].Columns[0].Start()
	for _, mode := range []string{"error", "short"} {
		cf := &countingFile{r: bytes.NewReader(data)}
		if mode == "error" {
			cf.failAt, cf.failWith = start, errors.New("injected failure")
		} else {
			cf.shortAt = start
		}
		f, err := OpenFile(cf, int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		br, err := f.NewBatchReader(ReadRequest{Columns: allColumns(f), RowGroup: 0})
		if err != nil {
			t.Fatal(err)
		}
		br.Prefetch(false, false)
		if b, err := br.Next(); err == nil {
			b.Release()
			t.Errorf("%s: read succeeded", mode)
		}
		br.Close()
		f.Close()
	}
}

// A lazy prefetch that no column touches makes no request, and a
// speculative one beyond the budget is not made.
func TestPrefetchLazyAndBudget(t *testing.T) {
	data := multiGroupFile(t)
	cf := &countingFile{r: bytes.NewReader(data)}
	f, err := OpenFile(cf, int64(len(data)), &OpenOptions{Fetch: FetchOptions{PrefetchBytes: 1024}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := cf.calls.Load()
	br, err := f.NewBatchReader(ReadRequest{Columns: allColumns(f), RowGroup: 0})
	if err != nil {
		t.Fatal(err)
	}
	br.Prefetch(false, true)
	br.Prefetch(true, false) // over the 1 KiB budget
	f.ReleaseFetched(1)
	br.Close()
	f.fetcher.wg.Wait()
	if n := cf.calls.Load() - before; n != 0 {
		t.Errorf("untouched lazy and over-budget prefetches made %d requests", n)
	}
}

// On a scan, coalescing cuts requests and changes no row; "coalesce_gap"
// reaches the fetcher through the scan options' JSON. Local files with no
// fetch option set are read directly, as they are needed.
func TestScanCoalescingCutsRequests(t *testing.T) {
	requests := map[string]int64{}
	rows := map[string][]string{}
	// Any fetch option turns prefetching on for local files too.
	for name, js := range map[string]string{"coalesced": `{"io_concurrency": 8}`, "one per chunk": `{"coalesce_gap": -1}`} {
		o, err := ParseScanOptions([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		s := openScan(t, "duckdb_lineitem_iceberg", o)
		rr, err := s.Reader(context.Background(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		rows[name] = taskRows(t, rr)
		requests[name] = s.Metrics().Requests
		// Bytes the footer read brought are never fetched again.
		var size int64
		for _, task := range s.Tasks() {
			size += task.FileSize
		}
		if read := s.Metrics().BytesRead; read > size {
			t.Errorf("%s: a full scan read %d bytes of files holding %d", name, read, size)
		}
	}
	if !slices.Equal(rows["coalesced"], rows["one per chunk"]) {
		t.Error("coalescing changed the rows")
	}
	if requests["coalesced"] >= requests["one per chunk"] {
		t.Errorf("coalesced scan made %d requests, uncoalesced %d", requests["coalesced"], requests["one per chunk"])
	}
	t.Logf("requests: %v", requests)
}

func openScan(t *testing.T, name string, opts ScanOptions) *Scan {
	t.Helper()
	s, err := NewScan(context.Background(), openFixtureTable(t, name), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Local files read with default options make one request per column chunk
// and hold no fetched spans; the same scan with a fetch option set merges
// its requests.
func TestLocalFilesReadDirectly(t *testing.T) {
	ctx := context.Background()
	s := openScan(t, "duckdb_lineitem_iceberg", ScanOptions{})
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	direct := taskRows(t, rr)
	perChunk := openScan(t, "duckdb_lineitem_iceberg", ScanOptions{FetchOptions: FetchOptions{CoalesceGap: -1}})
	rr, err = perChunk.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(taskRows(t, rr), direct) {
		t.Fatal("a direct read differs from a fetched one")
	}
	if d, p := s.Metrics().Requests, perChunk.Metrics().Requests; d != p {
		t.Errorf("direct local read made %d requests, one per chunk %d", d, p)
	}
}
