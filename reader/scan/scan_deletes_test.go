package scan

import (
	"context"
	"errors"
	"testing"
)

func snap(id int64) *int64 { return &id }

// Answers from INDEX.md for every fixture table with row-level deletes.
func TestScanAppliesDeletes(t *testing.T) {
	cases := []struct {
		table string
		opts  Options
		want  []string
	}{
		{"impala_iceberg_v2_delete_pos_and_multi_eq_ids", Options{},
			[]string{"1,'str1',2020-12-01", "333333,'str3',2024-01-25", "4,'str4',2024-01-26", "5,'str5',2024-01-27"}},
		{"impala_iceberg_v2_delete_pos_and_multi_eq_ids", Options{SnapshotID: snap(152862018760071153)},
			[]string{"1,'str1',2020-12-01", "333333,'str3',2024-01-25", "4,'str4',2024-01-26", "5,'str5',2024-01-27"}},
		{"impala_iceberg_v2_delete_equality_partitioned", Options{},
			[]string{"1,'str1',2023-12-24", "2,'str2',2023-12-24", "333333,'str3',2023-12-24", "4,'str4',2023-12-24", "1,'str1',2023-12-25", "222,'str2',2023-12-25"}},
		{"impala_iceberg_v2_equality_delete_schema_evolution", Options{},
			[]string{"1,2024-03-20,'str1',NULL", "44,2024-03-21,'str4',4444", "5,2024-03-22,'str5',NULL"}},
		{"impala_iceberg_v2_equality_delete_schema_evolution", Options{SnapshotID: snap(3986738438831924669)},
			[]string{"1,2024-03-20,'str1'", "4,2024-03-21,'str4'", "5,2024-03-22,'str5'"}},
		{"impala_iceberg_v2_partitioned_position_deletes", Options{},
			[]string{"6,'Alex','view',2020-01-01 09:00:00", "20,'Alex','view',2020-01-01 09:00:00", "4,'Alex','view',2020-01-01 09:00:00",
				"18,'Alan','click',2020-01-01 10:00:00", "12,'Alan','click',2020-01-01 10:00:00", "10,'Alan','click',2020-01-01 10:00:00",
				"2,'Lisa','download',2020-01-01 11:00:00", "14,'Lisa','download',2020-01-01 11:00:00", "8,'Lisa','download',2020-01-01 11:00:00",
				"16,'Lisa','download',2020-01-01 11:00:00"}},
		{"impala_iceberg_v2_positional_not_all_data_files_have_delete_files", Options{},
			[]string{"1,'a'", "2,'b'", "3,'c'", "5,'X'", "4,'d'", "6,'f'"}},
		{"impala_iceberg_v3_deletion_vectors", Options{}, []string{"1", "3", "5"}},
		{"impala_iceberg_v3_deletion_vectors", Options{SnapshotID: snap(2700858159721908397)}, []string{"1", "2", "3", "4", "5"}},
		{"duckdb_equality_deletes/mytable", Options{}, []string{"4,'d',2025-01-04", "5,'e',2025-01-05"}},
		{"duckdb_equality_deletes/mytable_partitioned", Options{}, []string{"1,'a',2025-01-01", "4,'d',2025-01-04", "5,'e',2025-01-05"}},
	}
	for _, c := range cases {
		_, rows := scanFixture(t, c.table, c.opts)
		expectRows(t, c.table, sortedRows(rows), c.want...)
	}
}

// Deleted rows never count: not in count(*) (a scan of no columns), not
// against a limit.
func TestDeletedRowsNeverCount(t *testing.T) {
	counts := map[string]int{
		"impala_iceberg_v2_partitioned_position_deletes":                    10,
		"impala_iceberg_v2_positional_not_all_data_files_have_delete_files": 6,
		"duckdb_equality_deletes/mytable":                                   2,
		"duckdb_equality_deletes/mytable_partitioned":                       3,
		"impala_iceberg_v2_delete_pos_and_multi_eq_ids":                     4,
		"impala_iceberg_v3_deletion_vectors":                                3,
	}
	for table, want := range counts {
		_, rows := scanFixture(t, table, Options{Columns: []string{}})
		if len(rows) != want {
			t.Errorf("%s: count %d, want %d", table, len(rows), want)
		}
		limit := int64(want - 1)
		_, rows = scanFixture(t, table, Options{Limit: &limit})
		if len(rows) != want-1 {
			t.Errorf("%s: limit %d gave %d rows", table, limit, len(rows))
		}
	}
	// Before the deletes were written, the same table has all its rows.
	_, rows := scanFixture(t, "impala_iceberg_v2_partitioned_position_deletes", Options{Columns: []string{}, SnapshotID: snap(2057976186205897384)})
	if len(rows) != 20 {
		t.Errorf("before the deletes: count %d, want 20", len(rows))
	}
}

// Equality keys the query does not project are still applied.
func TestEqualityKeysOutsideTheProjection(t *testing.T) {
	_, rows := scanFixture(t, "duckdb_equality_deletes/mytable", Options{Columns: []string{"bir"}})
	expectRows(t, "bir only", sortedRows(rows), "2025-01-04", "2025-01-05")
	_, rows = scanFixture(t, "impala_iceberg_v2_delete_equality_partitioned", Options{Columns: []string{"i"}})
	expectRows(t, "i only", sortedRows(rows), "1", "2", "333333", "4", "1", "222")
}

// The cache keeps a load's failure, but not a cancellation: the next
// caller with a live context loads again.
func TestDeleteCacheForgetsCancellation(t *testing.T) {
	c := newDeleteCache()
	loads := 0
	load := func(err error) func() (any, error) {
		return func() (any, error) {
			loads++
			if err != nil {
				return nil, err
			}
			return loads, nil
		}
	}
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.get(dead, "k", load(context.Canceled)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled load: %v", err)
	}
	v, err := c.get(context.Background(), "k", load(nil))
	if err != nil || v.(int) != 2 {
		t.Fatalf("after a cancellation: %v, %v (loads %d), want a second load", v, err, loads)
	}
	if v, _ := c.get(context.Background(), "k", load(nil)); v.(int) != 2 || loads != 2 {
		t.Fatalf("a kept value loaded again: %v, loads %d", v, loads)
	}
	failed := errors.New("corrupt file")
	c.get(context.Background(), "bad", load(failed))
	if _, err := c.get(context.Background(), "bad", load(nil)); err != failed || loads != 3 {
		t.Fatalf("a failure is kept: got %v after %d loads", err, loads)
	}
	// A live caller that finds another reader's cancelled load retries.
	c.get(dead, "k2", load(context.Canceled))
	if v, err := c.get(context.Background(), "k2", load(nil)); err != nil || v.(int) != 5 {
		t.Fatalf("live caller after a cancelled one: %v, %v", v, err)
	}
}
