package scan

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

func scanFixture(t *testing.T, name string, opts Options) (*arrow.Schema, [][]string) {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	return scanTable(t, name, tbl, opts)
}

// scanTable reads every row of a scan of tbl, rendered as Impala prints.
func scanTable(t *testing.T, name string, tbl *table.Table, opts Options) (*arrow.Schema, [][]string) {
	t.Helper()
	ctx := context.Background()
	s, err := New(ctx, tbl, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows [][]string
	for rr.Next() {
		rec := rr.RecordBatch()
		if rec.NumRows() == 0 {
			t.Errorf("%s: an empty batch reached the caller", name)
		}
		if !rec.Schema().Equal(s.Schema()) {
			t.Errorf("%s: batch schema %s differs from the scan's %s", name, rec.Schema(), s.Schema())
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = impalaValue(rec.Column(c), r)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s.Schema(), rows
}

// impalaValue renders a value as Impala's test results print it
// (INDEX.md quirk 5): NULL, timestamps as "YYYY-MM-DD HH:MM:SS[.fffffffff]",
// strings quoted.
func impalaValue(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.String:
		return "'" + a.Value(i) + "'"
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		ts := a.Value(i).ToTime(unit).UTC()
		s := ts.Format("2006-01-02 15:04:05")
		if ts.Nanosecond() != 0 {
			s += fmt.Sprintf(".%09d", ts.Nanosecond())
		}
		return s
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Float32:
		// Impala widens FLOAT to DOUBLE when printing.
		return fmt.Sprint(float64(a.Value(i)))
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return a.Value(i).ToString(dt.Scale)
	case *array.FixedSizeBinary:
		if len(a.Value(i)) == 16 {
			var u [16]byte
			copy(u[:], a.Value(i))
			return iceberg.FormatUUID(u)
		}
		return fmt.Sprintf("%x", a.Value(i))
	case *array.Binary:
		return fmt.Sprintf("%x", a.Value(i))
	}
	return a.ValueStr(i)
}

func joined(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, ",")
	}
	return out
}

func sortedRows(rows [][]string) []string {
	out := joined(rows)
	sort.Strings(out)
	return out
}

func expectRows(t *testing.T, name string, got []string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// INDEX.md: iceberg-v3-default-values.test, all columns but col_binary.
func TestScanV3InitialDefaultsOfEveryType(t *testing.T) {
	_, rows := scanFixture(t, "impala_iceberg_v3_all_types", Options{Columns: []string{
		"id", "col_boolean", "col_int", "col_bigint", "col_float", "col_double", "col_decimal", "col_string",
		"col_date", "col_timestamp", "col_timestamp_epoch", "col_timestamp_iso"}})
	expectRows(t, "all types", sortedRows(rows),
		"1,false,-1,-1,1.5,2.5,123.45,'initial_default',2024-01-01,1969-12-31 23:59:59.123456000,1970-01-01 00:00:00,2024-01-15 10:30:45.123456000",
		"2,true,42,9999999999,3.140000104904175,2.71828,999.99,'explicit',2024-12-25,2024-12-25 10:30:45.123456000,1970-01-01 00:00:00,2024-01-15 10:30:45.123456000")
	// Impala gives no answer for the binary default; the metadata says
	// 0102030405060708 for rows written before the column existed.
	_, rows = scanFixture(t, "impala_iceberg_v3_all_types", Options{Columns: []string{"id", "col_binary"}})
	if got := sortedRows(rows); got[0] != "1,0102030405060708" {
		t.Errorf("binary default: got %v", got)
	}
}

// INDEX.md: test_default_part, partition evolution plus an added column
// with initial-default -1.
func TestScanPartitionEvolutionAndDefault(t *testing.T) {
	_, rows := scanFixture(t, "impala_test_default_part", Options{})
	expectRows(t, "default part", sortedRows(rows), "1,-1", "2,-1", "3,5", "4,10", "5,NULL")
}

// INDEX.md: iceberg_partitioned, 20 rows, 10 with id > 10, 14 not 'click',
// 20 distinct ids and 3 actions.
func TestScanLegacyV1Partitioned(t *testing.T) {
	_, rows := scanFixture(t, "impala_iceberg_partitioned", Options{Columns: []string{"id", "action", "event_time"}})
	if len(rows) != 20 {
		t.Fatalf("%d rows, want 20", len(rows))
	}
	ids, actions, over10, notClick := map[string]bool{}, map[string]bool{}, 0, 0
	for _, r := range rows {
		ids[r[0]] = true
		actions[r[1]] = true
		var id int
		fmt.Sscan(r[0], &id)
		if id > 10 {
			over10++
		}
		if r[1] != "'click'" {
			notClick++
		}
	}
	if len(ids) != 20 || len(actions) != 3 || over10 != 10 || notClick != 14 {
		t.Errorf("distinct ids %d, actions %d, id>10 %d, not click %d; want 20, 3, 10, 14", len(ids), len(actions), over10, notClick)
	}
}

// INDEX.md: iceberg_timestamptz_part in UTC, including pre-1970 values.
func TestScanTimestamptzHourPartitioned(t *testing.T) {
	_, rows := scanFixture(t, "impala_iceberg_timestamptz_part", Options{})
	expectRows(t, "timestamptz", sortedRows(rows),
		"-2,1969-01-01 00:00:00", "-1,1969-01-01 00:15:00", "0,2021-10-31 00:15:00", "1,2021-10-31 01:15:00",
		"2,2021-01-10 11:00:00", "3,2022-04-10 22:04:00", "4,2022-04-11 10:04:55")
}

// INDEX.md: the Hive-migrated table without field ids, read through the
// name mapping (quirk 4: resolved by name).
func TestScanMigratedTableWithoutFieldIDs(t *testing.T) {
	_, rows := scanFixture(t, "impala_iceberg_migrated_complex_test", Options{Columns: []string{"struct_1_col.string_col", "struct_2_col.struct_3_col.float_col"}})
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	got := strings.Join(rows[0], ",")
	if got != "{\"string_col\":\"A\"},{\"struct_3_col\":{\"float_col\":0.5}}" {
		t.Errorf("got %s, want string_col 'A' and float_col 0.5", got)
	}
}

// Nested projection returns the struct pruned to what was asked.
func TestScanNestedProjectionPrunesTheType(t *testing.T) {
	schema, _ := scanFixture(t, "impala_iceberg_migrated_complex_test", Options{Columns: []string{"struct_2_col.struct_3_col.float_col"}})
	want := "struct<struct_3_col: struct<float_col: float32 nullable> nullable>"
	if got := schema.Field(0).Type.String(); got != want {
		t.Errorf("type %s, want %s", got, want)
	}
}

// INDEX.md: lineitem, 51793 rows now and 60175 at the first snapshot.
func TestScanLineitemBothSnapshots(t *testing.T) {
	_, rows := scanFixture(t, "duckdb_lineitem_iceberg", Options{Columns: []string{"l_orderkey", "l_extendedprice", "l_shipdate"}})
	if len(rows) != 51793 {
		t.Errorf("current: %d rows, want 51793", len(rows))
	}
	for _, r := range rows {
		// The second snapshot deleted every row with l_extendedprice < 10000.
		var price float64
		fmt.Sscan(r[1], &price)
		if price < 10000 {
			t.Fatalf("row %v survived the delete of l_extendedprice < 10000", r)
		}
	}
	first := int64(7817332053627255703)
	_, rows = scanFixture(t, "duckdb_lineitem_iceberg", Options{Columns: []string{"l_orderkey"}, SnapshotID: &first})
	if len(rows) != 60175 {
		t.Errorf("first snapshot: %d rows, want 60175", len(rows))
	}
}

// INDEX.md: duckdb_uuid, ten uuids in two files.
func TestScanUUIDs(t *testing.T) {
	_, rows := scanFixture(t, "duckdb_uuid", Options{})
	expectRows(t, "uuid", sortedRows(rows),
		"8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4", "a217c09f-06fa-4e91-8315-ff44753c4a54", "abd6f939-9b99-4e1d-9cda-0dc8ce60a161",
		"e6218567-354b-4a9c-8cd7-3d4b6a2470f8", "f9f28465-51cf-45f1-8985-e01d9a82253c", "1571effb-facd-42a3-90e9-0af522e9b6c2",
		"160a53fe-3d8b-443d-bd36-ad66287f585a", "37afa09a-f496-48a8-89a9-61ea7ccd85d5", "3ef257b8-e9c6-4c53-9c22-973729e1043f",
		"7fae299c-cf05-4777-9b42-57a52e1415ed")
}

// A limit stops the scan (across tasks) and a scan of no columns counts.
func TestScanLimitAndZeroColumns(t *testing.T) {
	for _, limit := range []int64{0, 1, 7, 19, 20, 25} {
		l := limit
		_, rows := scanFixture(t, "impala_iceberg_partitioned", Options{Limit: &l, Columns: []string{"id"}})
		if want := min(limit, 20); int64(len(rows)) != want {
			t.Errorf("limit %d: %d rows, want %d", limit, len(rows), want)
		}
	}
	schema, rows := scanFixture(t, "duckdb_lineitem_iceberg", Options{Columns: []string{}})
	if schema.NumFields() != 0 || len(rows) != 51793 {
		t.Errorf("count scan: %d fields, %d rows; want 0 and 51793", schema.NumFields(), len(rows))
	}
	small := 1000
	_, rows = scanFixture(t, "duckdb_lineitem_iceberg", Options{Columns: []string{"l_orderkey"}, BatchSize: small})
	if len(rows) != 51793 {
		t.Errorf("batch size %d: %d rows", small, len(rows))
	}
}

// Unknown columns and options are errors, not silently ignored.
func TestScanRejectsBadRequests(t *testing.T) {
	fx, _ := fixtures.Get("duckdb_uuid")
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), tbl, Options{Columns: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v", err)
	}
	limit := int64(-1)
	if _, err := New(context.Background(), tbl, Options{Limit: &limit}); err == nil {
		t.Error("a negative limit must be an error")
	}
}

var _ = time.UTC

// Parallel decoding returns exactly the sequential result, in the same
// order, with limits and deletes.
func TestParallelScanIsDeterministic(t *testing.T) {
	for _, table := range []string{"impala_iceberg_partitioned", "impala_iceberg_v2_partitioned_position_deletes", "duckdb_equality_deletes/mytable_partitioned"} {
		_, seq := scanFixture(t, table, Options{Threads: 1})
		for _, threads := range []int{2, 4, 16} {
			_, par := scanFixture(t, table, Options{Threads: threads})
			if strings.Join(joined(par), "\n") != strings.Join(joined(seq), "\n") {
				t.Errorf("%s: %d threads gave a different result than 1", table, threads)
			}
			for _, limit := range []int64{0, 1, 3, 11} {
				l := limit
				_, lim := scanFixture(t, table, Options{Threads: threads, Limit: &l})
				want := seq[:min(int(limit), len(seq))]
				if strings.Join(joined(lim), "\n") != strings.Join(joined(want), "\n") {
					t.Errorf("%s: %d threads, limit %d: got %d rows, not the first rows of the sequential scan", table, threads, limit, len(lim))
				}
			}
		}
	}
}

// scanError plans a scan and returns its error, if any.
func scanError(t *testing.T, name string, opts Options) error {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(context.Background(), tbl, opts)
	return err
}
