package scan

import (
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/azuritetest"
	"github.com/floedb/floe/internal/s3test"
)

// The S3 fixture scenarios (s3_fixtures_test.go) on Azure (Azurite), the
// faults injected by s3test's FaultProxy, which speaks plain HTTP.

func reachAzure(srv *azuritetest.Server) reachStore {
	return func(o *table.Options, proxy string, attempts int) {
		az := srv.Options()
		if proxy != "" {
			az.BlobStorageAuthority, az.MaxAttempts = strings.TrimPrefix(proxy, "http://"), attempts
		}
		o.Azure = &az
	}
}

// Every fixture table, copied to an Azure container, reads exactly as from
// the local disk at every snapshot, directly and through 503s, cut bodies
// and delays.
func TestAzureFixturesReadAsLocally(t *testing.T) {
	srv := azuritetest.Start(t)
	testFixturesReadAsLocally(t, srv, reachAzure(srv), s3test.StartFaultProxy(t, "http://"+srv.Authority))
}

// When Azure keeps failing, a fixture scan fails naming the blob and the
// status; when every body is cut short, the client retries, then gives
// up: no scan passes a short read off as rows.
func TestAzureFixtureScansFailClearlyWhenAzureDoes(t *testing.T) {
	srv := azuritetest.Start(t)
	testFixtureScansFailClearly(t, srv, reachAzure(srv), s3test.StartFaultProxy(t, "http://"+srv.Authority), "abfs://", "503", false)
}

// FLOE_WAREHOUSE=abfs://container@account.dfs.core.windows.net/wh
// resolves a dataset name to a table there.
func TestAzureWarehouseDatasetNameReads(t *testing.T) {
	srv := azuritetest.Start(t)
	testWarehouseDatasetNameReads(t, srv, reachAzure(srv))
}
