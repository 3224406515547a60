package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	"github.com/floedb/floe/errkind"
)

// The SDK client is built without retries; every operation runs its tries
// through S3.do instead. One loop sees every try, so a body cut short
// mid-read is retried like a failed request (the SDK never retries body
// reads), there is one attempt budget per operation instead of the SDK's
// inside ours, and WriteFileIfAbsent can tell that an earlier try may have
// landed. Which errors are worth another try is still the SDK's standard
// retryer's judgement (5xx, throttling codes, connection resets, timeouts),
// extended by the rules below.

// errShortBody marks a response body that ended before its announced length.
var errShortBody = errors.New("response body ended early")

// newS3Retryer is the SDK's standard retryer with our extra rules, full-jitter
// backoff and no client-wide retry quota (a quota shared by all tables
// would let one bad file fail reads of good ones).
func newS3Retryer(attempts int, base, max time.Duration) *retry.Standard {
	if base <= 0 {
		base = defaultRetryBase
	}
	if max <= 0 {
		max = defaultRetryMax
	}
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = attempts
		o.Backoff = fullJitter{base: base, max: max}
		o.RateLimiter = ratelimit.None
		o.Retryables = append(o.Retryables, retry.IsErrorRetryableFunc(extraRetryable))
	})
}

type s3Retryer = *retry.Standard

// extraRetryable adds what the SDK does not retry by default: a short body,
// a truncated XML response, a conflicting concurrent conditional write
// (409 ConditionalRequestConflict) and an unmodelled 429.
func extraRetryable(err error) aws.Ternary {
	var deser *smithy.DeserializationError
	switch {
	case errors.Is(err, errShortBody), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &deser):
		return aws.TrueTernary
	case httpStatus(err) == http.StatusConflict && apiCode(err) == "ConditionalRequestConflict":
		return aws.TrueTernary
	case httpStatus(err) == http.StatusTooManyRequests:
		return aws.TrueTernary
	}
	return aws.UnknownTernary
}

// fullJitter waits uniformly in [0, min(max, base·2^(attempt-1))).
type fullJitter struct{ base, max time.Duration }

func (j fullJitter) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	ceiling := j.max
	if attempt < 31 {
		if d := j.base << (attempt - 1); d > 0 && d < ceiling {
			ceiling = d
		}
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1)), nil
}

// do runs try until it succeeds, fails in a way not worth retrying, has
// used maxAttempts tries, or ctx ends. Errors name the location; a missing
// object's wraps fs.ErrNotExist.
func (s *S3) do(ctx context.Context, location string, try func(ctx context.Context) error) error {
	for attempt := 1; ; attempt++ {
		err := try(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !s.retryer.IsErrorRetryable(err) {
			return s3Error(location, err)
		}
		if attempt >= s.maxAttempts {
			return fmt.Errorf("fileio: %s: failed after %d tries: %w", location, attempt, err)
		}
		delay, _ := s.retryer.RetryDelay(attempt, err)
		if err := sleepCtx(ctx, delay); err != nil {
			return fmt.Errorf("fileio: %s: %w", location, err)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// s3Error names the location and makes a missing object match
// fs.ErrNotExist (kind NotFound); any other failure is kind IO unless what
// failed said otherwise (a conditional put that found the object is a
// Conflict).
func s3Error(location string, err error) error {
	if httpStatus(err) == http.StatusNotFound {
		code := apiCode(err)
		if code == "" {
			code = "NotFound"
		}
		return errkind.Errorf(errkind.NotFound, "fileio: %s: %w (%s)", location, fs.ErrNotExist, code)
	}
	if refusedCredentials(httpStatus(err)) {
		return unauthorized(location, err)
	}
	return errkind.Default(errkind.IO, fmt.Errorf("fileio: %s: %w", location, err))
}

func httpStatus(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}
