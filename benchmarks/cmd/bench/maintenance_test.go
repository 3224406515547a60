package main

import (
	"context"
	"strings"
	"testing"
)

// TestMaintenanceSection runs the maintenance section on small data: every
// compaction (floe's, iceberg-go's, DuckDB's COPY) of floe's and DuckDB's
// small files must keep every row in a file or two, both upserts (keys
// the table's last ids, and keys spread over every file) must update half
// their keys and insert the rest, the scans must read the rows the
// table holds, and every ratio and goal must be worked out.
func TestMaintenanceSection(t *testing.T) {
	p := maintParams{Files: 12, RowsPerFile: 2000, UpsertBase: 30_000, UpsertKeys: 4000}
	res, err := measureMaintenance(context.Background(), t.TempDir(), p, 2, "", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	// Six compactions, the append, the two upserts (recent and spread
	// keys) and the three scans.
	if len(res.Runs) != 12 {
		t.Fatalf("%d runs, want 12", len(res.Runs))
	}
	for _, r := range res.Runs {
		if r.Status != "ok" || r.WallMs <= 0 || r.CPUMs <= 0 || r.PeakRSSMB <= 0 {
			t.Errorf("%s on %s: %+v", r.Op, r.Files, r)
		}
		if r.InBytes > 0 && (r.OutFiles != 1 || r.MBPerCPUSecond <= 0) {
			t.Errorf("%s on %s: %d files after, %.1f MB/s per core", r.Op, r.Files, r.OutFiles, r.MBPerCPUSecond)
		}
	}
	if len(res.Ratios) != 8 || len(res.Targets) != 4 {
		t.Errorf("ratios %v, goals %v", res.Ratios, res.Targets)
	}
	var out strings.Builder
	res.print(&out)
	if !strings.Contains(out.String(), "load average") || !strings.Contains(out.String(), "upsert/append wall") ||
		!strings.Contains(out.String(), "upsert (keys spread)/append wall") {
		t.Errorf("report:\n%s", out.String())
	}
}
