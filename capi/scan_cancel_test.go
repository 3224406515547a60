package main

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
)

// stalledScan opens a table on S3 through a fault proxy, plans a scan with
// scanJSON, opens its stream, and then makes every request hang (the proxy
// holds it for a minute): the stream's next get_next blocks on S3.
func stalledScan(t *testing.T, scanJSON string) (*scanHandle, *stream, *s3test.FaultProxy) {
	t.Helper()
	srv := s3test.Start(t)
	local := filepath.ToSlash(filepath.Join(t.TempDir(), "t"))
	if _, err := testtable.Build(local, testtable.Options{Rows: testtable.RandomRows(1, 20000), RowsPerFile: 1000}); err != nil {
		t.Fatal(err)
	}
	srv.Upload(t, local, srv.Location("t"))
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	via := srv.OptionsVia(proxy)
	tbl, err := table.Open(context.Background(), srv.Location("t"), table.Options{LocationMap: map[string]string{local: srv.Location("t")}, S3: &via})
	if err != nil {
		t.Fatal(err)
	}
	h, err := openScan(&tableHandle{table: tbl}, []byte(scanJSON))
	if err != nil {
		t.Fatal(err)
	}
	proxy.SetDelay(time.Minute)
	t.Cleanup(func() { proxy.SetDelay(0) })
	rdr, cancel, err := h.stream(scan.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h, &stream{rdr: rdr, schema: h.scan.Schema(), cancel: cancel}, proxy
}

// nextIn runs get_next in another goroutine (as a host's reading thread)
// and returns its errno once it comes back.
func nextIn(s *stream) <-chan syscall.Errno {
	done := make(chan syscall.Errno, 1)
	go func() {
		out := new(cArrowArray)
		rc := s.getNext(out)
		if rc == 0 && out.release != nil {
			releaseArray(out)
		}
		done <- syscall.Errno(rc)
	}()
	return done
}

// floeGoroutines are the goroutines running floe's readers or I/O: after
// a cancelled scan, none may be left.
func floeGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var left []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "floe/reader/") || strings.Contains(g, "floe/iceberg/fileio") {
			left = append(left, g)
		}
	}
	return left
}

func waitNoFloeGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := floeGoroutines()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d floe goroutines left after the scan stopped; the first:\n%s", len(left), left[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// floe_scan_cancel, called from another thread while get_next waits on a
// stalled S3 read, makes get_next return ECANCELED within 100 ms, and
// nothing of the scan keeps running.
func TestCancelStopsAStalledScan(t *testing.T) {
	for _, threads := range []int{1, 3} {
		h, s, proxy := stalledScan(t, `{"threads": `+string(rune('0'+threads))+`}`)
		before := proxy.Requests()
		done := nextIn(s)
		time.Sleep(300 * time.Millisecond) // the read is now waiting on the proxy
		select {
		case rc := <-done:
			t.Fatalf("threads %d: get_next returned %d while S3 stalled", threads, rc)
		default:
		}
		if proxy.Requests() == before {
			t.Fatalf("threads %d: no request reached the proxy", threads)
		}
		start := time.Now()
		h.cancel()
		select {
		case rc := <-done:
			latency := time.Since(start)
			t.Logf("threads %d: get_next returned %v %v after floe_scan_cancel", threads, rc, latency)
			if rc != syscall.ECANCELED {
				t.Logf("message: %s", goString(s.lastError()))
				t.Errorf("threads %d: errno %d (%v), want ECANCELED", threads, rc, rc)
			}
			if latency > 100*time.Millisecond {
				t.Errorf("threads %d: cancellation took %v, more than 100 ms", threads, latency)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("threads %d: get_next still blocked 5 s after floe_scan_cancel", threads)
		}
		if msg := goString(s.lastError()); !strings.Contains(msg, "context canceled") {
			t.Errorf("last error %q", msg)
		}
		s.release()
		waitNoFloeGoroutines(t)
		// The cancelled scan opens no new stream.
		if _, _, err := h.stream(scan.StreamOptions{}); classify(err, statusInternal) != statusCancelled {
			t.Errorf("a stream of the cancelled scan: %v", err)
		}
	}
}

// A scan's timeout_ms ends a stalled read with ETIMEDOUT close to the
// deadline.
func TestScanTimeoutEndsAStalledRead(t *testing.T) {
	const timeout = 400 * time.Millisecond
	_, s, _ := stalledScan(t, `{"timeout_ms": 400, "threads": 2}`)
	start := time.Now()
	select {
	case rc := <-nextIn(s):
		took := time.Since(start)
		t.Logf("get_next returned %v after %v (timeout_ms 400, counted from the stream's opening)", rc, took)
		if rc != syscall.ETIMEDOUT {
			t.Errorf("errno %d (%v), want ETIMEDOUT", rc, rc)
		}
		if took > timeout+100*time.Millisecond {
			t.Errorf("the timeout fired after %v", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("get_next still blocked 5 s into a 400 ms timeout")
	}
	s.release()
	waitNoFloeGoroutines(t)
}
