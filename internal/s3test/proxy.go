package s3test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// FaultProxy is an HTTP reverse proxy on 127.0.0.1 that injects the
// failures an S3 client must survive. Its knobs can be turned while
// requests are in flight:
//
//   - SetFailEvery(n): every n-th request (counting all requests) is
//     answered 503 SlowDown with S3's XML error body, without reaching the
//     server. The request body is read first, as S3 does.
//   - SetTruncateEvery(m): every m-th successful response that has a body of
//     two bytes or more (HEAD responses excluded) is cut: the full
//     Content-Length header is sent, then half the body, then the TCP
//     connection is closed, so the client really sees a short body.
//   - SetDelay(d): every request waits d before it is handled.
//   - DropResponses(n): the next n requests reach the server and take
//     effect, but their responses are lost: the connection is closed
//     without an answer, as when a response times out. This is how a test
//     makes a write whose outcome the client cannot know.
//
// Zero turns a knob off. The proxy forwards requests untouched (the Host
// header included, so SigV4 signatures stay valid) and counts requests and
// response body bytes.
type FaultProxy struct {
	URL string // http://127.0.0.1:PORT

	target    string
	transport *http.Transport
	server    *http.Server

	failEvery, truncateEvery, delay, dropNext atomic.Int64

	requests, responseBytes, failed, truncated, dropped, bodies atomic.Int64
}

// StartFaultProxy starts a proxy in front of target (an http:// base URL),
// stopped when the test ends.
func StartFaultProxy(t testing.TB, target string) *FaultProxy {
	t.Helper()
	p, err := LaunchFaultProxy(target)
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// LaunchFaultProxy is StartFaultProxy for programs that are not tests; the
// caller stops the proxy with Close.
func LaunchFaultProxy(target string) (*FaultProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listen: %w", err)
	}
	p := &FaultProxy{
		URL:       "http://" + ln.Addr().String(),
		target:    target,
		transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true},
	}
	p.server = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.server.Serve(ln)
	return p, nil
}

// Close stops the proxy and drops its connections.
func (p *FaultProxy) Close() {
	p.server.Close()
	p.transport.CloseIdleConnections()
}

// SetFailEvery makes every n-th request fail with 503 SlowDown; 0 stops it.
func (p *FaultProxy) SetFailEvery(n int) { p.failEvery.Store(int64(n)) }

// SetTruncateEvery cuts every m-th response body in half; 0 stops it.
func (p *FaultProxy) SetTruncateEvery(m int) { p.truncateEvery.Store(int64(m)) }

// SetDelay delays every request by d; 0 stops it.
func (p *FaultProxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// DropResponses loses the responses of the next n requests.
func (p *FaultProxy) DropResponses(n int) { p.dropNext.Store(int64(n)) }

// Requests is the number of requests received.
func (p *FaultProxy) Requests() int64 { return p.requests.Load() }

// ResponseBytes is the number of response body bytes sent to clients.
func (p *FaultProxy) ResponseBytes() int64 { return p.responseBytes.Load() }

// Failed is the number of requests answered 503 SlowDown.
func (p *FaultProxy) Failed() int64 { return p.failed.Load() }

// Truncated is the number of responses cut short.
func (p *FaultProxy) Truncated() int64 { return p.truncated.Load() }

// Dropped is the number of responses lost on purpose.
func (p *FaultProxy) Dropped() int64 { return p.dropped.Load() }

const slowDownBody = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>s3test</RequestId></Error>`

// hopHeaders are per-connection headers a proxy must not forward. Expect
// goes too: this proxy reads the body itself, and SigV4 does not sign it.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Expect"}

func (p *FaultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := p.requests.Add(1)
	if d := time.Duration(p.delay.Load()); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if every := p.failEvery.Load(); every > 0 && n%every == 0 {
		io.Copy(io.Discard, r.Body)
		p.failed.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Content-Length", strconv.Itoa(len(slowDownBody)))
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, slowDownBody)
		return
	}

	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.RequestURI, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.Host = r.Host
	out.ContentLength = r.ContentLength
	if r.ContentLength == 0 {
		out.Body = nil
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	header := resp.Header.Clone()
	for _, h := range hopHeaders {
		header.Del(h)
	}
	if resp.ContentLength >= 0 {
		header.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}

	if p.takeDrop() {
		io.Copy(io.Discard, resp.Body) // let the server finish its work
		p.dropped.Add(1)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	if p.shouldTruncate(r, resp) {
		p.truncate(w, resp, header)
		return
	}
	for k, v := range header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, countedBody{resp.Body, &p.responseBytes})
}

// countedBody counts a response body's bytes as the proxy reads them,
// before it passes them on: a client that has received its bytes then
// finds them counted, rather than racing the handler's last count.
type countedBody struct {
	r io.Reader
	n *atomic.Int64
}

func (c countedBody) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

func (p *FaultProxy) takeDrop() bool {
	for {
		n := p.dropNext.Load()
		if n <= 0 {
			return false
		}
		if p.dropNext.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (p *FaultProxy) shouldTruncate(r *http.Request, resp *http.Response) bool {
	if r.Method == http.MethodHead || resp.StatusCode/100 != 2 || resp.ContentLength < 2 {
		return false
	}
	k := p.bodies.Add(1)
	every := p.truncateEvery.Load()
	return every > 0 && k%every == 0
}

// truncate takes over the connection, sends the status, the headers with
// the full Content-Length and half the body, and closes the connection.
func (p *FaultProxy) truncate(w http.ResponseWriter, resp *http.Response, header http.Header) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "s3test: cannot hijack: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer conn.Close()
	p.truncated.Add(1)
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	header.Write(buf)
	buf.WriteString("\r\n")
	io.CopyN(buf, countedBody{resp.Body, &p.responseBytes}, resp.ContentLength/2)
	flushAndClose(buf, conn)
}

func flushAndClose(buf *bufio.ReadWriter, conn net.Conn) {
	buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.CloseWrite() // the client reads EOF after the partial body
	}
}
