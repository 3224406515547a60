package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/floedb/floe/errkind"
)

// The Azure clients are built without the SDK's retries; every operation
// runs its tries through Azure.do, for the reasons S3.do gives: one loop
// sees every try (a body cut short mid-read included), one attempt budget
// per operation, and WriteFileIfAbsent can tell that an earlier try may
// have landed. The backoff is S3's full jitter.

// azureRetryable tells whether a failed try is worth another: throttling
// (429, 503), other 5xx, a request timeout (408), a connection that failed
// or was cut, and a body shorter than announced.
func azureRetryable(err error) bool {
	var final interface{ RetryableError() bool }
	if errors.As(err, &final) && !final.RetryableError() {
		return false
	}
	if errors.Is(err, errShortBody) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		switch re.StatusCode {
		case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
			http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne)
}

// do runs try until it succeeds, fails in a way not worth retrying, has
// used maxAttempts tries, or ctx ends. Errors name the location; a missing
// blob's wraps fs.ErrNotExist.
func (a *Azure) do(ctx context.Context, location string, try func(ctx context.Context) error) error {
	backoff := fullJitter{base: a.opts.RetryBaseDelay, max: a.opts.RetryMaxDelay}
	if backoff.base <= 0 {
		backoff.base = defaultRetryBase
	}
	if backoff.max <= 0 {
		backoff.max = defaultRetryMax
	}
	for attempt := 1; ; attempt++ {
		err := try(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !azureRetryable(err) {
			return azureError(location, err)
		}
		if attempt >= a.maxAttempts {
			return errkind.Default(errkind.IO, fmt.Errorf("fileio: %s: failed after %d tries: %w", location, attempt, azureCause(err)))
		}
		delay, _ := backoff.BackoffDelay(attempt, err)
		if err := sleepCtx(ctx, delay); err != nil {
			return fmt.Errorf("fileio: %s: %w", location, err)
		}
	}
}

// azureError names the location and makes a missing blob or container
// match fs.ErrNotExist (kind NotFound); any other failure is kind IO
// unless what failed said otherwise.
func azureError(location string, err error) error {
	if azureStatus(err) == http.StatusNotFound {
		return errkind.Errorf(errkind.NotFound, "fileio: %s: %w (%s)", location, fs.ErrNotExist, azureCode(err))
	}
	if refusedCredentials(azureStatus(err)) {
		return unauthorized(location, azureCause(err))
	}
	return errkind.Default(errkind.IO, fmt.Errorf("fileio: %s: %w", location, azureCause(err)))
}

// azureCause is err with the SDK's many-line response dump (request URL,
// headers, body) replaced by its status and error code; the response
// error stays in the chain for errors.As.
func azureCause(err error) error {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return err
	}
	return &azureResponseError{status: re.StatusCode, code: re.ErrorCode, err: err}
}

type azureResponseError struct {
	status int
	code   string
	err    error
}

func (e *azureResponseError) Error() string {
	if e.code == "" {
		return fmt.Sprintf("azure answered %d %s", e.status, http.StatusText(e.status))
	}
	return fmt.Sprintf("azure answered %d %s (%s)", e.status, http.StatusText(e.status), e.code)
}

func (e *azureResponseError) Unwrap() error { return e.err }

func azureStatus(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

func azureCode(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.ErrorCode != "" {
		return re.ErrorCode
	}
	return "NotFound"
}
