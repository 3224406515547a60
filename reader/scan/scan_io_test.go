package scan

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/reader/parquet"
)

// On a scan, coalescing cuts requests and changes no row; CoalesceGap
// reaches the fetcher through the scan options. Local files with no fetch
// option set are read directly, as they are needed.
func TestScanCoalescingCutsRequests(t *testing.T) {
	requests := map[string]int64{}
	rows := map[string][]string{}
	// Any fetch option turns prefetching on for local files too.
	for name, o := range map[string]Options{
		"coalesced":     {FetchOptions: parquet.FetchOptions{Concurrency: 8}},
		"one per chunk": {FetchOptions: parquet.FetchOptions{CoalesceGap: -1}},
	} {
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

func openScan(t *testing.T, name string, opts Options) *Scan {
	t.Helper()
	s, err := New(context.Background(), openFixtureTable(t, name), opts)
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
	s := openScan(t, "duckdb_lineitem_iceberg", Options{})
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	direct := taskRows(t, rr)
	perChunk := openScan(t, "duckdb_lineitem_iceberg", Options{FetchOptions: parquet.FetchOptions{CoalesceGap: -1}})
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
