package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg/table"
)

// floe stats on a table partitioned by v also writes and registers its
// partition statistics file (one row per value of v); --no-ndv writes
// only that, --no-partition-stats only the sketches.
func TestStatsPartitionStatistics(t *testing.T) {
	dir, loc := maintenanceTable(t)
	mustRun(t, "alter", loc, "add-partition-field", "v")
	mustRun(t, "append", loc, filepath.Join(dir, "part0.jsonl"))
	res := maintenanceOutput(t, mustRun(t, "stats", loc))
	ps, ok := res["partition_statistics"].(map[string]any)
	// The files written before the spec change are one row (spec 0), the
	// append's three files three more.
	if !ok || jsonInt(t, ps["partitions"]) != 4 || res["ndv"] == nil {
		t.Fatalf("stats: %v", res)
	}
	tbl, err := table.Open(context.Background(), loc, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Metadata.PartitionStatistics) != 1 || tbl.Metadata.PartitionStatistics[0].StatisticsPath != ps["statistics_path"] {
		t.Fatalf("registered %v, printed %v", tbl.Metadata.PartitionStatistics, ps)
	}
	res = maintenanceOutput(t, mustRun(t, "stats", loc, "--no-ndv"))
	if res["ndv"] != nil || res["partition_statistics"] == nil {
		t.Fatalf("--no-ndv: %v", res)
	}
	res = maintenanceOutput(t, mustRun(t, "stats", loc, "--no-partition-stats"))
	if res["ndv"] == nil || res["partition_statistics"] != nil {
		t.Fatalf("--no-partition-stats: %v", res)
	}
}
