package main

import (
	"strings"
	"testing"

	"github.com/floedb/floe/benchmarks/lineitem"
)

// TestFilterSection runs the filter section once over a small table: floe
// must return exactly the rows the generator says match, every run must
// have been checked against that answer, floe's reads must have been
// counted, and the clustered scan must cover about 1 % of the rows.
func TestFilterSection(t *testing.T) {
	p := lineitem.Params{Rows: 40_000, Files: 2, RowGroupsPerFile: 4, Seed: 11}
	tbl, err := lineitem.Generate(t.TempDir(), p, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := filterScenarios(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios[1:] {
		if share := float64(s.Expected.Rows) / float64(p.Rows); share < 0.005 || share > 0.02 {
			t.Errorf("%s: %d rows match, %.2f%% of the table; want about 1%%", s.Name, s.Expected.Rows, 100*share)
		}
	}
	res, err := measureFilters(tbl, scenarios, 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 7 {
		t.Fatalf("%d runs, want 7 (floe unfiltered, 3 peers × 2 filters)", len(res.Runs))
	}
	for _, r := range res.Runs {
		var want lineitem.Expected
		for _, s := range scenarios {
			if s.Name == r.Scenario {
				want = s.Expected
			}
		}
		correct := r.Result.Rows == want.Rows && r.Result.SumPartKey == want.SumPartKey
		switch {
		case r.Peer == "floe" && (r.Status != "ok" || !correct):
			t.Errorf("floe on %s: %s, %v, want %+v", r.Scenario, r.Status, r.Result, want)
		case r.Status == "ok" && !correct, r.Status == "WRONG" && correct:
			t.Errorf("%s on %s: status %s for %v, want %+v", r.Peer, r.Scenario, r.Status, r.Result, want)
		case r.Peer == "duckdb" && r.Status != "ok":
			t.Errorf("duckdb on %s: %s", r.Scenario, r.Status)
		}
		if r.Peer != "floe" {
			continue
		}
		if r.BytesRead == nil || *r.DataBytesRead <= 0 || *r.BytesRead > res.TableBytes+int64(len(tbl.DataFiles))*(1<<20) {
			t.Errorf("floe on %s: bytes read %v of the table's %d", r.Scenario, r.BytesRead, res.TableBytes)
		}
		if r.FloeMetrics == nil || r.FloeMetrics.RowsReturned != want.Rows {
			t.Errorf("floe on %s: metrics %+v, want %d rows returned", r.Scenario, r.FloeMetrics, want.Rows)
		}
	}
	// An unfiltered scan reads every data page.
	if full := res.run("full", "floe"); full.DataBytesRead != nil && *full.DataBytesRead < res.DataBytes*9/10 {
		t.Errorf("the unfiltered scan read %d of %d data bytes", *full.DataBytesRead, res.DataBytes)
	}
	if len(res.Targets) != 2 {
		t.Errorf("targets: %q", res.Targets)
	}
	var out strings.Builder
	res.print(&out)
	t.Log(out.String())
	for _, want := range []string{"clustered", "unclustered", "iceberg-go", "duckdb", "filter targets"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not mention %q:\n%s", want, out.String())
		}
	}
}
