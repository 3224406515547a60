package fileio

import (
	"net/http"

	"github.com/floedb/floe/errkind"
)

// refusedCredentials reports whether an object store's HTTP status says
// it refused the credentials (401) or what they allow (403): one rule for
// S3, GCS and Azure, whose errors are then errkind.Unauthorized (the C
// ABI's FLOE_UNAUTHORIZED) rather than an I/O failure to retry or report
// as the disk's.
func refusedCredentials(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// unauthorized is the error of a request the store refused so.
func unauthorized(location string, cause error) error {
	return errkind.Errorf(errkind.Unauthorized, "fileio: %s: %w", location, cause)
}
