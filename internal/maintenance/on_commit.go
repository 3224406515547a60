package maintenance

import (
	"context"
	"errors"
	"slices"

	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

// AfterCommit keeps the statistics of a table with
// write.statistics.on-commit=true current after a commit through one of
// floe's interfaces (writer/ops cannot call maintain, which imports it):
// the column sketches (maintain.StatisticsOnCommit) and, on a
// partitioned table, the partition statistics file
// (maintain.PartitionStatisticsOnCommit, brought forward from the
// previous snapshot's file with the new snapshot's manifests). The rows
// are committed already: an error leaves the statistics one snapshot
// behind, which the next commit or compute_statistics catches up, so
// callers report it but do not fail the commit. A file the current
// snapshot has already (a call that committed nothing) is left as it is.
func AfterCommit(ctx context.Context, t *table.Table) error {
	md := t.Metadata
	if md.Properties[maintain.PropStatisticsOnCommit] != "true" || md.CurrentSnapshotID == nil {
		return nil
	}
	current := *md.CurrentSnapshotID
	var errs []error
	if !slices.ContainsFunc(md.Statistics, func(f metadata.StatisticsFile) bool { return f.SnapshotID == current }) {
		if _, err := maintain.StatisticsOnCommit(ctx, t); err != nil {
			errs = append(errs, err)
		}
	}
	if !slices.ContainsFunc(t.Metadata.PartitionStatistics, func(f metadata.PartitionStatisticsFile) bool { return f.SnapshotID == current }) {
		if _, err := maintain.PartitionStatisticsOnCommit(ctx, t); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
