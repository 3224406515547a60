package fileio

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
	"github.com/floedb/floe/errkind"
)

// S3Options configure an S3 FileIO. Every unset field falls back to the
// usual AWS_* environment and shared config files (AWS_REGION,
// AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, …).
// The JSON form is what table-open options carry under "s3".
type S3Options struct {
	// Endpoint is the base URL of an S3-compatible service
	// ("http://127.0.0.1:7070"); empty means AWS or the environment's.
	Endpoint string `json:"endpoint,omitempty"`
	// Region defaults to the environment's, then to us-east-1.
	Region          string `json:"region,omitempty"`
	AccessKeyID     string `json:"access_key_id,omitempty"`
	SecretAccessKey string `json:"secret_access_key,omitempty"`
	SessionToken    string `json:"session_token,omitempty"`
	// Anonymous sends unsigned requests, for public buckets.
	Anonymous bool `json:"anonymous,omitempty"`
	// PathStyle addresses buckets as endpoint/bucket/key instead of
	// bucket.endpoint/key; most S3-compatible servers need it.
	PathStyle bool `json:"path_style,omitempty"`
	// MaxAttempts bounds the tries of one request (default AWS_MAX_ATTEMPTS,
	// then 5).
	MaxAttempts int `json:"max_attempts,omitempty"`
	// PartSize is the multipart upload part size of Create (default 8 MiB,
	// at least 5 MiB, S3's minimum); smaller files are sent in one PUT.
	PartSize int64 `json:"part_size,omitempty"`
	// RetryBaseDelay and RetryMaxDelay shape the full-jitter backoff: the
	// wait before try n+1 is uniform in [0, min(max, base·2^(n-1))).
	// Defaults 100 ms and 5 s.
	RetryBaseDelay time.Duration `json:"-"`
	RetryMaxDelay  time.Duration `json:"-"`
}

const (
	defaultS3Region      = "us-east-1"
	defaultS3Attempts    = 5
	defaultS3PartSize    = 8 << 20
	minS3PartSize        = 5 << 20
	maxS3Parts           = 10000
	defaultRetryBase     = 100 * time.Millisecond
	defaultRetryMax      = 5 * time.Second
	s3ReadIdleTimeout    = 60 * time.Second
	s3IdleConnsPerHost   = 64
	s3UploadsInFlight    = 4
	s3CleanupTimeout     = 30 * time.Second
	s3ResponseHeaderWait = 2 * time.Minute
)

// S3 is the FileIO of Amazon S3 and S3-compatible stores, for s3:// and
// s3a:// locations (the same thing spelled two ways). It is safe for
// concurrent use.
//
// Every request runs through one retry loop (see s3_retry.go): throttling,
// 5xx, connection failures and short bodies are retried with full-jitter
// backoff up to MaxAttempts tries, and a read never returns partial data as
// a success.
type S3 struct {
	client      *s3.Client
	retryer     s3Retryer
	maxAttempts int
	partSize    int64

	requests  atomic.Int64
	bytesRead atomic.Int64
}

var _ FileIO = (*S3)(nil)

// NewS3 builds an S3 FileIO. It reads the environment and shared config but
// sends nothing over the network, except to fetch credentials from a source
// the configuration names (SSO, an assumed role); the EC2 instance metadata
// service is never probed, so missing credentials give a clear error here
// instead of a hang.
func NewS3(ctx context.Context, opts S3Options) (*S3, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &S3{maxAttempts: opts.MaxAttempts, partSize: opts.PartSize}
	if s.partSize == 0 {
		s.partSize = defaultS3PartSize
	}
	load := []func(*config.LoadOptions) error{
		config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
		// A BuildableClient, so AWS_CA_BUNDLE can be applied to it; it is
		// wrapped for counting once the configuration is loaded.
		config.WithHTTPClient(newS3HTTPClient()),
		// Retries are ours (s3_retry.go): the SDK's own would hide from
		// WriteFileIfAbsent whether an earlier try may have landed.
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
	}
	if opts.Region != "" {
		load = append(load, config.WithRegion(opts.Region))
	}
	switch {
	case opts.Anonymous:
		load = append(load, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
	case opts.AccessKeyID != "":
		load = append(load, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, opts.SessionToken)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("fileio: s3 configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = defaultS3Region
	}
	if s.maxAttempts <= 0 {
		s.maxAttempts = cfg.RetryMaxAttempts // AWS_MAX_ATTEMPTS
	}
	if s.maxAttempts <= 0 {
		s.maxAttempts = defaultS3Attempts
	}
	s.retryer = newS3Retryer(s.maxAttempts, opts.RetryBaseDelay, opts.RetryMaxDelay)
	if !opts.Anonymous {
		if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			return nil, errkind.Errorf(errkind.Unauthorized, "fileio: s3: no usable credentials (set access_key_id and secret_access_key "+
				"in the s3 options, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE; "+
				"anonymous: true for public buckets): %w", err)
		}
	}
	s.client = s3.NewFromConfig(cfg, func(o *s3.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
		o.UsePathStyle = opts.PathStyle
		o.HTTPClient = &countingHTTPClient{inner: o.HTTPClient, requests: &s.requests}
		o.RetryMaxAttempts = 0 // AWS_MAX_ATTEMPTS is our loop's budget, not the SDK's
		o.DisableLogOutputChecksumValidationSkipped = true
		// A library must not write to the host's stderr; every failure the
		// SDK would log also comes back as an error.
		o.Logger = logging.Nop{}
	})
	return s, nil
}

// Requests is the number of HTTP requests sent so far, retries included.
func (s *S3) Requests() int64 { return s.requests.Load() }

// BytesRead is the number of object bytes received so far, including those
// of reads that were cut short and retried.
func (s *S3) BytesRead() int64 { return s.bytesRead.Load() }

// newS3HTTPClient is the SDK's client with a connection pool sized for many
// concurrent ranged reads and an idle-read timeout, so a stalled connection
// fails (and is retried) instead of hanging.
func newS3HTTPClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithReadTimeout(s3ReadIdleTimeout).
		WithTransportOptions(func(tr *http.Transport) {
			tr.MaxIdleConnsPerHost = s3IdleConnsPerHost
			tr.ResponseHeaderTimeout = s3ResponseHeaderWait
		})
}

// s3Object is a parsed s3:// location.
type s3Object struct {
	bucket, key string
}

// parseS3Location splits s3://bucket/key (or s3a://) into bucket and key.
// The key is kept as written: no percent-decoding, no cleaning of "//" or
// "..", since object keys are opaque strings. An empty key is allowed only
// when allowEmptyKey (a listing of the bucket's top level).
func parseS3Location(location string, allowEmptyKey bool) (s3Object, error) {
	scheme := Scheme(location)
	if scheme != "s3" && scheme != "s3a" {
		return s3Object{}, fmt.Errorf("fileio: %s: not an s3:// or s3a:// location", location)
	}
	rest := location[len(scheme)+1:]
	if !strings.HasPrefix(rest, "//") {
		return s3Object{}, fmt.Errorf("fileio: %s: want %s://bucket/key", location, scheme)
	}
	bucket, key, _ := strings.Cut(rest[2:], "/")
	if err := checkBucketName(bucket); err != nil {
		return s3Object{}, fmt.Errorf("fileio: %s: %w", location, err)
	}
	if key == "" && !allowEmptyKey {
		return s3Object{}, fmt.Errorf("fileio: %s: location names a bucket, not an object", location)
	}
	return s3Object{bucket: bucket, key: key}, nil
}

// checkBucketName accepts the characters of S3 bucket names, old and new
// rules alike (upper case and '_' were once allowed), and refuses anything
// that would change the meaning of a request URL.
func checkBucketName(bucket string) error {
	if bucket == "" {
		return errors.New("no bucket name")
	}
	if len(bucket) > 255 {
		return errors.New("bucket name is too long")
	}
	for i := 0; i < len(bucket); i++ {
		c := bucket[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_'
		if !ok {
			return fmt.Errorf("bucket name %q has a character S3 does not allow", bucket)
		}
	}
	return nil
}
