package scan

import (
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/gcstest"
	"github.com/floedb/floe/internal/s3test"
)

// The S3 fixture scenarios (s3_fixtures_test.go) on GCS (fake-gcs-server),
// the faults injected by s3test's FaultProxy, which speaks plain HTTP.

func reachGCS(srv *gcstest.Server) reachStore {
	return func(o *table.Options, proxy string, attempts int) {
		gcs := srv.Options()
		if proxy != "" {
			gcs.ServiceHost, gcs.MaxAttempts = proxy, attempts
		}
		o.GCS = &gcs
	}
}

// Every fixture table, copied to GCS, reads exactly as from the local
// disk at every snapshot, directly and through 503s, cut bodies and
// delays.
func TestGCSFixturesReadAsLocally(t *testing.T) {
	srv := gcstest.Start(t)
	testFixturesReadAsLocally(t, srv, reachGCS(srv), s3test.StartFaultProxy(t, srv.Endpoint))
}

// When GCS keeps failing, a fixture scan fails naming the object and the
// status; when every body is cut short, the library resumes each cut read
// of an object from the byte where it broke off (pinned to the object's
// generation), so the scan gives exactly a clean scan's rows, unless it
// needed a metadata answer (an Open's size), which cannot be resumed: then
// it fails naming the object.
func TestGCSFixtureScansFailClearlyWhenGCSDoes(t *testing.T) {
	srv := gcstest.Start(t)
	testFixtureScansFailClearly(t, srv, reachGCS(srv), s3test.StartFaultProxy(t, srv.Endpoint), "gs://", "503", true)
}

// FLOE_WAREHOUSE=gs://bucket/wh resolves a dataset name to a table there.
func TestGCSWarehouseDatasetNameReads(t *testing.T) {
	srv := gcstest.Start(t)
	testWarehouseDatasetNameReads(t, srv, reachGCS(srv))
}
