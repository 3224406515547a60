package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// A partitioned table whose current snapshot has column sketches
// (floe stats --no-partition-stats) but no partition statistics file:
// floe inspect health names them stale, floe maintain computes them, and
// then health finds nothing stale and maintain nothing to do.
func TestMaintainComputesStalePartitionStatistics(t *testing.T) {
	dir, loc := maintenanceTable(t)
	mustRun(t, "alter", loc, "add-partition-field", "v")
	mustRun(t, "append", loc, filepath.Join(dir, "part0.jsonl"))
	// What the planner would do besides, so only the statistics are left.
	mustRun(t, "maintain", loc, "--skip-orphans")
	mustRun(t, "stats", loc, "--no-partition-stats")
	health := maintenanceOutput(t, mustRun(t, "inspect", loc, "health", "--skip-orphans"))
	if health["partitioned"] != true || health["partition_statistics_current"] != false || fmt.Sprint(health["stale_statistics"]) != "[partition_statistics]" {
		t.Fatalf("health: %v", health)
	}
	run := maintenanceOutput(t, mustRun(t, "maintain", loc, "--skip-orphans"))
	actions := run["actions"].([]any)
	if len(actions) != 1 {
		t.Fatalf("maintain ran %v", actions)
	}
	a := actions[0].(map[string]any)
	if result, _ := a["result"].(map[string]any); a["action"] != "compute_statistics" || result["partition-statistics"] == nil || result["ndv"] != nil {
		t.Fatalf("maintain: %v", a)
	}
	health = maintenanceOutput(t, mustRun(t, "inspect", loc, "health", "--skip-orphans"))
	if health["partition_statistics_current"] != true || health["stale_statistics"] != nil {
		t.Fatalf("health after maintain: %v", health)
	}
	if again := maintenanceOutput(t, mustRun(t, "maintain", loc, "--skip-orphans")); len(again["actions"].([]any)) != 0 {
		t.Fatalf("second run: %v", again["actions"])
	}
}
