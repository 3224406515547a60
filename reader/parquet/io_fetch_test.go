package parquet

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestCoalesce(t *testing.T) {
	cases := []struct {
		name     string
		in       []ByteRange
		gap, max int64
		want     []ByteRange
	}{
		{"empty", nil, 10, 100, nil},
		{"adjacent merge", []ByteRange{{0, 10}, {10, 5}}, 0, 100, []ByteRange{{0, 15}}},
		{"gap within threshold", []ByteRange{{0, 10}, {15, 5}}, 5, 100, []ByteRange{{0, 20}}},
		{"gap too wide", []ByteRange{{0, 10}, {16, 5}}, 5, 100, []ByteRange{{0, 10}, {16, 5}}},
		{"unsorted and overlapping", []ByteRange{{50, 10}, {0, 30}, {20, 15}}, 0, 100, []ByteRange{{0, 35}, {50, 10}}},
		{"contained", []ByteRange{{0, 100}, {10, 5}}, 0, 1000, []ByteRange{{0, 100}}},
		{"size cap", []ByteRange{{0, 60}, {60, 60}, {120, 10}}, 0, 100, []ByteRange{{0, 60}, {60, 70}}},
		{"single range over the cap stays whole", []ByteRange{{0, 500}}, 0, 100, []ByteRange{{0, 500}}},
		{"negative gap merges nothing", []ByteRange{{10, 5}, {0, 10}}, -1, 100, []ByteRange{{0, 10}, {10, 5}}},
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
