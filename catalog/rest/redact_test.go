package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/iceberg/table"
)

// A password in a REST catalog URI never shows, a malformed one (a bad
// %-escape) included.
func TestURIWithPasswordHidesIt(t *testing.T) {
	for _, uri := range []string{"http://u:S3CRETVALUE%zz@host/", "http://u:S3CRETVALUE@host/", "https://u:S3CRETVALUE@h:99/p?token=S3CRETVALUE"} {
		_, err := rest.Open(context.Background(), uri, nil, table.Options{})
		if err == nil || strings.Contains(err.Error(), "S3CRETVALUE") {
			t.Errorf("%s: %v", uri, err)
		}
	}
}

// A server that echoes the request's headers in its error answer (as
// written, JSON-quoted or URL-escaped) shows no header value floe sent.
func TestEchoedHeaderValuesAreRedacted(t *testing.T) {
	const key = `k3y+v/alue"with&odd`
	for name, echo := range map[string]func(string) string{
		"raw":  func(v string) string { return v },
		"json": func(v string) string { b, _ := json.Marshal(v); return string(b) },
		"url":  url.QueryEscape,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte("bad request, headers: X-Api-Key=" + echo(r.Header.Get("X-Api-Key"))))
		}))
		_, err := rest.Open(context.Background(), srv.URL, map[string]string{"header.X-Api-Key": key}, table.Options{})
		srv.Close()
		if err == nil || strings.Contains(err.Error(), echo(key)) || !strings.Contains(err.Error(), "xxxxx") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
