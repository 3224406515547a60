package main

import (
	"context"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

// statisticsOnCommit keeps the statistics of a table with
// write.statistics.on-commit=true current after a commit through the C
// API (writer/ops cannot call maintain, which imports it). The rows are
// committed already: a failure here leaves the statistics one snapshot
// behind, which the next commit or compute_statistics catches up, so it
// does not fail the call. A snapshot that has its file already (a commit
// that committed nothing) is left as it is.
func statisticsOnCommit(ctx context.Context, t *table.Table) {
	md := t.Metadata
	if md.Properties[maintain.PropStatisticsOnCommit] != "true" || md.CurrentSnapshotID == nil {
		return
	}
	for _, f := range md.Statistics {
		if f.SnapshotID == *md.CurrentSnapshotID {
			return
		}
	}
	_, _ = maintain.StatisticsOnCommit(ctx, t)
}
