package resttest

import (
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// Proxy is a reverse proxy on 127.0.0.1 in front of a REST catalog (a
// real one: SeaweedFS) that injects Faults into the requests it forwards.
type Proxy struct {
	URL string
	Faults
}

// NewProxy starts a proxy in front of target, stopped when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{}
	forward := httputil.NewSingleHostReverseProxy(u)
	hs := httptest.NewServer(p.Faults.Handler(forward))
	p.URL = hs.URL
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	return p
}
