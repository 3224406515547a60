package fileio

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// GCSOptions configure a GCS FileIO. Every unset field falls back to the
// environment Google's client libraries read: STORAGE_EMULATOR_HOST (an
// emulator, reached without credentials), then application default
// credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's well-known file,
// the metadata server on Google Cloud). The JSON form is what table-open
// options carry under "gcs".
type GCSOptions struct {
	// ProjectID is the project requests are billed to (sent as the quota
	// project, x-goog-user-project), for requester-pays buckets; empty
	// means the bucket's own project pays.
	ProjectID string `json:"project_id,omitempty"`
	// OAuth2Token is a bearer access token, sent as is (pyiceberg's
	// gcs.oauth2.token, or one a REST catalog vends); it is never
	// refreshed, so it serves until it expires.
	OAuth2Token string `json:"oauth2_token,omitempty"`
	// ServiceHost is the base URL of the service ("http://127.0.0.1:4443",
	// an emulator such as fake-gcs-server); empty means Google's, or
	// STORAGE_EMULATOR_HOST. A service host without a token is reached
	// without credentials, as an emulator expects.
	ServiceHost string `json:"service_host,omitempty"`
	// Anonymous sends no credentials, for public buckets.
	Anonymous bool `json:"anonymous,omitempty"`
	// MaxAttempts bounds the tries of one request (default 5).
	MaxAttempts int `json:"max_attempts,omitempty"`
	// ChunkSize is the resumable upload chunk of Create (default 8 MiB, a
	// multiple of 256 KiB as GCS requires); smaller files are sent in one
	// request.
	ChunkSize int64 `json:"chunk_size,omitempty"`
	// RetryBaseDelay and RetryMaxDelay shape the full-jitter backoff, as
	// for S3 (defaults 100 ms and 5 s).
	RetryBaseDelay time.Duration `json:"-"`
	RetryMaxDelay  time.Duration `json:"-"`
}

const (
	defaultGCSAttempts  = 5
	defaultGCSChunkSize = 8 << 20
	gcsChunkQuantum     = 256 << 10
)

// Validate refuses settings that can never work, so a caller can reject
// them when it parses them instead of at the first GCS request.
func (o GCSOptions) Validate() error {
	switch {
	case o.ChunkSize < 0 || o.ChunkSize%gcsChunkQuantum != 0:
		return fmt.Errorf("fileio: gcs chunk_size %d is not a positive multiple of 256 KiB", o.ChunkSize)
	case o.MaxAttempts < 0:
		return fmt.Errorf("fileio: gcs max_attempts %d is negative", o.MaxAttempts)
	case o.Anonymous && o.OAuth2Token != "":
		return errors.New("fileio: gcs options are anonymous and give an oauth2_token; choose one")
	}
	if o.ServiceHost != "" {
		if _, err := gcsServiceURL(o.ServiceHost); err != nil {
			return err
		}
	}
	return nil
}

// gcsServiceURL parses a service host: a URL, or host:port as
// STORAGE_EMULATOR_HOST is often written (then http://).
func gcsServiceURL(host string) (*url.URL, error) {
	raw := host
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("fileio: gcs service_host %q is not an http:// or https:// URL", host)
	}
	return u, nil
}

// The Iceberg property names of GCS settings, as pyiceberg and Iceberg's
// Java client spell them (Java's gcs.service.host too), and as a REST
// catalog vends them.
const (
	PropGCSProjectID        = "gcs.project-id"
	PropGCSOAuth2Token      = "gcs.oauth2.token"
	PropGCSServiceHost      = "gcs.service-host"
	PropGCSServiceHostJava  = "gcs.service.host"
	PropGCSNoAuth           = "gcs.no-auth"
	PropGCSTokenExpiresAtMs = "gcs.oauth2.token-expires-at"
)

// WithGCSProperties is base (nil: none) refined by the GCS settings among
// Iceberg properties, applied in order (later ones win); nil when neither
// base nor any property says anything, so that the environment decides.
// A token replaces an anonymous choice made with it or before it.
func WithGCSProperties(base *GCSOptions, propSets ...map[string]string) *GCSOptions {
	var out GCSOptions
	said := base != nil
	if base != nil {
		out = *base
	}
	for _, props := range propSets {
		for k, v := range props {
			switch k {
			case PropGCSProjectID:
				out.ProjectID = v
			case PropGCSServiceHost, PropGCSServiceHostJava:
				out.ServiceHost = v
			case PropGCSNoAuth:
				out.Anonymous, _ = strconv.ParseBool(v)
				if out.Anonymous {
					out.OAuth2Token = ""
				}
			default:
				continue
			}
			said = true
		}
		// After the loop, so a token beside gcs.no-auth in one set wins
		// whatever the map's order.
		if tok := props[PropGCSOAuth2Token]; tok != "" {
			out.OAuth2Token, out.Anonymous = tok, false
			said = true
		}
	}
	if !said {
		return nil
	}
	return &out
}
