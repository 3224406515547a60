package fileio_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
)

// S3 and Azure hold a refusal (401, 403) to the rule GCS's test above
// holds it to: kind Unauthorized at once, naming the location, never the
// secret, with one request.
func TestS3AndAzureRefusedCredentialsAreUnauthorized(t *testing.T) {
	const secret = "floe-test-refused-secret-key"
	stores := []struct {
		name     string
		location string
		answer   func(w http.ResponseWriter, status int)
		open     func(url string) (fileio.FileIO, error)
	}{
		{"s3", "s3://bucket/wh/t/metadata/v1.metadata.json",
			func(w http.ResponseWriter, status int) {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`))
			},
			func(url string) (fileio.FileIO, error) {
				return fileio.NewS3(t.Context(), fileio.S3Options{Endpoint: url, Region: "us-east-1", AccessKeyID: "AKIDFLOETEST",
					SecretAccessKey: secret, PathStyle: true, MaxAttempts: 3})
			}},
		{"azure", "wasb://container/wh/t/metadata/v1.metadata.json",
			func(w http.ResponseWriter, status int) {
				w.Header().Set("x-ms-error-code", "AuthenticationFailed")
				w.WriteHeader(status)
			},
			func(url string) (fileio.FileIO, error) {
				return fileio.NewAzure(fileio.AzureOptions{AccountName: "floetest", AccountKey: "ZmxvZS10ZXN0LXJlZnVzZWQtc2VjcmV0LWtleQ==",
					BlobStorageAuthority: strings.TrimPrefix(url, "http://"), BlobStorageScheme: "http", MaxAttempts: 3})
			}},
	}
	for _, st := range stores {
		for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
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
			srv.Close()
		}
	}
}
