package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// On GCS too each scan's requests are counted with and without
// coalescing, and coalescing saves requests on the scans that read many
// column chunks; the proxy sees every request floe counts, and the report
// prints the part.
func TestIOGCSRequests(t *testing.T) {
	tbl := smallIOTable(t)
	scans, err := ioScans(tbl.Params)
	if err != nil {
		t.Fatal(err)
	}
	st := measureGCSRequests(context.Background(), tbl, scans)
	if strings.Contains(st.Status, "not installed") && os.Getenv("FLOE_REQUIRE_GCS") != "1" {
		t.Skip(st.Status)
	}
	if st.Status != "ok" || len(st.Requests) != 2*len(scans) {
		t.Fatalf("status %s, %d runs", st.Status, len(st.Requests))
	}
	for _, s := range scans {
		c, p := st.request(s.Name, "coalesced"), st.request(s.Name, "per-chunk")
		if c.Status != "ok" || p.Status != "ok" {
			t.Fatalf("%s: %s / %s", s.Name, c.Status, p.Status)
		}
		saved := c.FloeRequests < p.FloeRequests && c.ProxyRequests < p.ProxyRequests
		if s.Filter != "" { // one row group, mostly inside the footer read
			saved = c.FloeRequests <= p.FloeRequests && c.ProxyRequests <= p.ProxyRequests
		}
		if c.FloeRequests <= 0 || !saved {
			t.Errorf("%s: coalesced %d/%d requests (floe/proxy), per-chunk %d/%d", s.Name, c.FloeRequests, c.ProxyRequests, p.FloeRequests, p.ProxyRequests)
		}
		for _, run := range []*ioRequestRun{c, p} {
			if run.ProxyRequests <= run.FloeRequests || run.ProxyBytes < run.FloeBytesRead {
				t.Errorf("%s %s: proxy %d requests %d bytes, floe %d requests %d bytes", s.Name, run.Fetch,
					run.ProxyRequests, run.ProxyBytes, run.FloeRequests, run.FloeBytesRead)
			}
		}
	}
	res := &ioResults{Scans: scans, Stores: []ioStoreRequests{st}, Ratios: map[string]string{}}
	res.judgeStores()
	var out strings.Builder
	res.printStores(&out)
	t.Log(out.String())
	if len(res.Problems) != 0 || !strings.Contains(out.String(), "requests per-chunk / coalesced, full") {
		t.Errorf("problems %q; report:\n%s", res.Problems, out.String())
	}
}
