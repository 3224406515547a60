package rest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/resttest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer/ops"
)

// The protocol tests run against resttest, an in-process REST server
// whose faults can be chosen; the acceptance tests against SeaweedFS are
// in weed_test.go.

var idSchema = catalogtest.IDSchema

const secret = "s3cr3t-client-secret"

func newServer(t *testing.T) *resttest.Server {
	s := resttest.New(t)
	s.ClientID, s.Secret = "floe", secret
	return s
}

func open(t testing.TB, s *resttest.Server, extra map[string]string) *rest.Catalog {
	t.Helper()
	props := map[string]string{rest.PropCredential: "floe:" + secret}
	for k, v := range extra {
		props[k] = v
	}
	c, err := rest.Open(context.Background(), s.URL, props, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func appendRows(t testing.TB, tbl *table.Table, rows [][]any, token string) (ops.Result, error) {
	t.Helper()
	return catalogtest.Append(t, tbl, rows, token)
}

func mustAppend(t testing.TB, tbl *table.Table, rows [][]any, token string) ops.Result {
	t.Helper()
	return catalogtest.MustAppend(t, tbl, rows, token)
}

func ids(t testing.TB, tbl *table.Table) []int64 { return catalogtest.IDs(t, tbl) }

func reload(t testing.TB, c catalog.Catalog, id catalog.Identifier) *table.Table {
	t.Helper()
	tbl, err := c.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestNamespacesAndTables(t *testing.T) {
	ctx := context.Background()
	s := newServer(t)
	s.Prefix = "warehouse-1"
	c := open(t, s, nil)

	if err := c.CreateNamespace(ctx, []string{"a"}, map[string]string{"owner": "floe"}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, []string{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, []string{"a"}, nil); !errors.Is(err, catalog.ErrNamespaceExists) {
		t.Fatalf("second create: %v", err)
	}
	top, err := c.ListNamespaces(ctx, nil)
	if err != nil || len(top) != 1 || top[0][0] != "a" {
		t.Fatalf("top namespaces %v, %v", top, err)
	}
	below, err := c.ListNamespaces(ctx, []string{"a"})
	if err != nil || len(below) != 1 || strings.Join(below[0], ".") != "a.b" {
		t.Fatalf("namespaces below a: %v, %v", below, err)
	}
	if ok, err := c.NamespaceExists(ctx, []string{"a", "b"}); !ok || err != nil {
		t.Fatalf("a.b exists: %v %v", ok, err)
	}
	if ok, err := c.NamespaceExists(ctx, []string{"nope"}); ok || err != nil {
		t.Fatalf("nope exists: %v %v", ok, err)
	}
	if err := c.UpdateNamespaceProperties(ctx, []string{"a"}, []string{"owner"}, map[string]string{"team": "x"}); err != nil {
		t.Fatal(err)
	}
	if props, err := c.NamespaceProperties(ctx, []string{"a"}); err != nil || props["team"] != "x" || props["owner"] != "" {
		t.Fatalf("properties %v, %v", props, err)
	}

	id := catalog.Identifier{Namespace: []string{"a", "b"}, Name: "events"}
	tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{Properties: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Metadata.Properties["k"] != "v" {
		t.Errorf("properties %v", tbl.Metadata.Properties)
	}
	if _, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{}); !errors.Is(err, catalog.ErrTableExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, err := c.CreateTable(ctx, catalog.Identifier{Namespace: []string{"zz"}, Name: "t"}, idSchema, catalog.CreateOptions{}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Fatalf("create in a missing namespace: %v", err)
	}
	mustAppend(t, tbl, [][]any{{int64(1), "floe"}, {int64(2), "floe"}}, "")
	mustAppend(t, tbl, [][]any{{int64(3), "floe"}}, "")
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("rows %v", got)
	}
	if err := c.DropNamespace(ctx, []string{"a", "b"}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Fatalf("drop a namespace with a table: %v", err)
	}
	list, err := c.ListTables(ctx, []string{"a", "b"})
	if err != nil || len(list) != 1 || list[0].String() != "a.b.events" {
		t.Fatalf("tables %v, %v", list, err)
	}

	to := catalog.Identifier{Namespace: []string{"a"}, Name: "renamed"}
	if err := c.RenameTable(ctx, id, to); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.TableExists(ctx, id); ok || err != nil {
		t.Fatalf("old name exists after rename: %v %v", ok, err)
	}
	moved := reload(t, c, to)
	if _, err := c.LoadTable(ctx, id); !errors.Is(err, catalog.ErrNoSuchTable) {
		t.Fatalf("load the old name: %v", err)
	}
	if err := c.DropTable(ctx, to, false); err != nil {
		t.Fatal(err)
	}
	if err := c.DropTable(ctx, to, false); !errors.Is(err, catalog.ErrNoSuchTable) {
		t.Fatalf("second drop: %v", err)
	}
	back, err := c.RegisterTable(ctx, id, moved.MetadataLocation)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(t, back); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("registered table rows %v", got)
	}
	for _, r := range s.Requests() {
		if !strings.HasPrefix(r, "POST /v1/oauth/tokens") && !strings.HasPrefix(r, "GET /v1/config") && !strings.Contains(r, "/v1/warehouse-1/") {
			t.Fatalf("request without the configured prefix: %s", r)
		}
	}
}

// Every request carries the configured headers, the access-delegation
// header asking for vended credentials, and the OAuth2 token.
func TestRequestHeaders(t *testing.T) {
	s := newServer(t)
	c := open(t, s, map[string]string{"header.X-Tenant": "blue"})
	if _, err := c.ListNamespaces(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h := s.LastHeaders()
	if h.Get("X-Tenant") != "blue" || h.Get("X-Iceberg-Access-Delegation") != "vended-credentials" || !strings.HasPrefix(h.Get("Authorization"), "Bearer token-") {
		t.Fatalf("headers %v", h)
	}
}

func TestTokensAreRefreshed(t *testing.T) {
	s := newServer(t)
	s.TokenTTL = 2 * time.Second
	c := open(t, s, nil)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	first := s.TokensIssued()
	time.Sleep(s.TokenTTL + 100*time.Millisecond)
	if _, err := c.ListNamespaces(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if s.TokensIssued() != first+1 {
		t.Fatalf("tokens issued %d, want %d: the expiring token was not replaced", s.TokensIssued(), first+1)
	}
	// A token the server revoked before its expiry: the 401 gets a new one.
	s.TokenTTL = 0
	s.RevokeTokens()
	if _, err := c.ListNamespaces(ctx, nil); err != nil {
		t.Fatalf("after revocation: %v", err)
	}
	if s.TokensIssued() != first+2 {
		t.Fatalf("tokens issued %d, want %d", s.TokensIssued(), first+2)
	}
}

func TestAuthErrorsNameTheCatalogAndHideSecrets(t *testing.T) {
	s := newServer(t)
	_, err := rest.Open(context.Background(), s.URL, map[string]string{rest.PropCredential: "floe:wrong-" + secret, rest.PropName: "prod"}, table.Options{})
	if !errors.Is(err, errkind.Unauthorized) {
		t.Fatalf("a wrong secret: %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, secret) || !strings.Contains(msg, "REST catalog prod") {
		t.Fatalf("message %q must name the catalog and not show the secret", msg)
	}
	// No credential at all: the first request after /v1/config is refused.
	c, err := rest.Open(context.Background(), s.URL, nil, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListNamespaces(context.Background(), nil); !errors.Is(err, errkind.Unauthorized) {
		t.Fatalf("no credential: %v", err)
	}
	// A server that echoes a secret in its message: the message is redacted.
	good := open(t, s, map[string]string{rest.PropToken: "static-token-value"})
	s.Inject(resttest.Fault{Method: http.MethodGet, PathSuffix: "/namespaces", Status: http.StatusBadRequest, Message: "bad secret " + secret + " and static-token-value"})
	_, err = good.ListNamespaces(context.Background(), nil)
	if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "static-token-value") || !strings.Contains(err.Error(), "xxxxx") {
		t.Fatalf("message not redacted: %v", err)
	}
}

func newTable(t *testing.T, c *rest.Catalog) (catalog.Identifier, *table.Table) {
	t.Helper()
	return createIn(t, c, "db", "t", catalog.CreateOptions{})
}

// createIn creates namespace ns and table ns.name in it.
func createIn(t *testing.T, c catalog.Catalog, ns, name string, opts catalog.CreateOptions) (catalog.Identifier, *table.Table) {
	t.Helper()
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, []string{ns}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{Namespace: []string{ns}, Name: name}
	tbl, err := c.CreateTable(ctx, id, idSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	return id, tbl
}

func TestRetriesOnUnavailableReads(t *testing.T) {
	s := newServer(t)
	c := open(t, s, nil)
	id, _ := newTable(t, c)
	s.Inject(resttest.Fault{Method: http.MethodGet, PathSuffix: "/tables/t", Status: http.StatusServiceUnavailable, Times: 2, RetryAfter: "0"})
	if _, err := c.LoadTable(context.Background(), id); err != nil {
		t.Fatalf("two 503s then an answer: %v", err)
	}
	s.Inject(resttest.Fault{Method: http.MethodGet, PathSuffix: "/tables/t", Status: http.StatusServiceUnavailable, Times: 10, RetryAfter: "0"})
	if _, err := c.LoadTable(context.Background(), id); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("503 every time: %v", err)
	}
}

// snapshots counts the table's snapshots as the server has them.
func snapshots(t *testing.T, c *rest.Catalog, id catalog.Identifier) int {
	return len(reload(t, c, id).Metadata.Snapshots)
}

func TestCommitFaults(t *testing.T) {
	ctx := context.Background()
	s := newServer(t)
	c := open(t, s, nil)
	id, tbl := newTable(t, c)
	commitPath := "/namespaces/db/tables/t"

	// 429 was not processed: retried, one snapshot.
	s.Inject(resttest.Fault{Method: http.MethodPost, PathSuffix: commitPath, Status: http.StatusTooManyRequests, RetryAfter: "0"})
	mustAppend(t, tbl, [][]any{{int64(1), "429"}}, "")
	if n := snapshots(t, c, id); n != 1 {
		t.Fatalf("%d snapshots after a 429, want 1", n)
	}

	// 409: the commit loop refreshes and tries again.
	s.Inject(resttest.Fault{Method: http.MethodPost, PathSuffix: commitPath, Status: http.StatusConflict})
	if res := mustAppend(t, reload(t, c, id), [][]any{{int64(2), "409"}}, ""); !res.Committed {
		t.Fatal("not committed after a 409")
	}
	if n := snapshots(t, c, id); n != 2 {
		t.Fatalf("%d snapshots after a 409, want 2", n)
	}

	// 503 on a commit: unknown outcome, files kept; the retry with the
	// same token commits once.
	settledByToken(t, s, resttest.Fault{Method: http.MethodPost, PathSuffix: commitPath, Status: http.StatusServiceUnavailable},
		c, id, []any{int64(3), "503"}, "tok-503", false)

	// The connection cut after the server committed: unknown outcome; the
	// retry with the same token finds it.
	settledByToken(t, s, resttest.Fault{Method: http.MethodPost, PathSuffix: commitPath, CutAfter: true},
		c, id, []any{int64(4), "cut"}, "tok-cut", true)
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{1, 2, 3, 4}) {
		t.Fatalf("rows %v: every row once", got)
	}
	if n := snapshots(t, c, id); n != 4 {
		t.Fatalf("%d snapshots, want 4", n)
	}
	_ = ctx
}

func TestConcurrentReplacePartitionsOneWins(t *testing.T) {
	s := newServer(t)
	c := open(t, s, nil)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 2, FieldID: 1000, Name: "writer", Transform: iceberg.IdentityTransform{}}}}
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "p"}
	tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{Spec: &spec})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tbl, [][]any{{int64(1), "x"}}, "")
	a, b := reload(t, c, id), reload(t, c, id)
	replace := func(tbl *table.Table, v int64) error {
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), [][]any{{v, "x"}})
		defer rr.Release()
		_, err := ops.ReplacePartitions(ctx, tbl, rr, table.CommitOptions{})
		return err
	}
	if err := replace(a, 10); err != nil {
		t.Fatal(err)
	}
	if err := replace(b, 20); !errors.Is(err, errkind.Conflict) {
		t.Fatalf("the second replace_partitions of partition x: %v", err)
	}
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{10}) {
		t.Fatalf("rows %v", got)
	}
}

// A commit answered with a redirect, or with a 2xx whose body is not the
// protocol's, is of unknown outcome: its files stay and the retry with
// the same token settles it (a redirect is never followed with the commit
// turned into a GET).
func TestCommitAnswersThatSayNothing(t *testing.T) {
	s := newServer(t)
	c := open(t, s, nil)
	id, tbl := newTable(t, c)
	commitPath := "/namespaces/db/tables/t"
	s.Inject(resttest.Fault{Method: http.MethodPost, PathSuffix: commitPath, Status: http.StatusFound, Location: s.URL + "/v1/namespaces/db/tables/t"})
	if _, err := appendRows(t, tbl, [][]any{{int64(1), "redirect"}}, "tok-redirect"); !errors.Is(err, errkind.CommitStateUnknown) {
		t.Fatalf("a redirected commit: %v", err)
	}
	if n := snapshots(t, c, id); n != 0 {
		t.Fatalf("%d snapshots after a redirected commit, want 0", n)
	}
	if res := mustAppend(t, reload(t, c, id), [][]any{{int64(1), "redirect"}}, "tok-redirect"); !res.Committed {
		t.Fatalf("retry after a redirect: %+v", res)
	}
	settledByToken(t, s, resttest.Fault{Method: http.MethodPost, PathSuffix: commitPath, GarbageAfter: true},
		c, id, []any{int64(2), "garbage"}, "tok-garbage", true)
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("rows %v: every row once, and the files of the accepted commit kept", got)
	}
}

// injector is a server or proxy that faults can be injected into.
type injector interface{ Inject(resttest.Fault) }

// settledByToken injects f into the next commit of row under token: the
// commit must be of unknown outcome, and its retry with the same token
// must commit it once (found false) or find it committed (found true).
func settledByToken(t *testing.T, inj injector, f resttest.Fault, c *rest.Catalog, id catalog.Identifier, row []any, token string, found bool) {
	t.Helper()
	inj.Inject(f)
	if _, err := appendRows(t, reload(t, c, id), [][]any{row}, token); !errors.Is(err, errkind.CommitStateUnknown) {
		t.Fatalf("commit under %s: %v, want an unknown outcome", token, err)
	}
	res := mustAppend(t, reload(t, c, id), [][]any{row}, token)
	if found && (!res.TokenFound || res.Committed) {
		t.Fatalf("retry under %s: %+v, want the earlier commit found", token, res)
	}
	if !found && (!res.Committed || res.TokenFound) {
		t.Fatalf("retry under %s: %+v, want it committed now", token, res)
	}
}

// An absolute oauth2-server-uri is where tokens come from; a refused
// credential is asked for once, not retried.
func TestOAuth2ServerURI(t *testing.T) {
	s := newServer(t)
	c := open(t, s, map[string]string{rest.PropOAuth2ServerURI: s.URL + "/v1/oauth/tokens"})
	if _, err := c.ListNamespaces(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Requests() {
		if strings.Contains(r, "http") {
			t.Fatalf("the token URI was taken as a path: %s", r)
		}
	}
	before := len(s.Requests())
	_, err := rest.Open(context.Background(), s.URL, map[string]string{rest.PropCredential: "floe:wrong", rest.PropOAuth2ServerURI: s.URL + "/v1/oauth/tokens"}, table.Options{})
	if !errors.Is(err, errkind.Unauthorized) {
		t.Fatalf("a wrong secret: %v", err)
	}
	tokenRequests := 0
	for _, r := range s.Requests()[before:] {
		if strings.HasSuffix(r, "/oauth/tokens") {
			tokenRequests++
		}
	}
	if tokenRequests != 1 {
		t.Fatalf("%d token requests for one refused credential, want 1", tokenRequests)
	}
}
