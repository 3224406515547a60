package interop

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/floedb/floe/maintain"
)

// The maintenance planner (maintain.Maintain) on tables with everything
// to do: small files with position deletes or vectors and an equality
// delete, many manifests, snapshots past a 1 ms retention, an old orphan
// and statistics computed on an old snapshot. It compacts, regroups the
// manifests, expires, removes the orphan and computes statistics; then
// iceberg-go reads the rows, plans no delete file, sees one snapshot
// ahead of the statistics' and the statistics file for the current one,
// and its own orphan search finds nothing old; iceberg-go writes after
// it and floe reads.
func TestMaintainPlannerReadByIcebergGo(t *testing.T) {
	props := map[string]string{"history.expire.max-snapshot-age-ms": "1", "history.expire.min-snapshots-to-keep": "1"}
	onSources(t, sourceOptions{equality: true, props: props}, func(t *testing.T, m *maintTable) {
		ctx := context.Background()
		tbl := m.floe(t)
		if _, err := maintain.ComputeStatistics(ctx, tbl, maintain.StatisticsOptions{Columns: []string{"id", "s"}}); err != nil {
			t.Fatal(err)
		}
		tbl = m.floe(t)
		// A commit after the statistics: they are stale.
		m.goWritesAfter(t)
		tbl = m.floe(t)
		orphan := plantOrphan(t, tbl, "killed-write-orphan.parquet", 4*24*time.Hour)
		time.Sleep(5 * time.Millisecond) // past the 1 ms retention
		rep, err := maintain.Maintain(ctx, tbl, maintain.MaintainOptions{Health: maintain.HealthOptions{
			Rewrite: maintain.RewriteDataFilesOptions{MinInputFiles: 2}}})
		report, _ := json.Marshal(rep)
		if err != nil {
			t.Fatalf("maintain: %v\n%s", err, report)
		}
		var ran []string
		for _, a := range rep.Actions {
			if a.Error != "" {
				t.Fatalf("%s failed: %s", a.Action, a.Error)
			}
			ran = append(ran, a.Action)
		}
		for _, want := range []string{maintain.ActionRewriteDataFiles, maintain.ActionExpireSnapshots,
			maintain.ActionRemoveOrphanFiles, maintain.ActionComputeStatistics} {
			if !slices.Contains(ran, want) {
				t.Errorf("the planner ran %v, not %s\n%s", ran, want, report)
			}
		}
		if _, err := os.Stat(orphan); !os.IsNotExist(err) {
			t.Errorf("the old orphan is still there: %v", err)
		}
		m.assertRows(t, "after the planner's run")
		goTbl := m.goTable(t)
		if k := goPlanDeletes(t, goTbl); k != (goDeleteKinds{}) {
			t.Errorf("iceberg-go plans delete files after the planner's compaction: %+v", k)
		}
		current := goTbl.CurrentSnapshot().SnapshotID
		if n := len(goTbl.Metadata().Snapshots()); n != 1 {
			t.Errorf("iceberg-go sees %d snapshots after expiry, want 1", n)
		}
		found := false
		for f := range goTbl.Metadata().Statistics() {
			if f.SnapshotID == current {
				found = len(f.BlobMetadata) > 0
			}
		}
		if !found {
			t.Errorf("iceberg-go finds no statistics file with blobs for the current snapshot %d", current)
		}
		if found := goOrphans(t, goTbl, 3*24*time.Hour); len(found) != 0 {
			t.Errorf("iceberg-go finds old orphans the planner left: %v", found)
		}
		m.goWritesAfter(t)
	})
}
