package parquet

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// largestRead records the largest single ReadAt.
type largestRead struct {
	io.ReaderAt
	mu  sync.Mutex
	max int
}

func (r *largestRead) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	r.max = max(r.max, len(p))
	r.mu.Unlock()
	return r.ReaderAt.ReadAt(p, off)
}

func lineitemFile(t *testing.T) []byte {
	t.Helper()
	for _, p := range fixtureParquetFiles(t) {
		if strings.Contains(p, "duckdb_lineitem_iceberg") {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	t.Fatal("no lineitem file among the fixtures")
	return nil
}

// readAll decodes every column of every row group and returns the rows.
func readAll(t *testing.T, f *File) (int64, error) {
	t.Helper()
	var rows int64
	for rg := range f.RowGroups {
		var cols []Column
		for _, n := range f.Root.Children {
			cols = append(cols, Column{Node: n})
		}
		br, err := f.NewBatchReader(ReadRequest{RowGroup: rg, Columns: cols, Allocator: memory.NewGoAllocator()})
		if err != nil {
			return rows, err
		}
		for {
			b, err := br.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				br.Close()
				return rows, err
			}
			rows += int64(b.NumRows)
			b.Release()
		}
		br.Close()
	}
	return rows, nil
}

// With ChunkWindow, a column chunk is read in windows: no request is
// larger than the window (or the page that needs more), where whole-chunk
// reads ask for a column chunk at once.
func TestChunkWindowBoundsReads(t *testing.T) {
	data := lineitemFile(t)
	var largestChunk int64
	open := func(opts *OpenOptions) (*File, *largestRead) {
		r := &largestRead{ReaderAt: bytes.NewReader(data)}
		f, err := OpenFile(r, int64(len(data)), &OpenOptions{FooterReadSize: 8 << 10, Fetch: opts.Fetch})
		if err != nil {
			t.Fatal(err)
		}
		return f, r
	}
	whole, wr := open(&OpenOptions{Fetch: FetchOptions{Direct: true}})
	for _, rg := range whole.RowGroups {
		for _, c := range rg.Columns {
			largestChunk = max(largestChunk, c.TotalCompressedSize)
		}
	}
	want, err := readAll(t, whole)
	if err != nil || want != whole.NumRows {
		t.Fatalf("whole chunks: %d rows, %v", want, err)
	}
	const window = 16 << 10
	if largestChunk < 8*window || int64(wr.max) < largestChunk/2 {
		t.Fatalf("the file's largest chunk is %d bytes and the largest read %d: not a test of windows", largestChunk, wr.max)
	}
	windowed, rr := open(&OpenOptions{Fetch: FetchOptions{Direct: true, ChunkWindow: window}})
	got, err := readAll(t, windowed)
	if err != nil || got != want {
		t.Fatalf("windowed: %d rows, %v; want %d", got, err, want)
	}
	// A refill reads a window, or a whole page when the page is longer
	// (DuckDB's text pages here run to 150 KB): well under a chunk.
	if int64(rr.max) > largestChunk/2 {
		t.Errorf("windowed reads asked for %d bytes at once (window %d)", rr.max, window)
	}
	t.Logf("largest read: %d bytes whole, %d windowed (largest chunk %d)", wr.max, rr.max, largestChunk)

	// A page over the cap is refused as corrupt, before its bytes are
	// allocated.
	capped, _ := open(&OpenOptions{Fetch: FetchOptions{MaxPageBytes: 1 << 10}})
	if _, err := readAll(t, capped); !errors.Is(err, errkind.Corrupt) || !strings.Contains(err.Error(), "memory limit") {
		t.Fatalf("a 1 KiB page cap: %v", err)
	}
}

// A page header claiming 2 GiB (a corrupt or hostile file) is refused
// under a page cap before anything that size is allocated.
func TestHugePageClaimIsRefusedBeforeAllocating(t *testing.T) {
	data := lineitemFile(t)
	f := openBytes(t, data)
	chunk := f.RowGroups[0].Columns[0]
	start := chunk.Start()
	var hdr format.PageHeader
	r := ThriftReader{Buf: data[start:]}
	var ours PageHeader
	if err := ParsePageHeader(&r, &ours); err != nil {
		t.Fatal(err)
	}
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, data[start:start+int64(r.Pos)], &hdr); err != nil {
		t.Fatal(err)
	}
	hdr.UncompressedPageSize = 1<<31 - 1
	huge, err := thrift.Marshal(&thrift.CompactProtocol{}, &hdr)
	if err != nil {
		t.Fatal(err)
	}
	// The header grows by a few bytes; what it pushes past the chunk's end
	// is never reached.
	bad := append(append(append([]byte(nil), data[:start]...), huge...), data[start+int64(r.Pos):]...)
	bad = append(bad[:len(data)-len(data[start+chunk.TotalCompressedSize:])], data[start+chunk.TotalCompressedSize:]...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	capped := openBytesWith(t, bad, &OpenOptions{Fetch: FetchOptions{MaxPageBytes: 64 << 20}})
	_, err = readAll(t, capped)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errkind.Corrupt) || !strings.Contains(err.Error(), "2147483647 uncompressed") {
		t.Fatalf("a 2 GiB page claim under a 64 MiB cap: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("the refused read allocated %d MiB", grew>>20)
	}
}
