package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"

	"cloud.google.com/go/storage"
	"github.com/floedb/floe/errkind"
	"google.golang.org/api/googleapi"
)

// The library's client is built with retries off (storage.RetryNever);
// every operation runs its tries through GCS.do instead, for the reasons
// S3.do gives: one loop sees every try, so a body cut short is retried
// like a failed request, there is one attempt budget per operation, and
// WriteFileIfAbsent learns that an earlier try may have landed. Which
// errors are worth another try is the library's judgement
// (storage.ShouldRetry: 408, 429, 5xx, resets, refused connections),
// extended by the rules of gcsRetryable; the backoff is S3's full jitter.

// gcsRetryable adds what storage.ShouldRetry leaves out: a short body, and
// a timeout of the transport (waiting for headers, dialling).
func gcsRetryable(err error) bool {
	var final finalError
	if errors.As(err, &final) {
		return false
	}
	if errors.Is(err, errShortBody) || errors.Is(err, io.ErrUnexpectedEOF) || storage.ShouldRetry(err) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// do runs try until it succeeds, fails in a way not worth retrying, has
// used maxAttempts tries, or ctx ends. Errors name the location; a missing
// object's wraps fs.ErrNotExist.
func (g *GCS) do(ctx context.Context, location string, try func(ctx context.Context) error) error {
	backoff := fullJitter{base: g.retryBase, max: g.retryMax}
	for attempt := 1; ; attempt++ {
		err := try(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !gcsRetryable(err) {
			return gcsError(location, err)
		}
		if attempt >= g.maxAttempts {
			return errkind.Default(errkind.IO, fmt.Errorf("fileio: %s: failed after %d tries: %w", location, attempt, err))
		}
		delay, _ := backoff.BackoffDelay(attempt, err)
		if err := sleepCtx(ctx, delay); err != nil {
			return fmt.Errorf("fileio: %s: %w", location, err)
		}
	}
}

// gcsError names the location and makes a missing object match
// fs.ErrNotExist (kind NotFound); a refused token or account (401, 403) is
// kind Unauthorized, as errkind defines it, so that a caller holding an
// oauth2_token that expired can tell it from a failing store; any other
// failure is kind IO unless what failed said otherwise (a create that
// found the object is a Conflict).
func gcsError(location string, err error) error {
	if isGCSNotFound(err) {
		return errkind.Errorf(errkind.NotFound, "fileio: %s: %w (%v)", location, fs.ErrNotExist, err)
	}
	if refusedCredentials(gcsStatus(err)) {
		return unauthorized(location, err)
	}
	return errkind.Default(errkind.IO, fmt.Errorf("fileio: %s: %w", location, err))
}

// gcsStatus is the HTTP status of a failed request, 0 if none.
func gcsStatus(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}
