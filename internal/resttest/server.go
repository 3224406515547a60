// Package resttest is an Iceberg REST catalog server for tests of the
// client's protocol handling: a real catalog (catalog/sql on SQLite, with
// real metadata files) behind the protocol's routes, with OAuth2 tokens
// that expire, and faults to inject (an error status, or a connection
// cut after the request took effect). The acceptance tests of REST run
// against SeaweedFS (internal/weedtest); this one is fast and can fail on
// purpose.
package resttest

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/catalog"
	sqlcatalog "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// Server is a running REST catalog.
type Server struct {
	URL     string
	Backend *sqlcatalog.Catalog
	// Prefix, when set, is announced in /v1/config and required in paths.
	Prefix string
	// ClientID and Secret, when set, make every route but /v1/config and
	// the token endpoint require a token from the client-credentials
	// grant, valid for TokenTTL (0: no expiry).
	ClientID, Secret string
	TokenTTL         time.Duration
	// Config is added to every LoadTable answer's config.
	Config map[string]string
	// StorageCredentials are sent with every LoadTable answer;
	// PlanCredentials with every completed scan plan.
	StorageCredentials []map[string]any
	PlanCredentials    []map[string]any
	// CertPEM is the TLS certificate of a server started with TLS.
	CertPEM []byte
	opts    Options

	// Planning, when set, announces server-side scan planning and serves
	// it: "completed" answers the plan at once; "async" answers
	// "submitted", is still submitted at the first poll, then completes
	// with plan tasks of two file scan tasks each.
	Planning string
	// NoTransactions turns off POST {prefix}/transactions/commit: the
	// route answers 404, as a server without it would, and /v1/config
	// leaves it out of the endpoints it lists. AnnounceEndpoints makes
	// /v1/config list endpoints even without Planning.
	NoTransactions    bool
	AnnounceEndpoints bool

	// Faults are applied to every request before the catalog sees it.
	Faults

	mu       sync.Mutex
	plans    map[string]*plan
	tokens   map[string]time.Time
	issued   int
	commitMu sync.Mutex
}

// New starts a server on 127.0.0.1 whose tables live under t.TempDir().
func New(t testing.TB) *Server { return NewWith(t, Options{}) }

// Options shape a server: where its tables go and how it is reached.
type Options struct {
	// Warehouse is where new tables go (default: a temporary directory);
	// BackendProperties configure the backend catalog (s3.* for an S3
	// warehouse).
	Warehouse         string
	BackendProperties map[string]string
	// TLS serves HTTPS with a certificate of its own (Server.CertPEM).
	TLS bool
	// SigV4 requires every request to carry a valid AWS SigV4 signature
	// of these credentials (for region SigV4Region, service SigV4Service).
	SigV4Key, SigV4Secret, SigV4Region, SigV4Service string
}

// NewWith starts a server shaped by opts.
func NewWith(t testing.TB, opts Options) *Server {
	t.Helper()
	dir := t.TempDir()
	props := map[string]string{"warehouse": dir}
	if opts.Warehouse != "" {
		props["warehouse"] = opts.Warehouse
	}
	for k, v := range opts.BackendProperties {
		props[k] = v
	}
	backend, err := sqlcatalog.Open(context.Background(), "sqlite:"+filepath.Join(dir, "rest.db"), props, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Backend: backend, tokens: map[string]time.Time{}, plans: map[string]*plan{}, opts: opts}
	var hs *httptest.Server
	if opts.TLS {
		hs = httptest.NewTLSServer(s)
		s.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw})
	} else {
		hs = httptest.NewServer(s)
	}
	s.URL = hs.URL
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		backend.Close()
	})
	return s
}

// RevokeTokens makes every token issued so far invalid.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// TokensIssued counts the tokens the token endpoint gave out.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.SigV4Key != "" {
		if err := s.checkSigV4(r); err != nil {
			writeError(w, http.StatusForbidden, "NotAuthorizedException", "SigV4: "+err.Error())
			return
		}
	}
	s.Faults.Handler(http.HandlerFunc(s.route)).ServeHTTP(w, r)
}

// decode reads a request's JSON body into v, answering 400 when it is not.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": status}})
}

// writeErr answers an error of the backend with the protocol's status.
func writeErr(w http.ResponseWriter, err error) {
	status, typ := http.StatusInternalServerError, "ServiceFailureException"
	switch {
	case errors.Is(err, catalog.ErrNoSuchNamespace):
		status, typ = http.StatusNotFound, "NoSuchNamespaceException"
	case errors.Is(err, catalog.ErrNoSuchTable):
		status, typ = http.StatusNotFound, "NoSuchTableException"
	case errors.Is(err, catalog.ErrNamespaceNotEmpty):
		status, typ = http.StatusConflict, "NamespaceNotEmptyException"
	case errors.Is(err, catalog.ErrNamespaceExists), errors.Is(err, catalog.ErrTableExists):
		status, typ = http.StatusConflict, "AlreadyExistsException"
	case errors.Is(err, errkind.Conflict):
		status, typ = http.StatusConflict, "CommitFailedException"
	case errors.Is(err, errkind.InvalidArgument):
		status, typ = http.StatusBadRequest, "BadRequestException"
	case errors.Is(err, errkind.NotFound):
		status, typ = http.StatusNotFound, "NotFoundException"
	}
	writeError(w, status, typ, err.Error())
}

func (s *Server) authorized(r *http.Request) bool {
	if s.ClientID == "" {
		return true
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.tokens[token]
	return ok && (exp.IsZero() || time.Now().Before(exp))
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	if r.PostForm.Get("client_id") != s.ClientID || r.PostForm.Get("client_secret") != s.Secret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "unknown client " + r.PostForm.Get("client_id")})
		return
	}
	s.mu.Lock()
	s.issued++
	tok := fmt.Sprintf("token-%d-%d", s.issued, time.Now().UnixNano())
	var exp time.Time
	if s.TokenTTL > 0 {
		exp = time.Now().Add(s.TokenTTL)
	}
	s.tokens[tok] = exp
	s.mu.Unlock()
	answer := map[string]any{"access_token": tok, "token_type": "bearer", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}
	if s.TokenTTL > 0 {
		answer["expires_in"] = int(s.TokenTTL / time.Second)
	}
	writeJSON(w, http.StatusOK, answer)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.EscapedPath(), "/v1/")
	switch path {
	case "config":
		over := map[string]string{}
		if s.Prefix != "" {
			over["prefix"] = s.Prefix
		}
		cfg := map[string]any{"defaults": map[string]string{}, "overrides": over}
		if s.Planning != "" || s.AnnounceEndpoints {
			cfg["endpoints"] = s.announced()
		}
		writeJSON(w, http.StatusOK, cfg)
		return
	case "oauth/tokens":
		s.token(w, r)
		return
	}
	if !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, "NotAuthorizedException", "not authorized")
		return
	}
	var parts []string
	for _, p := range strings.Split(path, "/") {
		un, err := url.PathUnescape(p)
		if err != nil {
			writeError(w, http.StatusBadRequest, "BadRequestException", "bad path")
			return
		}
		parts = append(parts, un)
	}
	if s.Prefix != "" {
		if len(parts) == 0 || parts[0] != s.Prefix {
			writeError(w, http.StatusNotFound, "NotFoundException", "no such route (prefix)")
			return
		}
		parts = parts[1:]
	}
	ctx := r.Context()
	switch {
	case len(parts) == 1 && parts[0] == "namespaces":
		s.namespaces(ctx, w, r)
	case len(parts) == 2 && parts[0] == "namespaces":
		s.namespace(ctx, w, r, strings.Split(parts[1], "\x1f"))
	case len(parts) == 3 && parts[0] == "namespaces" && parts[2] == "properties":
		s.properties(ctx, w, r, strings.Split(parts[1], "\x1f"))
	case len(parts) == 3 && parts[0] == "namespaces" && parts[2] == "tables":
		s.tables(ctx, w, r, strings.Split(parts[1], "\x1f"))
	case len(parts) == 3 && parts[0] == "namespaces" && parts[2] == "register":
		s.register(ctx, w, r, strings.Split(parts[1], "\x1f"))
	case len(parts) == 4 && parts[0] == "namespaces" && parts[2] == "tables":
		s.table(ctx, w, r, catalog.Identifier{Namespace: strings.Split(parts[1], "\x1f"), Name: parts[3]})
	case len(parts) >= 5 && parts[0] == "namespaces" && parts[2] == "tables" && s.Planning != "":
		s.planRoute(ctx, w, r, catalog.Identifier{Namespace: strings.Split(parts[1], "\x1f"), Name: parts[3]}, parts[4:])
	case len(parts) == 2 && parts[0] == "tables" && parts[1] == "rename":
		s.rename(ctx, w, r)
	case len(parts) == 2 && parts[0] == "transactions" && parts[1] == "commit" && !s.NoTransactions:
		s.commitTransaction(ctx, w, r)
	default:
		writeError(w, http.StatusNotFound, "NotFoundException", "no such route")
	}
}

func (s *Server) namespaces(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		var parent []string
		if p := r.URL.Query().Get("parent"); p != "" {
			parent = strings.Split(p, "\x1f")
		}
		list, err := s.Backend.ListNamespaces(ctx, parent)
		if err != nil {
			writeErr(w, err)
			return
		}
		if list == nil {
			list = [][]string{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"namespaces": list})
	case http.MethodPost:
		var body struct {
			Namespace  []string          `json:"namespace"`
			Properties map[string]string `json:"properties"`
		}
		if !decode(w, r, &body) {
			return
		}
		if err := s.Backend.CreateNamespace(ctx, body.Namespace, body.Properties); err != nil {
			writeErr(w, err)
			return
		}
		writeJSON(w, http.StatusOK, body)
	default:
		writeError(w, http.StatusMethodNotAllowed, "BadRequestException", r.Method)
	}
}

func (s *Server) namespace(ctx context.Context, w http.ResponseWriter, r *http.Request, ns []string) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		props, err := s.Backend.NamespaceProperties(ctx, ns)
		if err != nil {
			writeErr(w, err)
			return
		}
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"namespace": ns, "properties": props})
	case http.MethodDelete:
		if err := s.Backend.DropNamespace(ctx, ns); err != nil {
			writeErr(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		writeError(w, http.StatusMethodNotAllowed, "BadRequestException", r.Method)
	}
}

func (s *Server) properties(ctx context.Context, w http.ResponseWriter, r *http.Request, ns []string) {
	var body struct {
		Removals []string          `json:"removals"`
		Updates  map[string]string `json:"updates"`
	}
	if !decode(w, r, &body) {
		return
	}
	if err := s.Backend.UpdateNamespaceProperties(ctx, ns, body.Removals, body.Updates); err != nil {
		writeErr(w, err)
		return
	}
	updated := []string{}
	for k := range body.Updates {
		updated = append(updated, k)
	}
	writeJSON(w, http.StatusOK, map[string]any{"updated": updated, "removed": body.Removals, "missing": []string{}})
}

func (s *Server) loadResult(t *table.Table) map[string]any {
	cfg := map[string]string{}
	for k, v := range s.Config {
		cfg[k] = v
	}
	out := map[string]any{"metadata-location": t.MetadataLocation, "metadata": t.Metadata, "config": cfg}
	if s.StorageCredentials != nil {
		out["storage-credentials"] = s.StorageCredentials
	}
	return out
}

func (s *Server) tables(ctx context.Context, w http.ResponseWriter, r *http.Request, ns []string) {
	switch r.Method {
	case http.MethodGet:
		ids, err := s.Backend.ListTables(ctx, ns)
		if err != nil {
			writeErr(w, err)
			return
		}
		out := []map[string]any{}
		for _, id := range ids {
			out = append(out, map[string]any{"namespace": id.Namespace, "name": id.Name})
		}
		writeJSON(w, http.StatusOK, map[string]any{"identifiers": out})
	case http.MethodPost:
		var body struct {
			Name       string            `json:"name"`
			Location   string            `json:"location"`
			Schema     json.RawMessage   `json:"schema"`
			Spec       json.RawMessage   `json:"partition-spec"`
			Properties map[string]string `json:"properties"`
		}
		if !decode(w, r, &body) {
			return
		}
		schema := new(iceberg.Schema)
		if err := schema.UnmarshalJSON(body.Schema); err != nil {
			writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
			return
		}
		opts := catalog.CreateOptions{Properties: body.Properties, Location: body.Location}
		if len(body.Spec) > 0 {
			spec := new(iceberg.PartitionSpec)
			if err := spec.UnmarshalJSON(body.Spec); err != nil {
				writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
				return
			}
			opts.Spec = spec
		}
		t, err := s.Backend.CreateTable(ctx, catalog.Identifier{Namespace: ns, Name: body.Name}, schema, opts)
		if err != nil {
			writeErr(w, err)
			return
		}
		writeJSON(w, http.StatusOK, s.loadResult(t))
	default:
		writeError(w, http.StatusMethodNotAllowed, "BadRequestException", r.Method)
	}
}

func (s *Server) register(ctx context.Context, w http.ResponseWriter, r *http.Request, ns []string) {
	var body struct {
		Name     string `json:"name"`
		Location string `json:"metadata-location"`
	}
	if !decode(w, r, &body) {
		return
	}
	t, err := s.Backend.RegisterTable(ctx, catalog.Identifier{Namespace: ns, Name: body.Name}, body.Location)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.loadResult(t))
}

func (s *Server) table(ctx context.Context, w http.ResponseWriter, r *http.Request, id catalog.Identifier) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		t, err := s.Backend.LoadTable(ctx, id)
		if err != nil {
			writeErr(w, err)
			return
		}
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, s.loadResult(t))
	case http.MethodDelete:
		if err := s.Backend.DropTable(ctx, id, false); err != nil {
			writeErr(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPost:
		s.commit(ctx, w, r, id)
	default:
		writeError(w, http.StatusMethodNotAllowed, "BadRequestException", r.Method)
	}
}

// stage reads a commit's requirements and updates, checks the
// requirements against the table's current metadata and applies the
// updates, as the server receiving them would; on a failure it writes the
// protocol's error and returns false. The caller holds commitMu.
func (s *Server) stage(ctx context.Context, w http.ResponseWriter, id catalog.Identifier, rawReqs, rawUpdates json.RawMessage) (*table.Table, *metadata.Changes, bool) {
	reqs, err := metadata.ParseRequirements(rawReqs)
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
		return nil, nil, false
	}
	updates, err := metadata.ParseUpdates(rawUpdates)
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
		return nil, nil, false
	}
	base, err := s.Backend.LoadTable(ctx, id)
	if err != nil {
		writeErr(w, err)
		return nil, nil, false
	}
	for _, req := range reqs {
		if err := req.Check(base.Metadata); err != nil {
			writeError(w, http.StatusConflict, "CommitFailedException", err.Error())
			return nil, nil, false
		}
	}
	changes := metadata.Edit(base.Metadata)
	if err := changes.Apply(updates...); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
		return nil, nil, false
	}
	return base, changes, true
}

// commit checks the requirements against the current metadata, applies
// the updates and publishes the result through the backend's
// compare-and-swap, as a catalog that stores metadata files does.
func (s *Server) commit(ctx context.Context, w http.ResponseWriter, r *http.Request, id catalog.Identifier) {
	var body struct {
		Requirements json.RawMessage `json:"requirements"`
		Updates      json.RawMessage `json:"updates"`
	}
	if !decode(w, r, &body) {
		return
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	base, changes, ok := s.stage(ctx, w, id, body.Requirements, body.Updates)
	if !ok {
		return
	}
	next, err := base.Publisher.Publish(ctx, base, changes)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"metadata-location": next.MetadataLocation, "metadata": next.Metadata})
}

func (s *Server) rename(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	var body struct {
		Source struct {
			Namespace []string
			Name      string
		} `json:"source"`
		Destination struct {
			Namespace []string
			Name      string
		} `json:"destination"`
	}
	if !decode(w, r, &body) {
		return
	}
	from := catalog.Identifier{Namespace: body.Source.Namespace, Name: body.Source.Name}
	to := catalog.Identifier{Namespace: body.Destination.Namespace, Name: body.Destination.Name}
	if err := s.Backend.RenameTable(ctx, from, to); err != nil {
		writeErr(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
