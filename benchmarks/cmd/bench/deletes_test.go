package main

import (
	"strings"
	"testing"

	"github.com/floedb/floe/benchmarks/lineitem"
)

// TestDeleteSection runs the delete section once over small tables: floe
// must return exactly the survivors on every table, and every scan must
// have been checked (a peer's wrong answer marked, not timed as right).
func TestDeleteSection(t *testing.T) {
	p := lineitem.Params{Rows: 20_000, Files: 2, RowGroupsPerFile: 2, Seed: 5}
	tbl, err := lineitem.Generate(t.TempDir(), p, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	dt, err := lineitem.GenerateDeletes(tbl, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	res := measureDeletes(tbl, dt, 1, []string{"floe", "iceberg-go"}, t.Logf)
	if len(res.Scans) != 2*len(deleteTableNames) {
		t.Fatalf("%d scans, want %d", len(res.Scans), 2*len(deleteTableNames))
	}
	for _, s := range res.Scans {
		want := dt.Plain
		if s.Table != "plain" {
			want = dt.Table(lineitem.DeleteKind(s.Table)).Expected
		}
		if s.Expected != want {
			t.Errorf("%s/%s checked against %+v, want %+v", s.Peer, s.Table, s.Expected, want)
		}
		correct := s.Result.Rows == want.Rows && s.Result.SumPartKey == want.SumPartKey
		switch {
		case s.Peer == "floe" && (s.Status != "ok" || !correct):
			t.Errorf("floe on %s: %s, %v, want %+v", s.Table, s.Status, s.Result, want)
		case s.Status == "ok" && !correct, s.Status == "WRONG" && correct:
			t.Errorf("%s on %s: status %s for %v, want %+v", s.Peer, s.Table, s.Status, s.Result, want)
		}
	}
	for _, kind := range lineitem.DeleteKinds {
		if v := res.Ratios["floe "+string(kind)+"/plain"]; !strings.HasSuffix(v, "×") {
			t.Errorf("no %s/plain ratio: %q", kind, v)
		}
	}
	if len(res.Targets) != len(lineitem.DeleteKinds) {
		t.Errorf("targets: %q", res.Targets)
	}
}
