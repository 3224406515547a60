// Package rest is a client of the Iceberg REST catalog protocol
// (apache/iceberg open-api/rest-catalog-open-api.yaml): Polaris, Unity,
// Glue, S3 Tables, Nessie, Lakekeeper, SeaweedFS and every other server
// that speaks it.
//
// A table loaded through it commits through it: the commit's metadata
// updates and requirements (metadata.Changes) are POSTed to the table,
// and the server applies them or answers 409 when a requirement no longer
// holds, which the commit loop treats as a lost race (refresh, rebuild,
// retry). A commit whose answer never came, or came as a 5xx, is of
// unknown outcome (errkind.CommitStateUnknown): the files it wrote stay,
// and a retry with the same idempotency token settles it.
//
// Requests are retried with backoff on 429 always and on 503 and lost
// connections only when repeating them changes nothing (GET, HEAD, the
// token request); a connection that never opened is retried for any
// request. Credentials (the OAuth2 secret and tokens, a static token,
// SigV4 keys, S3 keys) never appear in a message: every message the
// package makes passes through the catalog's redaction.
package rest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/redact"
)

// The catalog properties the client reads: Iceberg's own names, as
// pyiceberg and Iceberg's Java client spell them.
const (
	PropURI       = "uri"
	PropName      = "name"
	PropWarehouse = "warehouse"
	PropPrefix    = "prefix"
	// PropCredential is an OAuth2 client credential, "client_id:secret".
	PropCredential      = "credential"
	PropToken           = "token"
	PropOAuth2ServerURI = "oauth2-server-uri"
	PropScope           = "scope"
	// PropSigV4 turns on AWS SigV4 signing of every request.
	PropSigV4                = "rest.sigv4-enabled"
	PropSigningRegion        = "rest.signing-region"
	PropSigningName          = "rest.signing-name"
	PropSigV4AccessKeyID     = "rest.access-key-id"
	PropSigV4SecretAccessKey = "rest.secret-access-key"
	PropSigV4SessionToken    = "rest.session-token"
	// PropHeaderPrefix: header.NAME=value adds a header to every request.
	PropHeaderPrefix = "header."
	// PropCABundle is a PEM file of the CAs the server's certificate may
	// chain to (the system's are used besides). Verification is never off.
	PropCABundle = "ssl.cabundle"
	// PropRequestTimeout bounds one request (Go duration or seconds;
	// default 60s). A commit that times out is of unknown outcome.
	PropRequestTimeout = "rest.request-timeout"
	// PropMaxAttempts bounds the tries of one request (default 5).
	PropMaxAttempts = "rest.max-attempts"
	// PropScanPlanning: auto, client or server (see planning.go).
	PropScanPlanning = "scan-planning"
)

// accessDelegation asks the server for credentials to the table's files
// with LoadTable's answer; servers that vend none ignore it.
const accessDelegation = "vended-credentials"

// Catalog is a REST catalog.
type Catalog struct {
	name   string
	c      *client
	prefix string
	// props are the merged properties: the server's defaults, the
	// client's, then the server's overrides.
	props     map[string]string
	endpoints map[string]bool // nil: the server did not say
	tableOpts table.Options
	planning  string
	sep       string // namespace separator in paths, unescaped
}

var _ catalog.Catalog = (*Catalog)(nil)

// Open connects to the catalog at uri (http:// or https://), fetches its
// configuration (GET /v1/config) and authenticates as props say.
// tableOpts give the tables' FileIO (location map, S3 settings), which
// the catalog's s3.* properties and each table's LoadTable config refine.
func Open(ctx context.Context, uri string, props map[string]string, tableOpts table.Options) (*Catalog, error) {
	props = maps.Clone(props)
	if props == nil {
		props = map[string]string{}
	}
	u, err := url.Parse(uri)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errkind.Errorf(errkind.InvalidArgument, "REST catalog URI %s: use http(s)://host[:port][/path]", redact.URI(uri))
	}
	if u.User != nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "REST catalog URI %s://%s: give credentials as the %q or %q property, not in the URI", u.Scheme, u.Host, PropCredential, PropToken)
	}
	name := props[PropName]
	if name == "" {
		name = "default"
	}
	sec := &redact.Secrets{}
	sec.AddURI(uri)
	sec.AddProperties(props)
	_, credSecret := splitCredential(props[PropCredential])
	sec.Add(credSecret)
	c := &client{
		name:     "REST catalog " + name + " (" + u.Scheme + "://" + u.Host + ")",
		base:     strings.TrimRight(uri, "/"),
		headers:  http.Header{},
		secrets:  sec,
		attempts: 5, baseDelay: 100 * time.Millisecond, maxD: 5 * time.Second,
		auth: noAuth{},
	}
	timeout := 60 * time.Second
	if v := props[PropRequestTimeout]; v != "" {
		if timeout, err = parseDuration(v); err != nil {
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: %s=%q: %v", c.name, PropRequestTimeout, v, err)
		}
	}
	if v := props[PropMaxAttempts]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: %s=%q: want a count ≥ 1", c.name, PropMaxAttempts, v)
		}
		c.attempts = n
	}
	// The default transport's proxy settings (HTTPS_PROXY, NO_PROXY;
	// loopback never goes through a proxy).
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if path := props[PropCABundle]; path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, errkind.Wrap(errkind.InvalidArgument, fmt.Errorf("%s: %s: %w", c.name, PropCABundle, err))
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: %s %s holds no PEM certificate", c.name, PropCABundle, path)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	c.http = &http.Client{Transport: transport, Timeout: timeout, CheckRedirect: sameRequestOnly}
	setHeaders(c.headers, props)

	if err := c.configureAuth(ctx, props); err != nil {
		return nil, err
	}
	cat := &Catalog{name: name, c: c, tableOpts: tableOpts, sep: "\x1f"}
	if err := cat.configure(ctx, props); err != nil {
		return nil, err
	}
	// The server's answer may name other auth (an oauth2-server-uri or a
	// scope override) or headers; the merged properties decide from here
	// on.
	setHeaders(c.headers, cat.props)
	if authChanged(props, cat.props) {
		if err := c.configureAuth(ctx, cat.props); err != nil {
			return nil, err
		}
	}
	return cat, nil
}

// sameRequestOnly follows a redirect only for GET and HEAD: Go would send
// any other request again as a GET without its body, and a commit would
// then read a table's state as its answer. The 3xx itself is then the
// answer, an error.
func sameRequestOnly(req *http.Request, via []*http.Request) error {
	// req is the request Go would send next (a POST already turned into
	// a GET); the original is via[0].
	if m := via[0].Method; m != http.MethodGet && m != http.MethodHead {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// authKeys are the properties that decide how requests authenticate.
var authKeys = []string{PropCredential, PropToken, PropOAuth2ServerURI, PropScope, PropSigV4, PropSigningRegion, PropSigningName,
	PropSigV4AccessKeyID, PropSigV4SecretAccessKey, PropSigV4SessionToken}

func authChanged(before, after map[string]string) bool {
	for _, k := range authKeys {
		if before[k] != after[k] {
			return true
		}
	}
	return false
}

func setHeaders(h http.Header, props map[string]string) {
	h.Set("X-Iceberg-Access-Delegation", accessDelegation)
	h.Set("User-Agent", "floe")
	for k, v := range props {
		if name, ok := strings.CutPrefix(k, PropHeaderPrefix); ok && name != "" {
			h.Set(name, v)
		}
	}
}

func (c *client) configureAuth(ctx context.Context, props map[string]string) error {
	switch {
	case props[PropSigV4] == "true":
		s, err := newSigV4(ctx, props, c.secrets)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		c.auth = s
	case props[PropCredential] != "":
		id, secret := splitCredential(props[PropCredential])
		endpoint := props[PropOAuth2ServerURI]
		if endpoint == "" {
			endpoint = "v1/oauth/tokens"
		}
		scope := props[PropScope]
		if scope == "" {
			scope = "catalog"
		}
		o := &oauth2{c: c, endpoint: endpoint, clientID: id, clientSecret: secret, scope: scope, token: props[PropToken]}
		c.auth = o
	case props[PropToken] != "":
		c.auth = bearer{token: props[PropToken]}
	}
	return nil
}

// configure fetches GET /v1/config and merges the properties: the
// server's defaults, then the client's, then the server's overrides.
func (cat *Catalog) configure(ctx context.Context, props map[string]string) error {
	var answer struct {
		Defaults  map[string]string `json:"defaults"`
		Overrides map[string]string `json:"overrides"`
		Endpoints []string          `json:"endpoints"`
	}
	q := url.Values{}
	if w := props[PropWarehouse]; w != "" {
		q.Set("warehouse", w)
	}
	if err := cat.c.do(ctx, request{method: http.MethodGet, path: "v1/config", query: q, idempotent: true}, &answer); err != nil {
		return fmt.Errorf("open %w", err)
	}
	merged := map[string]string{}
	maps.Copy(merged, answer.Defaults)
	maps.Copy(merged, props)
	maps.Copy(merged, answer.Overrides)
	cat.props = merged
	cat.c.secrets.AddProperties(merged)
	if answer.Endpoints != nil {
		cat.endpoints = map[string]bool{}
		for _, e := range answer.Endpoints {
			cat.endpoints[strings.Join(strings.Fields(e), " ")] = true
		}
	}
	if p := strings.Trim(merged[PropPrefix], "/"); p != "" {
		cat.prefix = p
	}
	if s := merged["namespace-separator"]; s != "" {
		if un, err := url.PathUnescape(s); err == nil {
			cat.sep = un
		}
	}
	switch cat.planning = merged[PropScanPlanning]; cat.planning {
	case "":
		cat.planning = "auto"
	case "auto", "client", "server":
	default:
		return errkind.Errorf(errkind.InvalidArgument, "%s: %s=%q: use auto, client or server", cat.c.name, PropScanPlanning, cat.planning)
	}
	return nil
}

func parseDuration(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err == nil && d <= 0 {
		err = fmt.Errorf("want a positive duration")
	}
	return d, err
}

func (cat *Catalog) Name() string { return cat.name }

func (cat *Catalog) Close() error {
	cat.c.http.CloseIdleConnections()
	return nil
}

// path builds v1/{prefix}/parts…, each part escaped.
func (cat *Catalog) path(parts ...string) string {
	var b strings.Builder
	b.WriteString("v1")
	if cat.prefix != "" {
		// As the server gave it: a prefix is already a path (an encoded
		// ARN stays encoded), as Iceberg's Java client uses it.
		b.WriteString("/" + cat.prefix)
	}
	for _, p := range parts {
		b.WriteString("/" + url.PathEscape(p))
	}
	return b.String()
}

// nsPart is a namespace as one path segment: its levels joined with the
// unit separator (0x1F), or the separator the server announced.
func (cat *Catalog) nsPart(ns []string) string { return strings.Join(ns, cat.sep) }

// supports tells whether the server announced endpoint ("POST
// /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan"). Only
// endpoints outside the protocol's default set are asked about, and a
// server that announces nothing supports the default set only.
func (cat *Catalog) supports(endpoint string) bool { return cat.endpoints[endpoint] }
