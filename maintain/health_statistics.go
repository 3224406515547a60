package maintain

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// The statistics a current snapshot can lack (Health.StaleStatistics):
// the column sketches (a Puffin statistics file) and, on a partitioned
// table, the partition statistics file.
const (
	StaleNDV                 = "ndv"
	StalePartitionStatistics = "partition_statistics"
)

// keepsStatistics: the table has a statistics file of some snapshot or
// asks for them on commit (write.statistics.on-commit). A table that
// never had sketches is left alone, as a full sketch reads every row.
// Keeping statistics means what compute_statistics and AfterCommit write
// by default: the sketches, and on a partitioned table its partition
// statistics file too.
func (h *Health) keepsStatistics() bool { return h.StatisticsFiles > 0 || h.StatisticsOnCommitSet }

// missingStatistics are the statistics the current snapshot lacks.
func (h *Health) missingStatistics() []string {
	if h.SnapshotID == 0 {
		return nil
	}
	var missing []string
	if !h.StatisticsCurrent {
		missing = append(missing, StaleNDV)
	}
	if h.Partitioned && !h.PartitionStatisticsCurrent {
		missing = append(missing, StalePartitionStatistics)
	}
	return missing
}

// staleStatistics are the statistics the current snapshot lacks although
// the table keeps statistics: what the health reports and the planner's
// compute_statistics step computes.
func (h *Health) staleStatistics() []string {
	if !h.keepsStatistics() {
		return nil
	}
	return h.missingStatistics()
}

// statisticsHealth fills the health's statistics fields from the
// table's metadata.
func statisticsHealth(h *Health, md *metadata.Metadata) {
	h.StatisticsFiles = len(md.Statistics)
	h.PartitionStatisticsFiles = len(md.PartitionStatistics)
	h.StatisticsOnCommitSet = md.Properties[PropStatisticsOnCommit] == "true"
	h.Partitioned = IsPartitioned(md)
	if snap := md.CurrentSnapshot(); snap != nil {
		h.SnapshotID = snap.SnapshotID
		h.StatisticsCurrent = slices.ContainsFunc(md.Statistics, func(f metadata.StatisticsFile) bool { return f.SnapshotID == snap.SnapshotID })
		h.PartitionStatisticsCurrent = slices.ContainsFunc(md.PartitionStatistics, func(f metadata.PartitionStatisticsFile) bool { return f.SnapshotID == snap.SnapshotID })
	}
	h.StaleStatistics = h.staleStatistics()
}

// statisticsStepResult is the planner's compute_statistics result: the
// sketches' (StatisticsResult's fields, when they were stale) and the
// partition statistics file's (when it was).
type statisticsStepResult struct {
	*StatisticsResult
	PartitionStatistics *partitionStatisticsStepResult `json:"partition-statistics,omitempty"`
}

type partitionStatisticsStepResult struct {
	SnapshotID int64  `json:"snapshot-id"`
	Path       string `json:"statistics-path"`
	Partitions int    `json:"partitions"`
	MergedFrom int64  `json:"merged-from-snapshot-id,omitempty"`
}

// statisticsNeed judges by staleStatistics, not the health's field: the
// planner may have changed what the health holds (see Maintain).
func statisticsNeed(h *Health, _ *MaintainOptions) (string, bool) {
	stale := h.staleStatistics()
	return fmt.Sprintf("the current snapshot lacks statistics (%s), and the table keeps statistics", strings.Join(stale, ", ")), len(stale) > 0
}

// computeStaleStatistics computes what the current snapshot lacks, each
// from the nearest earlier file when it can. The need said the table
// keeps statistics, even when this run's expiry dropped every file.
func computeStaleStatistics(ctx context.Context, t *table.Table, _ *MaintainOptions) (any, error) {
	var h Health
	statisticsHealth(&h, t.Metadata)
	stale := h.missingStatistics()
	var out statisticsStepResult
	if slices.Contains(stale, StaleNDV) {
		res, err := UpdateStatistics(ctx, t, StatisticsOptions{})
		if err != nil {
			return out, err
		}
		out.StatisticsResult = &res
	}
	if slices.Contains(stale, StalePartitionStatistics) {
		res, err := UpdatePartitionStatistics(ctx, t, PartitionStatisticsOptions{})
		if err != nil {
			return out, err
		}
		out.PartitionStatistics = &partitionStatisticsStepResult{SnapshotID: res.SnapshotID, Path: res.Path, Partitions: res.Partitions, MergedFrom: res.MergedFrom}
	}
	return out, nil
}
