package lineitem

import (
	"testing"
)

// TestExpectedWhere checks the replayed answers against floe's scan of the
// written table: all rows, and the rows of the clustered key range.
func TestExpectedWhere(t *testing.T) {
	tbl := generateSmall(t)
	lo, hi, err := ClusteredOrderKeys(smallParams, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if lo >= hi {
		t.Fatalf("empty order key range [%d, %d)", lo, hi)
	}
	got, err := ExpectedWhere(smallParams,
		func(FilterRow) bool { return true },
		func(r FilterRow) bool { return r.OrderKey >= lo && r.OrderKey < hi },
		func(r FilterRow) bool { return r.PartKey <= partCount/100 },
	)
	if err != nil {
		t.Fatal(err)
	}
	if all := scanPartKeys(t, tbl.MetadataPath); got[0] != all {
		t.Errorf("all rows: replay says %+v, the table holds %+v", got[0], all)
	}
	// About 1% each (the generator's lines per order and part keys are
	// random), and a sum that is not the whole table's.
	for k, e := range got[1:] {
		if e.Rows < smallParams.Rows/200 || e.Rows > smallParams.Rows/50 || e.SumPartKey >= got[0].SumPartKey {
			t.Errorf("predicate %d: %+v of %+v", k+1, e, got[0])
		}
	}
}
