package maintain

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// maintainActions runs the planner (orphans skipped) and returns the
// report and the actions it named.
func maintainActions(t *testing.T, tbl *table.Table, dryRun bool) (MaintainReport, []string) {
	t.Helper()
	rep, err := Maintain(context.Background(), tbl, MaintainOptions{DryRun: dryRun, Health: HealthOptions{SkipOrphans: true}})
	if err != nil {
		t.Fatalf("maintain: %v\n%+v", err, rep)
	}
	var names []string
	for _, a := range rep.Actions {
		names = append(names, a.Action)
	}
	return rep, names
}

// statisticsStep is the compute_statistics action of a run's report, as
// its JSON.
func statisticsStep(t *testing.T, rep MaintainReport) map[string]any {
	t.Helper()
	for _, a := range rep.Actions {
		if a.Action == ActionComputeStatistics {
			data, err := json.Marshal(a.Result)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no compute_statistics in %+v", rep.Actions)
	return nil
}

func partitionStatsOf(tbl *table.Table, snapshotID int64) bool {
	for _, f := range tbl.Metadata.PartitionStatistics {
		if f.SnapshotID == snapshotID {
			return true
		}
	}
	return false
}

// A partitioned floe table whose current snapshot has column sketches
// but no partition statistics file: the table keeps statistics, so the
// health names the partition statistics stale, the planner computes that
// file alone (the sketches stay as they were) and a second run finds
// nothing. Without sketches or on-commit the table keeps none and
// nothing is stale.
func TestHealthPartitionStatisticsStale(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 40, 40)
	h, err := CheckHealth(ctx, tbl, HealthOptions{SkipOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if h.StaleStatistics != nil || h.PartitionStatisticsCurrent {
		t.Fatalf("a table keeping no statistics: stale %v", h.StaleStatistics)
	}
	if _, names := maintainActions(t, tbl, true); slices.Contains(names, ActionComputeStatistics) {
		t.Fatalf("planned %v on a table keeping no statistics", names)
	}

	sketches, err := ComputeStatistics(ctx, tbl, StatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err = CheckHealth(ctx, tbl, HealthOptions{SkipOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if !h.StatisticsCurrent || h.PartitionStatisticsCurrent || h.PartitionStatisticsFiles != 0 || !reflect.DeepEqual(h.StaleStatistics, []string{StalePartitionStatistics}) {
		t.Fatalf("health after the sketches alone: %+v", h)
	}
	if _, names := maintainActions(t, tbl, true); !reflect.DeepEqual(names, []string{ActionComputeStatistics}) {
		t.Fatalf("dry run planned %v", names)
	}
	rep, names := maintainActions(t, tbl, false)
	if !reflect.DeepEqual(names, []string{ActionComputeStatistics}) {
		t.Fatalf("ran %v", names)
	}
	step := statisticsStep(t, rep)
	part, _ := step["partition-statistics"].(map[string]any)
	if _, sketched := step["ndv"]; sketched || part == nil || part["partitions"] != float64(3) {
		t.Fatalf("compute_statistics did %v, want the partition statistics file of 3 partitions (b true, false, null) alone", step)
	}
	fresh := reopen(t, tbl)
	current := *fresh.Metadata.CurrentSnapshotID
	if !partitionStatsOf(fresh, current) || len(fresh.Metadata.Statistics) != 1 || fresh.Metadata.Statistics[0].StatisticsPath != sketches.Path {
		t.Fatalf("after the run: statistics %+v, partition statistics %+v", fresh.Metadata.Statistics, fresh.Metadata.PartitionStatistics)
	}
	if h, err := CheckHealth(ctx, fresh, HealthOptions{SkipOrphans: true}); err != nil || h.StaleStatistics != nil || !h.PartitionStatisticsCurrent {
		t.Fatalf("health after the run: %v %+v", err, h)
	}
	if _, names := maintainActions(t, fresh, false); len(names) != 0 {
		t.Fatalf("second run: %v", names)
	}
}

// A copy of Impala's partitioned v2 table with position deletes, set to
// keep statistics on commit: both its sketches and its partition
// statistics are stale; the planner computes both (whatever else it
// runs first), the partition file counting the fixture's partitions, and
// a second run finds nothing.
func TestMaintainPartitionStatisticsFixture(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	if err := tbl.SetProperties(ctx, map[string]string{PropStatisticsOnCommit: "true"}, nil); err != nil {
		t.Fatal(err)
	}
	h, err := CheckHealth(ctx, tbl, HealthOptions{SkipOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.StaleStatistics, []string{StaleNDV, StalePartitionStatistics}) {
		t.Fatalf("health: stale %v", h.StaleStatistics)
	}
	before := tableRows(t, tbl)
	rep, names := maintainActions(t, tbl, false)
	if names[len(names)-1] != ActionComputeStatistics {
		t.Fatalf("ran %v", names)
	}
	step := statisticsStep(t, rep)
	if part, _ := step["partition-statistics"].(map[string]any); step["ndv"] == nil || part == nil || part["partitions"].(float64) < 2 {
		t.Fatalf("compute_statistics did %v", step)
	}
	fresh := reopen(t, tbl)
	if !partitionStatsOf(fresh, *fresh.Metadata.CurrentSnapshotID) {
		t.Fatalf("no partition statistics for the current snapshot: %+v", fresh.Metadata.PartitionStatistics)
	}
	if _, names := maintainActions(t, fresh, false); len(names) != 0 {
		t.Fatalf("second run: %v", names)
	}
	rowstest.CompareRows(t, "after maintenance", fresh.Metadata.CurrentSchema(), before, tableRows(t, fresh))
}
