package maintain

import (
	"context"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
)

// Statistics computed once, on a snapshot a later commit superseded: the
// run's expiry drops them with their snapshot, and the run computes them
// for the current one, as its dry run says it will, rather than leaving
// a table that kept statistics without any.
func TestMaintainKeepsStatisticsItsExpiryDrops(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 600, 50)
	if _, err := ComputeStatistics(ctx, tbl, StatisticsOptions{Columns: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(30)))
	if err := tbl.SetProperties(ctx, map[string]string{table.PropMaxSnapshotAgeMs: "1"}, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // past the 1 ms retention
	opts := MaintainOptions{Health: HealthOptions{SkipOrphans: true}}
	actions := func(rep MaintainReport) map[string]bool {
		out := map[string]bool{}
		for _, a := range rep.Actions {
			out[a.Action] = true
		}
		return out
	}
	dryOpts := opts
	dryOpts.DryRun = true
	dry, err := Maintain(ctx, tbl, dryOpts)
	if err != nil || !actions(dry)[ActionExpireSnapshots] || !actions(dry)[ActionComputeStatistics] {
		t.Fatalf("dry run: %v, %+v", err, dry.Actions)
	}
	rep, err := Maintain(ctx, tbl, opts)
	if err != nil || !actions(rep)[ActionExpireSnapshots] || !actions(rep)[ActionComputeStatistics] {
		t.Fatalf("run: %v, %+v", err, rep.Actions)
	}
	h, err := CheckHealth(ctx, reopen(t, tbl), HealthOptions{SkipOrphans: true})
	if err != nil || h.StatisticsFiles != 1 || !h.StatisticsCurrent {
		t.Fatalf("after the run: %v, %d statistics files, current %v", err, h.StatisticsFiles, h.StatisticsCurrent)
	}
}
