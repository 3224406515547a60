package scan

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// scanMoved reads a fixture opened with no location map, the way a user
// who copied the table meets it, and checks it reads what the mapped table
// reads.
func scanMoved(t *testing.T, name string, opts Options) [][]string {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, rows := scanTable(t, name, tbl, opts)
	_, mapped := scanFixture(t, name, opts)
	if got, want := sortedRows(rows), sortedRows(mapped); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: without a map\n  %s\nwith the map\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return rows
}

// INDEX.md's answers, read from fixtures opened without a map: the
// recorded /test-warehouse/…, hdfs://…/test-warehouse/… and relative
// prefixes are relocated onto the directory each table was opened from,
// and position deletes that name data files by the hdfs:// spelling
// (quirk 0) still apply.
func TestScanMovedFixturesWithoutAMap(t *testing.T) {
	rows := scanMoved(t, "impala_iceberg_partitioned", Options{Columns: []string{"id", "action"}})
	ids, actions, over10, notClick := map[string]bool{}, map[string]bool{}, 0, 0
	for _, r := range rows {
		ids[r[0]], actions[r[1]] = true, true
		if id, err := strconv.Atoi(r[0]); err != nil {
			t.Fatal(err)
		} else if id > 10 {
			over10++
		}
		if r[1] != "'click'" {
			notClick++
		}
	}
	if len(rows) != 20 || len(ids) != 20 || len(actions) != 3 || over10 != 10 || notClick != 14 {
		t.Errorf("impala_iceberg_partitioned: count %d, distinct ids %d, actions %d, id > 10 %d, action <> 'click' %d; want 20, 20, 3, 10, 14",
			len(rows), len(ids), len(actions), over10, notClick)
	}

	rows = scanMoved(t, "impala_iceberg_v2_partitioned_position_deletes", Options{})
	expectRows(t, "impala_iceberg_v2_partitioned_position_deletes", sortedRows(rows),
		"6,'Alex','view',2020-01-01 09:00:00", "20,'Alex','view',2020-01-01 09:00:00", "4,'Alex','view',2020-01-01 09:00:00",
		"18,'Alan','click',2020-01-01 10:00:00", "12,'Alan','click',2020-01-01 10:00:00", "10,'Alan','click',2020-01-01 10:00:00",
		"2,'Lisa','download',2020-01-01 11:00:00", "14,'Lisa','download',2020-01-01 11:00:00", "8,'Lisa','download',2020-01-01 11:00:00",
		"16,'Lisa','download',2020-01-01 11:00:00")

	rows = scanMoved(t, "impala_iceberg_v2_delete_pos_and_multi_eq_ids", Options{})
	expectRows(t, "impala_iceberg_v2_delete_pos_and_multi_eq_ids", sortedRows(rows),
		"1,'str1',2020-12-01", "333333,'str3',2024-01-25", "4,'str4',2024-01-26", "5,'str5',2024-01-27")

	rows = scanMoved(t, "impala_iceberg_migrated_complex_test", Options{Columns: []string{"struct_1_col.string_col", "struct_2_col.struct_3_col.float_col"}})
	expectRows(t, "impala_iceberg_migrated_complex_test", sortedRows(rows), `{"string_col":"A"},{"struct_3_col":{"float_col":0.5}}`)

	rows = scanMoved(t, "impala_iceberg_v3_deletion_vectors", Options{})
	expectRows(t, "impala_iceberg_v3_deletion_vectors", sortedRows(rows), "1", "3", "5")

	rows = scanMoved(t, "duckdb_equality_deletes/mytable", Options{})
	expectRows(t, "duckdb_equality_deletes/mytable", sortedRows(rows), "4,'d',2025-01-04", "5,'e',2025-01-05")

	// Relative paths (location ./lineitem_iceberg).
	if rows = scanMoved(t, "duckdb_lineitem_iceberg", Options{Columns: []string{}}); len(rows) != 51793 {
		t.Errorf("duckdb_lineitem_iceberg: %d rows, want 51793", len(rows))
	}
}

// The position delete files of Impala's hadoop_catalog tables name their
// data files hdfs://localhost:20500/test-warehouse/…, the manifests
// /test-warehouse/… (INDEX.md quirk 0). Made to match rows by their
// file_path column (not by the single file the bounds name), the deletes
// of a table opened without a map still find their data files.
func TestMovedPositionDeletesMatchTheHDFSSpelling(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(ctx, fx.Dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, tbl, Options{Columns: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	rows, deletes := 0, 0
	for _, task := range s.Tasks() {
		for i := range task.Deletes {
			task.Deletes[i].ReferencedDataFile = ""
			deletes++
		}
		rr, err := task.Reader(ctx, tbl.IO, memory.DefaultAllocator, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rows += int(rr.RecordBatch().NumRows())
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
	}
	if deletes != 3 || rows != 10 {
		t.Errorf("%d delete files applied, %d rows; want 3 and 10 (INDEX.md)", deletes, rows)
	}
}
