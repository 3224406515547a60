package committest

import (
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
)

// The fault scenarios (faults_scenarios_test.go) on S3 (versitygw).

// s3Faulty reaches srv through a proxy at url.
func s3Faulty(t *testing.T, srv *s3test.Server, direct store) faultyStore {
	return func(url string, attempts int) store {
		o := srv.Options()
		o.Endpoint = url
		o.MaxAttempts = attempts
		faulty := direct
		faulty.opts = table.Options{S3: &o}
		return faulty
	}
}

func TestS3CommitsSurviveThrottlingTruncationAndDelay(t *testing.T) {
	srv := s3test.Start(t)
	direct := s3Store(t, srv, srv.Options())
	testCommitsSurviveThrottlingTruncationAndDelay(t, direct, s3Faulty(t, srv, direct), s3test.StartFaultProxy(t, srv.Endpoint))
}

func TestS3ConcurrentCommitsThroughFaults(t *testing.T) {
	srv := s3test.Start(t)
	direct := s3Store(t, srv, srv.Options())
	testConcurrentCommitsThroughFaults(t, direct, s3Faulty(t, srv, direct), s3test.StartFaultProxy(t, srv.Endpoint))
}

// A commit is broken at each of its requests in turn (see
// testCommitBrokenAtEveryRequestLeavesAConsistentTable).
func TestS3CommitBrokenAtEveryRequestLeavesAConsistentTable(t *testing.T) {
	srv := s3test.Start(t)
	direct := s3Store(t, srv, srv.Options())
	testCommitBrokenAtEveryRequestLeavesAConsistentTable(t, direct, s3Faulty(t, srv, direct), s3test.StartFaultProxy(t, srv.Endpoint))
}
