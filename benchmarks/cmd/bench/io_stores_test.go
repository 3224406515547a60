package main

import (
	"strings"
	"testing"
)

// checkStoreRequests holds one store's part 1 to what S3's is held to:
// every run ok, coalescing saving requests (but on the filtered scan,
// whose one row group lies mostly in the footer read), the proxy seeing
// at least what floe counts, and the report printing the ratios.
func checkStoreRequests(t *testing.T, st ioStoreRequests, scans []ioScan) {
	t.Helper()
	if st.Status != "ok" || len(st.Requests) != 2*len(scans) {
		t.Fatalf("%s: status %s, %d runs", st.Store, st.Status, len(st.Requests))
	}
	for _, s := range scans {
		c, p := st.request(s.Name, "coalesced"), st.request(s.Name, "per-chunk")
		if c.Status != "ok" || p.Status != "ok" {
			t.Fatalf("%s: %s / %s", s.Name, c.Status, p.Status)
		}
		saved := c.FloeRequests < p.FloeRequests && c.ProxyRequests < p.ProxyRequests
		if s.Filter != "" {
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
