package maintain

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// A table an ingest pipeline left unkempt: 36 small files in 12 small
// manifests, position deletes, old snapshots past a short retention, a
// stray file older than three days, and statistics kept on commit but
// not current. The planner's dry run names every action and changes
// nothing; the run does them in order and leaves a healthy table with the
// same rows.
func TestMaintainPlansAndRunsInOrder(t *testing.T) {
	ctx := context.Background()
	tbl, _ := smallFilesTable(t, 2, 600, 50)
	deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(30)))
	if err := tbl.SetProperties(ctx, map[string]string{
		table.PropMaxSnapshotAgeMs: "1", PropStatisticsOnCommit: "true",
	}, nil); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(tbl.Metadata.Location, "data", "left-by-a-killed-job.parquet")
	if err := os.WriteFile(orphan, []byte("PAR1 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-4 * 24 * time.Hour)
	if err := os.Chtimes(orphan, old, old); err != nil {
		t.Fatal(err)
	}
	before := tableRows(t, tbl)
	time.Sleep(5 * time.Millisecond) // past the 1 ms retention

	dry, err := Maintain(ctx, tbl, MaintainOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var planned []string
	for _, a := range dry.Actions {
		planned = append(planned, a.Action)
		if a.Result != nil || a.Reason == "" {
			t.Fatalf("dry run action %+v", a)
		}
	}
	want := []string{ActionRewriteDataFiles, ActionRewriteManifests, ActionExpireSnapshots, ActionRemoveOrphanFiles, ActionComputeStatistics}
	if !reflect.DeepEqual(planned, want) {
		t.Fatalf("dry run planned %v, want %v (health %+v)", planned, want, dry.Health)
	}
	h := dry.Health
	if h.SmallDataFiles < 36 || h.PositionDeleteFiles == 0 || h.Manifests < 12 || h.OrphanFiles != 1 || h.StatisticsCurrent {
		t.Fatalf("health %+v", h)
	}
	if fresh := reopen(t, tbl); len(fresh.Metadata.Snapshots) != h.Snapshots {
		t.Fatalf("the dry run changed the table: %d snapshots, %d before", len(fresh.Metadata.Snapshots), h.Snapshots)
	}
	if _, err := os.Stat(orphan); err != nil {
		t.Fatalf("the dry run removed the orphan: %v", err)
	}

	rep, err := Maintain(ctx, tbl, MaintainOptions{})
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	var ran []string
	for _, a := range rep.Actions {
		ran = append(ran, a.Action)
		if a.Error != "" || a.Result == nil {
			t.Fatalf("action %+v", a)
		}
	}
	// Compaction applies and drops the deletes, so nothing dangles
	// after it; every other action the dry run named runs.
	if !reflect.DeepEqual(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("the orphan is still there: %v", err)
	}
	fresh := reopen(t, tbl)
	after, err := CheckHealth(ctx, fresh, HealthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.CompactionGroups != 0 || after.MergeableManifests != 0 || after.ExpirableSnapshots != 0 || after.OrphanFiles != 0 ||
		!after.StatisticsCurrent || after.PositionDeleteFiles != 0 || after.DanglingDeleteFiles != 0 || after.DataFiles >= 36 {
		t.Fatalf("after maintenance: %+v", after)
	}
	rowstest.CompareRows(t, "after maintenance", fresh.Metadata.CurrentSchema(), before, tableRows(t, fresh))
	// A healthy table needs nothing.
	again, err := Maintain(ctx, fresh, MaintainOptions{})
	if err != nil || len(again.Actions) != 0 {
		t.Fatalf("second run: %v, %+v", err, again.Actions)
	}
}
