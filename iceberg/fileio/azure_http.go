package fileio

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// azureTransport is the HTTP transport of the Azure clients: a connection
// pool sized for many concurrent ranged reads (as S3's), a wait bound on
// response headers, and an idle-read bound on bodies, so a stalled
// connection fails (and is retried) instead of hanging. It counts
// requests for Azure.Requests.
type azureTransport struct {
	client   *http.Client
	requests *atomic.Int64
}

func newAzureTransport(requests *atomic.Int64) *azureTransport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = s3IdleConnsPerHost
	tr.ResponseHeaderTimeout = s3ResponseHeaderWait
	return &azureTransport{client: &http.Client{Transport: tr}, requests: requests}
}

func (t *azureTransport) Do(req *http.Request) (*http.Response, error) {
	t.requests.Add(1)
	resp, err := t.client.Do(req)
	if err == nil && resp.Body != nil {
		resp.Body = newIdleTimeoutBody(resp.Body, s3ReadIdleTimeout)
	}
	return resp, err
}

// idleTimeoutBody closes a body that delivers nothing for the timeout, so
// the blocked Read returns an error.
type idleTimeoutBody struct {
	body    io.ReadCloser
	timeout time.Duration
	timer   *time.Timer
	once    sync.Once
}

func newIdleTimeoutBody(body io.ReadCloser, timeout time.Duration) *idleTimeoutBody {
	b := &idleTimeoutBody{body: body, timeout: timeout}
	b.timer = time.AfterFunc(timeout, func() { b.body.Close() })
	return b
}

func (b *idleTimeoutBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.timeout)
	n, err := b.body.Read(p)
	if err != nil {
		b.timer.Stop()
	}
	return n, err
}

func (b *idleTimeoutBody) Close() error {
	b.timer.Stop()
	return b.body.Close()
}
