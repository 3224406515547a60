package rest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/resttest"
	"github.com/floedb/floe/internal/s3test"
)

// Requests signed with SigV4 pass a server that checks the signature by
// signing them again; a wrong secret is refused, as unauthorized.
func TestSigV4(t *testing.T) {
	s := resttest.NewWith(t, resttest.Options{SigV4Key: "AKIDFLOE", SigV4Secret: "sigv4-secret-key", SigV4Region: "eu-west-1", SigV4Service: "execute-api"})
	props := map[string]string{rest.PropSigV4: "true", rest.PropSigningRegion: "eu-west-1",
		rest.PropSigV4AccessKeyID: "AKIDFLOE", rest.PropSigV4SecretAccessKey: "sigv4-secret-key"}
	c, err := rest.Open(context.Background(), s.URL, props, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, tbl := newTable(t, c) // POSTs with bodies: the body hash is signed
	mustAppend(t, tbl, [][]any{{int64(1), "sigv4"}}, "")
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{1}) {
		t.Fatalf("rows %v", got)
	}
	props[rest.PropSigV4SecretAccessKey] = "another-secret-key"
	_, err = rest.Open(context.Background(), s.URL, props, table.Options{})
	if !errors.Is(err, errkind.Unauthorized) || strings.Contains(err.Error(), "another-secret-key") {
		t.Fatalf("a wrong SigV4 secret: %v", err)
	}
}

// TLS: verification is on; the server's CA given as ssl.cabundle makes
// it pass.
func TestTLSWithCABundle(t *testing.T) {
	s := resttest.NewWith(t, resttest.Options{TLS: true})
	if _, err := rest.Open(context.Background(), s.URL, nil, table.Options{}); err == nil || errkind.Of(err) != errkind.IO {
		t.Fatalf("an unknown CA must fail verification: %v", err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := rest.Open(context.Background(), s.URL, map[string]string{rest.PropCABundle: ca}, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateNamespace(context.Background(), []string{"tls"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Open(context.Background(), s.URL, map[string]string{rest.PropCABundle: filepath.Join(t.TempDir(), "missing.pem")}, table.Options{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a missing CA file: %v", err)
	}
}

// Vended credentials: the client has no S3 settings of its own; the
// server's LoadTable answer gives the endpoint in config and the keys as
// storage credentials for the table's prefix, and the table reads and
// commits with them. The vended secret never shows in a message.
func TestVendedCredentials(t *testing.T) {
	srv := s3test.Start(t)
	o := srv.Options()
	backend := map[string]string{"s3.endpoint": o.Endpoint, "s3.region": o.Region, "s3.access-key-id": o.AccessKeyID,
		"s3.secret-access-key": o.SecretAccessKey, "s3.path-style-access": "true"}
	s := resttest.NewWith(t, resttest.Options{Warehouse: srv.Location("rest-wh"), BackendProperties: backend})
	s.Config = map[string]string{"s3.endpoint": o.Endpoint, "s3.path-style-access": "true", "s3.region": o.Region}
	s.StorageCredentials = []map[string]any{
		{"prefix": "s3://", "config": map[string]string{"s3.access-key-id": "wrong", "s3.secret-access-key": "wrong-secret"}},
		{"prefix": srv.Location("rest-wh"), "config": map[string]string{"s3.access-key-id": o.AccessKeyID, "s3.secret-access-key": o.SecretAccessKey}},
	}
	c, err := rest.Open(context.Background(), s.URL, nil, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, tbl := newTable(t, c)
	if !strings.HasPrefix(tbl.Metadata.Location, "s3://") {
		t.Fatalf("location %s", tbl.Metadata.Location)
	}
	mustAppend(t, tbl, [][]any{{int64(1), "vended"}, {int64(2), "vended"}}, "")
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("rows %v", got)
	}
	// The shorter prefix's wrong keys are what a table elsewhere gets.
	s.StorageCredentials = s.StorageCredentials[:1]
	_, err = appendRows(t, reload(t, c, id), [][]any{{int64(3), "x"}}, "")
	if err == nil || strings.Contains(err.Error(), "wrong-secret") || strings.Contains(err.Error(), o.SecretAccessKey) {
		t.Fatalf("with the wrong vended keys: %v", err)
	}
}

// Credentials a server vends with a scan plan read the plan's files, even
// when the table's own are no good for them.
func TestPlanCredentials(t *testing.T) {
	srv := s3test.Start(t)
	o := srv.Options()
	backend := map[string]string{"s3.endpoint": o.Endpoint, "s3.region": o.Region, "s3.access-key-id": o.AccessKeyID,
		"s3.secret-access-key": o.SecretAccessKey, "s3.path-style-access": "true"}
	s := resttest.NewWith(t, resttest.Options{Warehouse: srv.Location("plan-wh"), BackendProperties: backend})
	s.Config = map[string]string{"s3.endpoint": o.Endpoint, "s3.path-style-access": "true", "s3.region": o.Region}
	good := []map[string]any{{"prefix": srv.Location("plan-wh"), "config": map[string]string{"s3.access-key-id": o.AccessKeyID, "s3.secret-access-key": o.SecretAccessKey}}}
	s.StorageCredentials = good
	c, err := rest.Open(context.Background(), s.URL, nil, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, tbl := newTable(t, c)
	mustAppend(t, tbl, [][]any{{int64(1), "planned"}}, "")
	// From here the table's own credentials are wrong; the plan's right.
	s.StorageCredentials = []map[string]any{{"prefix": "s3://", "config": map[string]string{"s3.access-key-id": "wrong", "s3.secret-access-key": "wrong-secret"}}}
	s.PlanCredentials = good
	s.Planning = "completed"
	planned := open2(t, s.URL)
	if got := ids(t, reload(t, planned, id)); !slices.Equal(got, []int64{1}) {
		t.Fatalf("rows %v", got)
	}
}

// open2 opens a catalog with no properties (after the server changed what
// it announces).
func open2(t *testing.T, uri string) *rest.Catalog {
	t.Helper()
	c, err := rest.Open(context.Background(), uri, nil, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
