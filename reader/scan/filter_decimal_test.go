package scan

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// Numeric literals reach wide decimal columns with all their digits: a
// number that went through float64 on the way would select the row holding
// the double's digits rather than the one written.
func TestScanFilterDecimalLiteralsExact(t *testing.T) {
	const pi = "3.14159265358979323846264"
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "c", Type: iceberg.DecimalType{Precision: 36, Scale: 23}},
		{ID: 3, Name: "big", Type: iceberg.DecimalType{Precision: 38, Scale: 0}},
		{ID: 4, Name: "d2", Type: iceberg.DecimalType{Precision: 10, Scale: 2}},
	})
	dec := func(s string, scale int) iceberg.Decimal {
		d, err := iceberg.ParseDecimal(s, scale)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Rows 0..5 hold c values around pi, including the double nearest pi
	// (row 1) and pi's neighbours at the scale (rows 2 and 3).
	cs := []string{pi, "3.141592653589793", "3.14159265358979323846263", "3.14159265358979323846265", "1", "12.5"}
	bigs := []string{"12345678901234567890123", "12345678901234567890124", "12345678901234567890122", "1", "99999999999999999999999999999999999999", "0"}
	d2s := []string{"1.00", "1.01", "0.99", "1.50", "-1.00", "-1.01"}
	var rows [][]any
	for i := range cs {
		rows = append(rows, []any{int64(i), dec(cs[i], 23), dec(bigs[i], 0), dec(d2s[i], 2)})
	}
	rows = append(rows, []any{int64(len(rows)), nil, nil, nil})
	// A row group and a page per row, so statistics prune as rows do.
	built, err := testtable.Build(t.TempDir(), testtable.Options{
		Schema: schema, Rows: rows, RowsPerFile: 3, RowsPerRowGroup: 1, RowsPerPage: 1, Manifests: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		filter string
		want   []int64
	}{
		{"c = " + pi, []int64{0}},
		{"c = '" + pi + "'", []int64{0}},
		{`{"type":"eq","term":"c","value":` + pi + `}`, []int64{0}},
		{`{"type":"eq","term":"c","value":"` + pi + `"}`, []int64{0}},
		{`{"type":"in","term":"c","values":[` + pi + `, 12.5]}`, []int64{0, 5}},
		{"c < " + pi, []int64{1, 2, 4}},
		{"c >= " + pi + " and c < 4", []int64{0, 3}},
		{"c != " + pi, []int64{1, 2, 3, 4, 5}},
		{"c = 3.141592653589793", []int64{1}},
		// Integers beyond int64, text and JSON.
		{"big = 12345678901234567890123", []int64{0}},
		{`{"type":"gt","term":"big","value":12345678901234567890123}`, []int64{1, 4}},
		{"big > 1e37", []int64{4}},
		{"big < 1e38", []int64{0, 1, 2, 3, 4, 5}}, // beyond decimal(38, 0): every non-null value
		// More fraction digits than the scale: no value equals it, and an
		// order holds against the neighbour.
		{"d2 = 1.005", nil},
		{"d2 != 1.005", []int64{0, 1, 2, 3, 4, 5}},
		{"d2 < 1.005", []int64{0, 2, 4, 5}},
		{"d2 > 1.005", []int64{1, 3}},
		{"d2 >= -1.005", []int64{0, 1, 2, 3, 4}},
		{`{"type":"lt","term":"d2","value":-1.005}`, []int64{5}},
		{"d2 in (1.005, 1.5, 0.990)", []int64{2, 3}},
		{"d2 = 1", []int64{0}},
	} {
		got := scanIDs(t, tbl, c.filter)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: ids %v, want %v", c.filter, got, c.want)
		}
	}
}

func scanIDs(t *testing.T, tbl *table.Table, filter string) []int64 {
	t.Helper()
	ctx := context.Background()
	s, err := New(ctx, tbl, Options{Columns: []string{"id"}, Filter: textFilter(filter)})
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var ids []int64
	for rr.Next() {
		ids = append(ids, rr.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	slices.Sort(ids)
	return ids
}
