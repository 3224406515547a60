package scan

import (
	"fmt"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
)

// textFilter parses a test's filter, row_filter text or REST JSON, as a
// user gives it.
func textFilter(s string) expr.Expr {
	e, err := expr.ParseFilter(s)
	if err != nil {
		panic(fmt.Sprintf("test filter %q: %v", s, err))
	}
	return e
}

// Filter answers from INDEX.md (Impala's and DuckDB's own tests).
func TestScanFiltersMatchTheIndex(t *testing.T) {
	cases := []struct {
		table, filter string
		cols          []string
		want          []string
	}{
		{"impala_test_default_part", "j = -1", []string{"i"}, []string{"1", "2"}},
		{"impala_test_default_part", "j = 5", []string{"i"}, []string{"3"}},
		{"impala_test_default_part", "j is null", []string{"i"}, []string{"5"}},
		{"impala_test_default_part", "not (j = -1)", []string{"i"}, []string{"3", "4"}},
		{"duckdb_uuid", "uuid = '1571effb-facd-42a3-90e9-0af522e9b6c2'", nil, []string{"1571effb-facd-42a3-90e9-0af522e9b6c2"}},
		{"impala_iceberg_timestamptz_part", "ts < '1970-01-01 00:00:00+00:00'", []string{"i"}, []string{"-1", "-2"}},
		{"impala_iceberg_timestamptz_part", "ts >= '2022-04-10 22:04:00+00:00' or i = 0", []string{"i"}, []string{"0", "3", "4"}},
		{"impala_iceberg_v2_partitioned_position_deletes", "action = 'click'", []string{"id"}, []string{"10", "12", "18"}},
		{"duckdb_equality_deletes/mytable", "id = 4", []string{"bir"}, []string{"2025-01-04"}},
		{"impala_iceberg_v3_all_types", "col_decimal > 500 and col_string like 'expl%'", []string{"id"}, []string{"2"}},
		{"impala_iceberg_v3_all_types", "col_date = '2024-01-01'", []string{"id"}, []string{"1"}},
	}
	for _, c := range cases {
		_, rows := scanFixture(t, c.table, Options{Columns: c.cols, Filter: textFilter(c.filter)})
		expectRows(t, c.table+": "+c.filter, sortedRows(rows), c.want...)
	}
	// INDEX.md counts on iceberg_partitioned.
	for filter, want := range map[string]int{"id > 10": 10, "action <> 'click'": 14, "action in ('view', 'click')": 14, "not (id > 10)": 10} {
		_, rows := scanFixture(t, "impala_iceberg_partitioned", Options{Columns: []string{}, Filter: textFilter(filter)})
		if len(rows) != want {
			t.Errorf("iceberg_partitioned %s: %d rows, want %d", filter, len(rows), want)
		}
	}
	// The REST JSON form and a limit on a filtered scan.
	limit := int64(2)
	_, rows := scanFixture(t, "impala_iceberg_partitioned", Options{Columns: []string{"id"}, Limit: &limit,
		Filter: textFilter(`{"type": "gt", "term": "id", "value": 10}`)})
	if len(rows) != 2 {
		t.Errorf("limit 2 on a filtered scan gave %d rows", len(rows))
	}
}

func TestScanFilterErrors(t *testing.T) {
	for _, f := range []string{"nope = 1", "id <", "action like '%x'"} {
		e, err := expr.ParseFilter(f)
		if err != nil {
			continue // rejected while parsing is fine too
		}
		fx := "impala_iceberg_partitioned"
		if err := scanError(t, fx, Options{Filter: e}); err == nil {
			t.Errorf("filter %q: want an error", f)
		}
	}
}
