package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/internal/redact"
)

// client sends the catalog's requests: it adds the auth and configured
// headers, retries what is safe to retry, and turns error responses into
// errors with kinds.
type client struct {
	name    string // the catalog's name, for messages
	base    string // the URI, without a trailing slash
	http    *http.Client
	auth    authenticator
	headers http.Header
	// secrets are the values no message may show.
	secrets *redact.Secrets
	// retry shapes the backoff of 429/503 answers and connection
	// failures: attempts in all, full jitter in [0, min(max, base·2^n)).
	attempts        int
	baseDelay, maxD time.Duration
}

// request is one call: method, path below the base URI (already
// escaped), query, JSON body.
type request struct {
	method string
	path   string
	query  url.Values
	body   any
	// form, when set, is sent as application/x-www-form-urlencoded
	// instead of body.
	form url.Values
	// idempotent requests may be retried on 503 and on a connection lost
	// after sending: GET and HEAD, whose repetition changes nothing.
	// Every request is retried on 429 and on failures to connect, which
	// the server never saw.
	idempotent bool
	// noAuth leaves out the Authorization header (the token request
	// itself authenticates with its form).
	noAuth bool
}

// errSent marks a failure after the request may have reached the server
// (a timeout, a connection cut while waiting for the answer): whether it
// took effect is not known.
var errSent = errors.New("the request was sent, but no answer came")

// errTransport marks failures of the wire (a connection refused, cut or
// timed out), the only errors of send worth sending again; a request that
// cannot be built or authorized fails the same way every time.
var errTransport = errors.New("transport failure")

// errBadAnswer marks a 2xx answer whose body is not what the protocol
// says: the request took effect, whatever the body.
var errBadAnswer = errors.New("the answer is not the JSON the REST protocol says")

// do sends req and decodes a 2xx JSON answer into out (nil: discard).
// A 419 or 401 answer to a request with an OAuth2 token refreshes the
// token and tries once more.
func (c *client) do(ctx context.Context, req request, out any) error {
	refreshed := false
	for attempt := 1; ; attempt++ {
		status, header, body, err := c.send(ctx, req)
		if err != nil {
			if !errors.Is(err, errTransport) || (errors.Is(err, errSent) && !req.idempotent) {
				return err
			}
			if attempt >= c.attempts || ctx.Err() != nil {
				return err
			}
			if werr := c.wait(ctx, attempt, nil); werr != nil {
				return err
			}
			continue
		}
		switch {
		case status >= 200 && status < 300:
			if out == nil || len(bytes.TrimSpace(body)) == 0 || status == http.StatusNoContent {
				return nil
			}
			if err := json.Unmarshal(body, out); err != nil {
				return errkind.Errorf(errkind.Corrupt, "%s: %s %s: %w: %v", c.name, req.method, req.path, errBadAnswer, err)
			}
			return nil
		case (status == http.StatusUnauthorized || status == 419) && !refreshed && !req.noAuth && c.auth.canRefresh():
			refreshed = true
			if err := c.auth.refresh(ctx); err != nil {
				return err
			}
			attempt--
			continue
		case status == http.StatusTooManyRequests || (status == http.StatusServiceUnavailable && req.idempotent):
			if attempt < c.attempts {
				if werr := c.wait(ctx, attempt, header); werr == nil {
					continue
				}
			}
		}
		return c.responseError(req, status, body)
	}
}

// send makes one attempt. Its error is errSent when the request may have
// reached the server.
func (c *client) send(ctx context.Context, req request) (int, http.Header, []byte, error) {
	target := c.base + "/" + strings.TrimLeft(req.path, "/")
	absolute := strings.HasPrefix(req.path, "http://") || strings.HasPrefix(req.path, "https://")
	if absolute {
		// An endpoint of its own (an identity provider's token URI).
		target = req.path
	}
	if len(req.query) > 0 {
		target += "?" + req.query.Encode()
	}
	var payload []byte
	contentType := ""
	switch {
	case req.form != nil:
		payload = []byte(req.form.Encode())
		contentType = "application/x-www-form-urlencoded"
	case req.body != nil:
		var err error
		if payload, err = json.Marshal(req.body); err != nil {
			return 0, nil, nil, errkind.Wrap(errkind.InvalidArgument, fmt.Errorf("%s: %s %s: %w", c.name, req.method, req.path, err))
		}
		contentType = "application/json"
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, target, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, nil, errkind.Wrap(errkind.InvalidArgument, fmt.Errorf("%s: %s %s: %w", c.name, req.method, req.path, stripURL(err)))
	}
	if !absolute {
		// The catalog's headers are for the catalog, not for another host.
		for k, vs := range c.headers {
			hr.Header[k] = vs
		}
	}
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
	}
	hr.Header.Set("Accept", "application/json")
	if !req.noAuth {
		if err := c.auth.authorize(ctx, hr, payload); err != nil {
			return 0, nil, nil, err
		}
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return 0, nil, nil, c.transportError(req, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, nil, nil, c.transportError(req, err)
	}
	return resp.StatusCode, resp.Header, body, nil
}

// maxAnswer bounds what is read of one answer: a table's metadata with
// many snapshots is megabytes, never this.
const maxAnswer = 1 << 30

// transportError says what failed on the wire, without the URL's query
// (which never holds secrets here, but a proxy's could).
func (c *client) transportError(req request, err error) error {
	msg := fmt.Errorf("%s: %s %s: %s (%w)", c.name, req.method, req.path, c.secrets.String(stripURL(err).Error()), errTransport)
	for _, ctxErr := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, ctxErr) {
			msg = fmt.Errorf("%w (%w)", msg, ctxErr)
		}
	}
	if neverSent(err) {
		return errkind.Wrap(errkind.IO, msg)
	}
	return errkind.Wrap(errkind.IO, fmt.Errorf("%w: %w", errSent, msg))
}

// neverSent tells failures before any byte reached the server (refused
// connection, unknown host, TLS handshake) from failures after.
func neverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// stripURL drops the *url.Error wrapper, whose message repeats the URL.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// wait sleeps before the next attempt: Retry-After when the server gave
// one (capped at the maximum delay), else full jitter.
func (c *client) wait(ctx context.Context, attempt int, header http.Header) error {
	d := c.maxD
	if exp := c.baseDelay << min(attempt-1, 20); exp < d {
		d = exp
	}
	d = time.Duration(rand.Int64N(int64(d) + 1))
	if header != nil {
		if s, err := strconv.Atoi(header.Get("Retry-After")); err == nil && s >= 0 {
			d = min(time.Duration(s)*time.Second, c.maxD)
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
