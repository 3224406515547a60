package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/internal/s3test"
)

// smallIOTable is a lineitem table small enough for tests: 2 files of 4
// row groups.
// smallIOTable's files (about 3 MiB) are several times floe's 512 KiB
// footer read, so most column chunks still need requests of their own.
func smallIOTable(t *testing.T) *lineitem.Table {
	t.Helper()
	tbl, err := lineitem.Generate(t.TempDir(), lineitem.Params{Rows: 200_000, Files: 2, RowGroupsPerFile: 4, Seed: 11}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestIOProcesses splits a scan over two worker processes (this test
// binary, re-run): their digests must add up to the single-process scan's,
// which must hold the rows the generator made, and both workers must have
// had work, parts of files included.
func TestIOProcesses(t *testing.T) {
	tbl := smallIOTable(t)
	_, dataBytes, err := tableSize(tbl)
	if err != nil {
		t.Fatal(err)
	}
	run := measureProcesses(context.Background(), tbl, 2, dataBytes)
	if run.Status != "ok" {
		t.Fatalf("status %s", run.Status)
	}
	if run.Single.Rows != tbl.Params.Rows || run.Single.Rows != run.Expected.Rows || run.Single.SumPartKey != run.Expected.SumPartKey {
		t.Errorf("single process %v, generator %+v", run.Single, run.Expected)
	}
	if run.Combined != run.Single || run.Single.Hash == 0 {
		t.Errorf("workers %v, single process %v", run.Combined, run.Single)
	}
	if len(run.Workers) != 2 || run.Tasks <= tbl.Params.Files || run.Groups < 2 {
		t.Fatalf("%d workers, %d tasks, %d groups: the files were not split and shared", len(run.Workers), run.Tasks, run.Groups)
	}
	for i, w := range run.Workers {
		if w.Groups == 0 || w.Digest.Rows == 0 || w.Digest.Rows == run.Single.Rows {
			t.Errorf("worker %d read %d groups, %d rows: not a share", i+1, w.Groups, w.Digest.Rows)
		}
	}
}

// TestIOSection runs the whole section on the small table: each scan's
// requests with and without coalescing, floe and iceberg-go behind a
// delay, threads and processes, and the report.
func TestIOSection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts versitygw and worker processes")
	}
	tbl := smallIOTable(t)
	res, err := measureIO(context.Background(), tbl, ioConfig{repeat: 1, delay: 5 * time.Millisecond, workers: 2}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.S3Status, "versitygw is not installed") && os.Getenv("FLOE_REQUIRE_S3") != "1" {
		t.Skipf("S3 parts: %s", res.S3Status)
	}
	var out strings.Builder
	res.print(&out)
	t.Log(out.String())
	if !res.floeOK() {
		t.Fatalf("floe failed: %q", res.Problems)
	}
	if len(res.Requests) != 6 || len(res.Latency) != 4 || len(res.Threads) != 4 {
		t.Fatalf("%d request runs, %d latency runs, %d thread runs; want 6, 4, 4", len(res.Requests), len(res.Latency), len(res.Threads))
	}
	chunks := int64(tbl.Params.Files * tbl.Params.RowGroupsPerFile) // column chunks per column
	for _, s := range res.Scans {
		c, p := res.request(s.Name, "coalesced"), res.request(s.Name, "per-chunk")
		// The filtered scan reads one row group of one file, most of which
		// the 512 KiB footer read of these small files already holds: there
		// is little left to coalesce.
		saved := c.FloeRequests < p.FloeRequests && c.ProxyRequests < p.ProxyRequests
		if s.Filter != "" {
			saved = c.FloeRequests <= p.FloeRequests && c.ProxyRequests <= p.ProxyRequests
		}
		if c.FloeRequests <= 0 || !saved {
			t.Errorf("%s: coalesced %d/%d requests (floe/proxy), per-chunk %d/%d: coalescing saved nothing",
				s.Name, c.FloeRequests, c.ProxyRequests, p.FloeRequests, p.ProxyRequests)
		}
		// The proxy sees every request floe makes, and the metadata's too.
		for _, run := range []*ioRequestRun{c, p} {
			if run.ProxyRequests <= run.FloeRequests || run.ProxyBytes < run.FloeBytesRead {
				t.Errorf("%s %s: proxy %d requests %d bytes, floe %d requests %d bytes", s.Name, run.Fetch,
					run.ProxyRequests, run.ProxyBytes, run.FloeRequests, run.FloeBytesRead)
			}
		}
		// Per chunk, every column chunk outside the footer read (the last
		// row group of each file mostly lies in it) is a request.
		outside := chunks - int64(tbl.Params.Files)
		if s.Name == "full" && p.FloeRequests < outside*9 {
			t.Errorf("full scan per chunk: %d requests for %d column chunks outside the footer reads", p.FloeRequests, outside*9)
		}
		if s.Name == "2-col" && p.FloeRequests < outside*2 {
			t.Errorf("2-col scan per chunk: %d requests for %d column chunks outside the footer reads", p.FloeRequests, outside*2)
		}
	}
	if f, full := res.request("filtered", "coalesced"), res.request("full", "coalesced"); f.FloeBytesRead*4 > full.FloeBytesRead {
		t.Errorf("the 1%% filter read %d bytes, the full scan %d", f.FloeBytesRead, full.FloeBytesRead)
	}
	for _, run := range res.Latency {
		if run.Status != "ok" {
			t.Errorf("%s %s behind a delay: %s", run.Peer, run.Scan, run.Status)
		}
		if run.WallSeconds < 0.005 || run.Requests == 0 {
			t.Errorf("%s %s: %.4f s for %d requests behind 5 ms each", run.Peer, run.Scan, run.WallSeconds, run.Requests)
		}
	}
	if len(res.Targets) != 3 || !strings.HasSuffix(res.Targets[2], ": ok") {
		t.Errorf("targets %q", res.Targets)
	}
	for _, want := range []string{"1. requests", "2. S3 with 5 ms", "3. local disk", "4. processes", "io targets", "wall iceberg-go / floe"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not mention %q", want)
		}
	}
}

// TestIOTargetVerdict checks the speed-up target is judged on the measured
// times, and a failed run or a processes mismatch fails it.
func TestIOTargetVerdict(t *testing.T) {
	for _, tc := range []struct {
		one, two  ioThreadRun
		machine   []float64
		processes string
		want      []string
	}{
		{ioThreadRun{Status: "ok", WallSeconds: 1.9}, ioThreadRun{Status: "ok", WallSeconds: 1}, nil, "ok", []string{"1.90× — met", ": ok"}},
		{ioThreadRun{Status: "ok", WallSeconds: 1.7}, ioThreadRun{Status: "ok", WallSeconds: 1}, []float64{1.95, 1.99}, "ok", []string{"1.70× — NOT met", ": ok"}},
		// A busy machine is named as the likely cause, the verdict stays.
		{ioThreadRun{Status: "ok", WallSeconds: 1.1}, ioThreadRun{Status: "ok", WallSeconds: 1}, []float64{1.02, 1.3}, "ok",
			[]string{"1.10× — NOT met (the machine itself gave two spinning goroutines only 1.30×: not measurable here)", ": ok"}},
		{ioThreadRun{Status: "error: boom"}, ioThreadRun{Status: "ok", WallSeconds: 1}, nil, "FAIL: differ", []string{"no valid measurement — NOT met", ": FAIL"}},
	} {
		tc.one.Threads, tc.two.Threads = 1, 2
		tc.one.Ordered, tc.two.Ordered = true, true
		res := &ioResults{S3Status: "ok", Ratios: map[string]string{}, Threads: []ioThreadRun{tc.one, tc.two},
			MachineSpeedup: tc.machine, Processes: &ioProcessRun{Status: tc.processes}}
		res.judge()
		if len(res.Targets) != len(tc.want) {
			t.Fatalf("targets %q, want %d", res.Targets, len(tc.want))
		}
		for i, want := range tc.want {
			if !strings.HasSuffix(res.Targets[i], want) {
				t.Errorf("target %q, want it to end %q", res.Targets[i], want)
			}
		}
	}
}

// TestRowDigest: the digest does not depend on how rows are batched or
// ordered, and changes when any value of any column does.
func TestRowDigest(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64},
		{Name: "comment", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	batch := func(keys []int64, prices []float64, comments []string) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		for i := range keys {
			if keys[i] < 0 {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(keys[i])
			}
			b.Field(1).(*array.Float64Builder).Append(prices[i])
			b.Field(2).(*array.StringBuilder).Append(comments[i])
		}
		return b.NewRecordBatch()
	}
	digestOf := func(recs ...arrow.RecordBatch) rowDigest {
		var g digester
		var d rowDigest
		for _, rec := range recs {
			if err := g.add(rec, &d); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		return d
	}
	whole := digestOf(batch([]int64{1, 2, -1}, []float64{1.5, 2.5, 3.5}, []string{"a", "bb", "ccc"}))
	if whole.Rows != 3 || whole.SumPartKey != 3 {
		t.Fatalf("digest %v, want 3 rows and sum 3 (the null not counted)", whole)
	}
	split := digestOf(batch([]int64{-1}, []float64{3.5}, []string{"ccc"}), batch([]int64{2, 1}, []float64{2.5, 1.5}, []string{"bb", "a"}))
	if split != whole {
		t.Errorf("reordered and rebatched: %v, whole %v", split, whole)
	}
	// A value moved to another row keeps every column's multiset of values
	// but not the rows: the digest must see it.
	for name, other := range map[string]rowDigest{
		"prices swapped":  digestOf(batch([]int64{1, 2, -1}, []float64{2.5, 1.5, 3.5}, []string{"a", "bb", "ccc"})),
		"string changed":  digestOf(batch([]int64{1, 2, -1}, []float64{1.5, 2.5, 3.5}, []string{"a", "bc", "ccc"})),
		"null for a zero": digestOf(batch([]int64{1, 2, 0}, []float64{1.5, 2.5, 3.5}, []string{"a", "bb", "ccc"})),
	} {
		if other.Hash == whole.Hash {
			t.Errorf("%s: same row hash %x", name, whole.Hash)
		}
	}
}

// TestIOStoreWithoutVersitygw: with no versitygw the S3 parts say why and
// do not pretend to have run.
func TestIOStoreWithoutVersitygw(t *testing.T) {
	t.Setenv("FLOE_VERSITYGW", t.TempDir()+"/missing")
	_, err := startIOStore(context.Background(), &lineitem.Table{})
	if !errors.Is(err, s3test.ErrNoVersitygw) {
		t.Fatalf("startIOStore without versitygw: %v", err)
	}
}
