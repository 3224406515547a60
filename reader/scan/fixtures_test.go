package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/floedb/floe/internal/parquettest"

	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/parquet"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
)

// Expected values below come from testdata/fixtures/INDEX.md (the answers
// the engines' own tests assert), not from this reader's output.

func readFixture(t *testing.T, path string, types map[string]arrow.DataType) (*parquet.File, map[string]arrow.Array) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := parquettest.OpenBytes(t, data)
	var cols []parquet.Column
	for _, n := range f.Root.Children {
		cols = append(cols, parquet.Column{Node: n, Type: types[n.Name]})
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	out := map[string]arrow.Array{}
	for rg := range f.RowGroups {
		b, err := f.ReadAll(parquet.ReadRequest{Columns: cols, RowGroup: rg, Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range b.Columns {
			name := f.Root.Children[i].Name
			if prev, ok := out[name]; ok {
				joined, err := array.Concatenate([]arrow.Array{prev, c}, mem)
				if err != nil {
					t.Fatal(err)
				}
				prev.Release()
				c.Release()
				c = joined
			}
			out[name] = c
		}
	}
	t.Cleanup(func() {
		for _, a := range out {
			a.Release()
		}
	})
	return f, out
}

func fixtureGlob(t *testing.T, pattern string) []string {
	paths, err := filepath.Glob(fixtures.Path(pattern))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture matches %s", pattern)
	}
	return paths
}

func TestFixtureLineitemRecordCounts(t *testing.T) {
	for file, rows := range map[string]int64{
		"00000-1-66fee7c2-c97c-4af9-963d-930afd99ace4-00001.parquet": 60175,
		"00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet": 51793,
	} {
		f, cols := readFixture(t, fixtures.Path("duckdb_lineitem_iceberg", "data", file), nil)
		if f.NumRows != rows || int64(cols["l_orderkey"].Len()) != rows {
			t.Errorf("%s: %d rows in the footer, %d read; want %d", file, f.NumRows, cols["l_orderkey"].Len(), rows)
		}
		price := f.Lookup("l_extendedprice")
		if price.Logical.Kind != parquet.LogicalDecimal || price.Logical.Precision != 15 || price.Logical.Scale != 2 || !price.HasFieldID || price.FieldID != 6 {
			t.Errorf("l_extendedprice: %+v", price)
		}
		if got := cols["l_shipdate"].DataType(); got.ID() != arrow.DATE32 {
			t.Errorf("l_shipdate reads as %s", got)
		}
		// The current snapshot's file is what is left after
		// DELETE ... WHERE l_extendedprice < 10000.
		if rows == 51793 {
			dec := cols["l_extendedprice"].(*array.Decimal128)
			for i := range dec.Len() {
				if dec.IsValid(i) && dec.Value(i).LowBits() < 1000000 && dec.Value(i).HighBits() == 0 {
					t.Fatalf("row %d has l_extendedprice %s < 10000", i, dec.ValueStr(i))
				}
			}
		}
	}
}

func TestFixtureUUIDs(t *testing.T) {
	want := []string{
		"8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4", "a217c09f-06fa-4e91-8315-ff44753c4a54", "abd6f939-9b99-4e1d-9cda-0dc8ce60a161",
		"e6218567-354b-4a9c-8cd7-3d4b6a2470f8", "f9f28465-51cf-45f1-8985-e01d9a82253c", "1571effb-facd-42a3-90e9-0af522e9b6c2",
		"160a53fe-3d8b-443d-bd36-ad66287f585a", "37afa09a-f496-48a8-89a9-61ea7ccd85d5", "3ef257b8-e9c6-4c53-9c22-973729e1043f",
		"7fae299c-cf05-4777-9b42-57a52e1415ed",
	}
	var got []string
	for _, p := range fixtureGlob(t, "duckdb_uuid/data/*.parquet") {
		f, cols := readFixture(t, p, nil)
		n := f.Lookup("uuid")
		if n.Physical != parquet.FixedLenByteArray || n.TypeLength != 16 || n.Logical.Kind != parquet.LogicalUUID || n.Repetition != parquet.Required {
			t.Fatalf("uuid column: %+v", n)
		}
		fsb := cols["uuid"].(*array.FixedSizeBinary)
		for i := range fsb.Len() {
			u, err := uuid.FromBytes(fsb.Value(i))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, u.String())
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("uuids:\n got %v\nwant %v", got, want)
	}
}

func TestFixtureTimestamptz(t *testing.T) {
	want := []string{
		"-2,1969-01-01 00:00:00", "-1,1969-01-01 00:15:00", "0,2021-10-31 00:15:00", "1,2021-10-31 01:15:00",
		"2,2021-01-10 11:00:00", "3,2022-04-10 22:04:00", "4,2022-04-11 10:04:55",
	}
	var got []string
	for _, p := range fixtureGlob(t, "impala_iceberg_timestamptz_part/data/*/*.parquet") {
		f, cols := readFixture(t, p, map[string]arrow.DataType{"ts": &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}})
		if l := f.Lookup("ts").Logical; l.Kind != parquet.LogicalTimestamp || !l.AdjustedToUTC || l.Unit != parquet.Micros {
			t.Fatalf("ts annotation %s", l)
		}
		is, ts := cols["i"].(*array.Int32), cols["ts"].(*array.Timestamp)
		for r := range is.Len() {
			got = append(got, fmt.Sprintf("%d,%s", is.Value(r), time.UnixMicro(int64(ts.Value(r))).UTC().Format(time.DateTime)))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
}

// The v3 all-types table's second data file holds Impala's row 2.
func TestFixtureV3AllTypes(t *testing.T) {
	_, cols := readFixture(t, fixtures.Path("impala_iceberg_v3_all_types", "data", "00000-7-3180aeb0-e342-4d28-87ad-87847496148c-0-00001.parquet"),
		map[string]arrow.DataType{"col_float": arrow.PrimitiveTypes.Float64})
	got := fmt.Sprintf("%d,%v,%d,%d,%v,%v,%s,'%s',%s,%s",
		cols["id"].(*array.Int32).Value(0),
		cols["col_boolean"].(*array.Boolean).Value(0),
		cols["col_int"].(*array.Int32).Value(0),
		cols["col_bigint"].(*array.Int64).Value(0),
		cols["col_float"].(*array.Float64).Value(0),
		cols["col_double"].(*array.Float64).Value(0),
		cols["col_decimal"].(*array.Decimal128).ValueStr(0),
		cols["col_string"].(*array.String).Value(0),
		cols["col_date"].(*array.Date32).Value(0).FormattedString(),
		time.UnixMicro(int64(cols["col_timestamp"].(*array.Timestamp).Value(0))).UTC().Format("2006-01-02 15:04:05.000000000"),
	)
	want := "2,true,42,9999999999,3.140000104904175,2.71828,999.99,'explicit',2024-12-25,2024-12-25 10:30:45.123456000"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// After compaction the row-lineage fields are stored, under the reserved
// field ids.
func TestFixtureRowLineageIDs(t *testing.T) {
	f, cols := readFixture(t, fixtures.Path("impala_iceberg_v3_row_lineage", "data", "00000-1-9e4c5793-eb01-410d-a963-807e22437794-0-00001.parquet"), nil)
	rowID, seq := f.NodeByFieldID(2147483540), f.NodeByFieldID(2147483539)
	if rowID == nil || rowID.Name != "_row_id" || seq == nil || seq.Name != "_last_updated_sequence_number" {
		t.Fatalf("lineage nodes: %v %v", rowID, seq)
	}
	var got []string
	for r := range cols["i"].Len() {
		got = append(got, fmt.Sprintf("%d,%d,%d", cols["i"].(*array.Int32).Value(r), cols["_row_id"].(*array.Int64).Value(r), cols["_last_updated_sequence_number"].(*array.Int64).Value(r)))
	}
	slices.Sort(got)
	if want := []string{"1,0,1", "2,1,2", "3,2,3"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
