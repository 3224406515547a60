package fileio_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
)

// A store that refuses the credentials (401, as GCS answers an expired
// token; 403, a key without the right): every operation fails at once,
// without retries, as kind Unauthorized, naming the location and never the
// secret, and the server saw the credentials floe was given.
func TestRefusedCredentialsAreUnauthorized(t *testing.T) {
	const secret = "floe-test-refused-secret-key"
	stores := []struct {
		name     string
		location string
		answer   func(w http.ResponseWriter, status int)
		open     func(url string) (fileio.FileIO, error)
		// sent tells whether a request carried the credentials given.
		sent func(r *http.Request) bool
	}{
		{"gcs", "gs://bucket/wh/t/metadata/v1.metadata.json",
			func(w http.ResponseWriter, status int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"error": {"code": %d, "message": "Invalid Credentials"}}`, status)
			},
			func(url string) (fileio.FileIO, error) {
				return fileio.NewGCS(t.Context(), fileio.GCSOptions{ServiceHost: url, OAuth2Token: secret})
			},
			func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+secret }},
		{"s3", "s3://bucket/wh/t/metadata/v1.metadata.json",
			func(w http.ResponseWriter, status int) {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`))
			},
			func(url string) (fileio.FileIO, error) {
				return fileio.NewS3(t.Context(), fileio.S3Options{Endpoint: url, Region: "us-east-1", AccessKeyID: "AKIDFLOETEST",
					SecretAccessKey: secret, PathStyle: true, MaxAttempts: 3})
			},
			func(r *http.Request) bool { return strings.Contains(r.Header.Get("Authorization"), "Credential=AKIDFLOETEST/") }},
		{"azure", "wasb://container/wh/t/metadata/v1.metadata.json",
			func(w http.ResponseWriter, status int) {
				w.Header().Set("x-ms-error-code", "AuthenticationFailed")
				w.WriteHeader(status)
			},
			func(url string) (fileio.FileIO, error) {
				return fileio.NewAzure(fileio.AzureOptions{AccountName: "floetest", AccountKey: "ZmxvZS10ZXN0LXJlZnVzZWQtc2VjcmV0LWtleQ==",
					BlobStorageAuthority: strings.TrimPrefix(url, "http://"), BlobStorageScheme: "http", MaxAttempts: 3})
			},
			func(r *http.Request) bool { return strings.HasPrefix(r.Header.Get("Authorization"), "SharedKey floetest:") }},
	}
	for _, st := range stores {
		for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
			var requests atomic.Int64
			var sent atomic.Bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if st.sent(r) {
					sent.Store(true)
				}
				st.answer(w, status)
			}))
			files, err := st.open(srv.URL)
			if err != nil {
				srv.Close()
				t.Fatalf("%s: %v", st.name, err)
			}
			ops := map[string]func() error{
				"ReadFile":          func() error { _, err := files.ReadFile(t.Context(), st.location); return err },
				"Stat":              func() error { _, err := files.Stat(t.Context(), st.location); return err },
				"WriteFile":         func() error { return files.WriteFile(t.Context(), st.location, []byte("{}")) },
				"WriteFileIfAbsent": func() error { return files.WriteFileIfAbsent(t.Context(), st.location, []byte("{}")) },
			}
			for name, op := range ops {
				before := requests.Load()
				err := op()
				if !errors.Is(err, errkind.Unauthorized) || !strings.Contains(err.Error(), st.location) {
					t.Errorf("%s %d: %s: %v, want kind unauthorized naming %s", st.name, status, name, err, st.location)
				}
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("%s %d: %s: the error repeats the secret: %v", st.name, status, name, err)
				}
				if n := requests.Load() - before; n != 1 {
					t.Errorf("%s %d: %s: %d requests, want no retries of a refusal", st.name, status, name, n)
				}
			}
			if !sent.Load() {
				t.Errorf("%s %d: the server never saw the credentials", st.name, status)
			}
			srv.Close()
		}
	}
}
