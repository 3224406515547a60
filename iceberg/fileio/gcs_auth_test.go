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

// A server that refuses the token (401, as GCS answers an expired one) or
// the account (403): every operation fails at once, without retries, as
// kind Unauthorized, naming the location and not the token.
func TestGCSRefusedCredentialsAreUnauthorized(t *testing.T) {
	const token = "ya29.floe-test-refused-token"
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		var requests atomic.Int64
		var sawToken atomic.Bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			if r.Header.Get("Authorization") == "Bearer "+token {
				sawToken.Store(true)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error": {"code": %d, "message": "Invalid Credentials"}}`, status)
		}))
		files, err := fileio.NewGCS(t.Context(), fileio.GCSOptions{ServiceHost: srv.URL, OAuth2Token: token})
		if err != nil {
			t.Fatal(err)
		}
		location := "gs://bucket/wh/t/metadata/v1.metadata.json"
		ops := map[string]func() error{
			"ReadFile":          func() error { _, err := files.ReadFile(t.Context(), location); return err },
			"Stat":              func() error { _, err := files.Stat(t.Context(), location); return err },
			"WriteFile":         func() error { return files.WriteFile(t.Context(), location, []byte("{}")) },
			"WriteFileIfAbsent": func() error { return files.WriteFileIfAbsent(t.Context(), location, []byte("{}")) },
		}
		for name, op := range ops {
			before := requests.Load()
			err := op()
			if !errors.Is(err, errkind.Unauthorized) || !strings.Contains(err.Error(), location) {
				t.Errorf("%d: %s: %v, want kind unauthorized naming %s", status, name, err, location)
			}
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("%d: %s: the error repeats the token: %v", status, name, err)
			}
			if n := requests.Load() - before; n != 1 {
				t.Errorf("%d: %s: %d requests, want 1 (no retries of a refusal)", status, name, n)
			}
		}
		if !sawToken.Load() {
			t.Errorf("%d: the server never saw the bearer token", status)
		}
		srv.Close()
	}
}
