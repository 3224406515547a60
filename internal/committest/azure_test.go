package committest

import (
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/azuritetest"
	"github.com/floedb/floe/internal/s3test"
	"github.com/google/uuid"
)

// The commit scenarios again, with tables, data and delete files on Azure
// Blob Storage (Azurite): commits publish metadata with a Put Blob under
// If-None-Match: * and take no local lock, and everything is read back
// through the reader from Azure. The fault scenarios run through s3test's
// FaultProxy, which speaks plain HTTP (a shared-key signature does not
// cover the host).

func azureStore(t testing.TB, srv *azuritetest.Server, opts fileio.AzureOptions) store {
	return store{opts: table.Options{Azure: &opts}, root: srv.Location("committest", uuid.NewString())}
}

// azureFaulty reaches srv through a proxy at url.
func azureFaulty(srv *azuritetest.Server, direct store) faultyStore {
	return func(url string, attempts int) store {
		o := srv.OptionsVia(strings.TrimPrefix(url, "http://"))
		o.MaxAttempts = attempts
		faulty := direct
		faulty.opts = table.Options{Azure: &o}
		return faulty
	}
}

func azureProxy(t *testing.T, srv *azuritetest.Server) *s3test.FaultProxy {
	return s3test.StartFaultProxy(t, "http://"+srv.Authority)
}

func TestAzureOperationsReadBack(t *testing.T) {
	srv := azuritetest.Start(t)
	testOperationsReadBack(t, azureStore(t, srv, srv.Options()))
}

func TestAzureRowLevelDeletesReadBack(t *testing.T) {
	srv := azuritetest.Start(t)
	testRowLevelDeletesReadBack(t, azureStore(t, srv, srv.Options()))
}

func TestAzureExpireThenRead(t *testing.T) {
	srv := azuritetest.Start(t)
	testExpireThenRead(t, azureStore(t, srv, srv.Options()))
}

// 8 processes × 25 appends to one Azure table: exactly 200 snapshots,
// every row read back once.
func TestAzureProcessesAppendConcurrently(t *testing.T) {
	procs, appends := 8, 25
	if testing.Short() {
		procs, appends = 4, 6
	}
	srv := azuritetest.Start(t)
	testProcessesAppend(t, azureStore(t, srv, srv.Options()), procs, appends, contentionProps)
}

func TestAzureProcessesReplaceOnePartition(t *testing.T) {
	srv := azuritetest.Start(t)
	testProcessesReplaceOnePartition(t, azureStore(t, srv, srv.Options()), 4, nil)
}

func TestAzureCommitsSurviveThrottlingTruncationAndDelay(t *testing.T) {
	srv := azuritetest.Start(t)
	direct := azureStore(t, srv, srv.Options())
	testCommitsSurviveThrottlingTruncationAndDelay(t, direct, azureFaulty(srv, direct), azureProxy(t, srv))
}

func TestAzureConcurrentCommitsThroughFaults(t *testing.T) {
	srv := azuritetest.Start(t)
	direct := azureStore(t, srv, srv.Options())
	testConcurrentCommitsThroughFaults(t, direct, azureFaulty(srv, direct), azureProxy(t, srv))
}

func TestAzureCommitBrokenAtEveryRequestLeavesAConsistentTable(t *testing.T) {
	srv := azuritetest.Start(t)
	direct := azureStore(t, srv, srv.Options())
	testCommitBrokenAtEveryRequestLeavesAConsistentTable(t, direct, azureFaulty(srv, direct), azureProxy(t, srv))
}
