package maintenance

import (
	"context"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

// AfterCommit keeps the statistics of a table with
// write.statistics.on-commit=true current after a commit through one of
// floe's interfaces (writer/ops cannot call maintain, which imports it).
// The rows are committed already: an error leaves the statistics one
// snapshot behind, which the next commit or compute_statistics catches
// up, so callers report it but do not fail the commit. A snapshot that
// has its file already (a call that committed nothing) is left as it is.
func AfterCommit(ctx context.Context, t *table.Table) error {
	md := t.Metadata
	if md.Properties[maintain.PropStatisticsOnCommit] != "true" || md.CurrentSnapshotID == nil {
		return nil
	}
	for _, f := range md.Statistics {
		if f.SnapshotID == *md.CurrentSnapshotID {
			return nil
		}
	}
	_, err := maintain.StatisticsOnCommit(ctx, t)
	return err
}
