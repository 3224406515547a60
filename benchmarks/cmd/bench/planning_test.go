package main

import (
	"context"
	"strings"
	"testing"
)

// TestPlanningSection runs the planning section on a small table: every
// measurement must plan the files the generator's layout says (floe and
// iceberg-go alike, full and filtered), the filter must prune manifests
// and files so that it plans a small share, Count must answer although no
// data file exists, floe's metadata tables (files, entries, partitions)
// must return the rows iceberg-go's do, and a table already there must
// be reused.
func TestPlanningSection(t *testing.T) {
	dir := t.TempDir()
	p := planningParams{Manifests: 20, FilesPerManifest: 100}
	res, err := measurePlanning(context.Background(), dir, p, 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	wantFiltered, _ := expectedFiltered(p, filterFor(p))
	if wantFiltered == 0 || wantFiltered*20 > p.Manifests*p.FilesPerManifest {
		t.Fatalf("the filter plans %d of %d files; want a small, non-empty share", wantFiltered, p.Manifests*p.FilesPerManifest)
	}
	if want := 2*len(planningThreads)*len(planningOps) + len(planningThreads) + 3 + 2*len(inspectPairs); len(res.Runs) != want {
		t.Fatalf("%d runs, want %d", len(res.Runs), want)
	}
	for _, r := range res.Runs {
		if r.Op == opFloor {
			if r.Files != 0 || r.PeakRSSMB <= 0 {
				t.Errorf("the floor planned %d files in %.1f MiB", r.Files, r.PeakRSSMB)
			}
			continue
		}
		if r.Status != "ok" {
			t.Errorf("%s %s at %d threads on the %s table: %s", r.Op, r.Scan, r.Threads, r.TableKey, r.Status)
		}
		want := int64(p.Manifests * p.FilesPerManifest)
		switch {
		case isInspectOp(r.Op):
			want = inspectRows(r.Op, p)
		case r.TableKey == "tenth":
			want /= 10
		case r.Scan == "filtered":
			want = int64(wantFiltered)
		}
		if r.Op != opFloeCount && r.Files != want {
			t.Errorf("%s %s at %d threads on the %s table: %d files, want %d", r.Op, r.Scan, r.Threads, r.TableKey, r.Files, want)
		}
		if r.WallMs <= 0 || r.PeakRSSMB <= 0 {
			t.Errorf("%s %s: not measured: %+v", r.Op, r.Scan, r)
		}
	}
	// floe and iceberg-go planned the same records, not only as many files.
	for _, threads := range planningThreads {
		for _, s := range []string{"full", "filtered"} {
			f, g := res.find(opFloeScan, s, threads, "full"), res.find(opIcebergPlan, s, threads, "full")
			if f.Records != g.Records || f.Records == 0 {
				t.Errorf("%s at %d threads: floe planned %d records, iceberg-go %d", s, threads, f.Records, g.Records)
			}
		}
	}
	// floe's metadata tables return as many rows as iceberg-go's.
	for _, pair := range inspectPairs {
		f, g := res.find(pair.floe, "full", 1, "full"), res.find(pair.iceberg, "full", 1, "full")
		if f == nil || g == nil || f.Files != g.Files || f.Files == 0 {
			t.Errorf("%s: floe %+v, iceberg-go %+v: want the same, non-zero rows", pair.floe, f, g)
		}
	}
	if c := res.find(opFloeCount, "full", 1, "full"); c.Records != res.Table.Records {
		t.Errorf("count(*) = %d, the table holds %d", c.Records, res.Table.Records)
	}
	if len(res.Ratios) == 0 || len(res.Targets) != 5 {
		t.Errorf("ratios %v, targets %q", res.Ratios, res.Targets)
	}
	var out strings.Builder
	res.print(&out)
	for _, want := range []string{"iceberg-go PlanFiles", "scan.Count", "planning targets", "inspect entries", "iceberg-go Inspect Partitions", "heap added"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not mention %q:\n%s", want, out.String())
		}
	}

	// A second run finds the table written and keeps it.
	var logged []string
	again, err := generatePlanning(dir, p, func(f string, a ...any) { logged = append(logged, f) })
	if err != nil {
		t.Fatal(err)
	}
	if again.MetadataPath != res.Table.MetadataPath || len(logged) != 1 || !strings.HasPrefix(logged[0], "reusing") {
		t.Errorf("second generation: %s, logged %q", again.MetadataPath, logged)
	}
}
