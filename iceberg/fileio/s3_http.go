package fileio

import (
	"net/http"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// countingHTTPClient counts the HTTP requests the S3 client sends, so a
// benchmark can report requests per scan.
type countingHTTPClient struct {
	inner    aws.HTTPClient
	requests *atomic.Int64
}

func (c *countingHTTPClient) Do(req *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	return c.inner.Do(req)
}
