package committest

import (
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
)

// The commit tests again, with tables, data and delete files on S3
// (versitygw): commits publish metadata with a conditional PUT and take no
// local lock, and everything is read back through the reader from S3.

func TestS3OperationsReadBack(t *testing.T) {
	srv := s3test.Start(t)
	testOperationsReadBack(t, s3Store(t, srv, srv.Options()))
}

func TestS3RowLevelDeletesReadBack(t *testing.T) {
	srv := s3test.Start(t)
	testRowLevelDeletesReadBack(t, s3Store(t, srv, srv.Options()))
}

func TestS3ExpireThenRead(t *testing.T) {
	srv := s3test.Start(t)
	testExpireThenRead(t, s3Store(t, srv, srv.Options()))
}

// contentionProps let every one of many writers racing on an object
// store win eventually: without a lock to queue behind, a writer can lose
// more than the default four retries in a row, and the default 100 ms
// first wait is long next to a commit on a fast store.
var contentionProps = map[string]string{
	table.PropCommitNumRetries: "100",
	table.PropCommitMinWaitMs:  "5",
	table.PropCommitMaxWaitMs:  "500",
}

// 8 processes × 25 appends to one S3 table: exactly 200 snapshots, every
// row read back once.
func TestS3ProcessesAppendConcurrently(t *testing.T) {
	procs, appends := 8, 25
	if testing.Short() {
		procs, appends = 4, 6
	}
	srv := s3test.Start(t)
	testProcessesAppend(t, s3Store(t, srv, srv.Options()), procs, appends, contentionProps)
}

func TestS3ProcessesReplaceOnePartition(t *testing.T) {
	srv := s3test.Start(t)
	testProcessesReplaceOnePartition(t, s3Store(t, srv, srv.Options()), 4, nil)
}
