package committest

import (
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/gcstest"
	"github.com/floedb/floe/internal/s3test"
	"github.com/google/uuid"
)

// The commit scenarios again, with tables, data and delete files on GCS
// (fake-gcs-server): commits publish metadata with ifGenerationMatch=0 and
// take no local lock, and everything is read back through the reader from
// GCS. The fault scenarios run through s3test's FaultProxy, which speaks
// plain HTTP.

func gcsStore(t testing.TB, srv *gcstest.Server, opts fileio.GCSOptions) store {
	return store{opts: table.Options{GCS: &opts}, root: srv.Location("committest", uuid.NewString())}
}

// gcsFaulty reaches srv through a proxy at url.
func gcsFaulty(srv *gcstest.Server, direct store) faultyStore {
	return func(url string, attempts int) store {
		o := srv.OptionsVia(url)
		o.MaxAttempts = attempts
		faulty := direct
		faulty.opts = table.Options{GCS: &o}
		return faulty
	}
}

func TestGCSOperationsReadBack(t *testing.T) {
	srv := gcstest.Start(t)
	testOperationsReadBack(t, gcsStore(t, srv, srv.Options()))
}

func TestGCSRowLevelDeletesReadBack(t *testing.T) {
	srv := gcstest.Start(t)
	testRowLevelDeletesReadBack(t, gcsStore(t, srv, srv.Options()))
}

func TestGCSExpireThenRead(t *testing.T) {
	srv := gcstest.Start(t)
	testExpireThenRead(t, gcsStore(t, srv, srv.Options()))
}

// 8 processes × 25 appends to one GCS table: exactly 200 snapshots, every
// row read back once.
func TestGCSProcessesAppendConcurrently(t *testing.T) {
	procs, appends := 8, 25
	if testing.Short() {
		procs, appends = 4, 6
	}
	srv := gcstest.Start(t)
	testProcessesAppend(t, gcsStore(t, srv, srv.Options()), procs, appends, contentionProps)
}

func TestGCSProcessesReplaceOnePartition(t *testing.T) {
	srv := gcstest.Start(t)
	testProcessesReplaceOnePartition(t, gcsStore(t, srv, srv.Options()), 4, nil)
}

func TestGCSCommitsSurviveThrottlingTruncationAndDelay(t *testing.T) {
	srv := gcstest.Start(t)
	direct := gcsStore(t, srv, srv.Options())
	testCommitsSurviveThrottlingTruncationAndDelay(t, direct, gcsFaulty(srv, direct), s3test.StartFaultProxy(t, srv.Endpoint))
}

func TestGCSConcurrentCommitsThroughFaults(t *testing.T) {
	srv := gcstest.Start(t)
	direct := gcsStore(t, srv, srv.Options())
	testConcurrentCommitsThroughFaults(t, direct, gcsFaulty(srv, direct), s3test.StartFaultProxy(t, srv.Endpoint))
}

func TestGCSCommitBrokenAtEveryRequestLeavesAConsistentTable(t *testing.T) {
	srv := gcstest.Start(t)
	direct := gcsStore(t, srv, srv.Options())
	testCommitBrokenAtEveryRequestLeavesAConsistentTable(t, direct, gcsFaulty(srv, direct), s3test.StartFaultProxy(t, srv.Endpoint))
}
