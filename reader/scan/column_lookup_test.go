package scan

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
)

// A misspelt column is an InvalidArgument naming the closest existing
// columns, case-sensitive or not; a column that exists is found.
func TestUnknownColumnSuggestsTheClosest(t *testing.T) {
	tbl := openFixtureTable(t, "duckdb_lineitem_iceberg")
	for _, c := range []struct {
		column          string
		caseInsensitive bool
		want            string
	}{
		{"l_ordrkey", false, `did you mean "l_orderkey"`},
		{"L_ORDRKEY", true, `did you mean "l_orderkey"`},
		{"shipdate", false, `"l_shipdate"`},
	} {
		_, err := New(context.Background(), tbl, Options{Columns: []string{c.column}, CaseInsensitive: c.caseInsensitive})
		if !errors.Is(err, errkind.InvalidArgument) {
			t.Fatalf("%s: %v, want InvalidArgument", c.column, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q does not suggest %s", c.column, err, c.want)
		}
	}
	if _, err := New(context.Background(), tbl, Options{Columns: []string{"zzzzzzzzzz"}}); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a name close to nothing: %v", err)
	}
	if _, err := New(context.Background(), tbl, Options{Columns: []string{"L_ORDERKEY"}, CaseInsensitive: true}); err != nil {
		t.Errorf("case-insensitive lookup: %v", err)
	}
}
