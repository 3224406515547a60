package interop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
)

// The test table: one column of each common primitive type, every column
// but id optional so nulls cross the boundary too.
const (
	decPrecision = 18
	decScale     = 4
)

var columnNames = []string{"id", "i", "d", "s", "dt", "ts", "dec", "b"}

func testSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "i", Type: iceberg.IntType{}},
		{ID: 3, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 4, Name: "s", Type: iceberg.StringType{}},
		{ID: 5, Name: "dt", Type: iceberg.DateType{}},
		{ID: 6, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 7, Name: "dec", Type: iceberg.DecimalType{Precision: decPrecision, Scale: decScale}},
		{ID: 8, Name: "b", Type: iceberg.BooleanType{}},
	})
}

func arrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: decPrecision, Scale: decScale}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
}

// row is one input row in a neutral form; nil is null.
type row struct {
	id  int64
	i   *int32
	d   *float64
	s   *string
	dt  *int32 // days since epoch
	ts  *int64 // microseconds since epoch
	dec *int64 // unscaled
	b   *bool
}

func ptr[T any](v T) *T { return &v }

// makeRows builds n rows with ids from firstID; each optional column is
// null in about one row in seven, at a different phase per column.
func makeRows(seed uint64, firstID int64, n int) []row {
	r := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]row, n)
	for k := range rows {
		id := firstID + int64(k)
		x := row{id: id}
		null := func(phase int64) bool { return (id+phase)%7 == 0 }
		if !null(1) {
			x.i = ptr(int32(r.IntN(2_000_000) - 1_000_000))
		}
		if !null(2) {
			x.d = ptr(r.NormFloat64() * 1e6)
		}
		if !null(3) {
			x.s = ptr(fmt.Sprintf("str-%d-%x", id%13, r.Uint32()))
		}
		ts := base.Add(time.Duration(r.IntN(20*24*3600)) * time.Second).Add(time.Duration(r.IntN(1_000_000)) * time.Microsecond)
		if !null(4) {
			x.dt = ptr(int32(ts.Unix() / 86400))
		}
		if !null(5) {
			x.ts = ptr(ts.UnixMicro())
		}
		if !null(6) {
			x.dec = ptr(r.Int64N(2e12) - 1e12)
		}
		if !null(0) {
			x.b = ptr(r.IntN(2) == 0)
		}
		rows[k] = x
	}
	return rows
}

// batch builds an Arrow record batch of rows, with Arrow's builders.
func batch(t *testing.T, rows []row) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema())
	defer b.Release()
	for _, x := range rows {
		b.Field(0).(*array.Int64Builder).Append(x.id)
		appendOpt(b.Field(1).(*array.Int32Builder), x.i, func(v int32) int32 { return v })
		appendOpt(b.Field(2).(*array.Float64Builder), x.d, func(v float64) float64 { return v })
		appendOpt(b.Field(3).(*array.StringBuilder), x.s, func(v string) string { return v })
		appendOpt(b.Field(4).(*array.Date32Builder), x.dt, func(v int32) arrow.Date32 { return arrow.Date32(v) })
		appendOpt(b.Field(5).(*array.TimestampBuilder), x.ts, func(v int64) arrow.Timestamp { return arrow.Timestamp(v) })
		appendOpt(b.Field(6).(*array.Decimal128Builder), x.dec, func(v int64) decimal128.Num { return decimal128.FromI64(v) })
		appendOpt(b.Field(7).(*array.BooleanBuilder), x.b, func(v bool) bool { return v })
	}
	return b.NewRecordBatch()
}

type appender[V any] interface {
	Append(V)
	AppendNull()
}

func appendOpt[T, V any](b appender[V], v *T, conv func(T) V) {
	if v == nil {
		b.AppendNull()
		return
	}
	b.Append(conv(*v))
}

// expectedKeys renders rows in the same text form rowKeys gives read rows,
// computed from the neutral values, not from Arrow.
func expectedKeys(rows []row) []string {
	keys := make([]string, len(rows))
	for k, x := range rows {
		parts := []string{
			fmt.Sprint(x.id),
			optStr(x.i, func(v int32) string { return fmt.Sprint(v) }),
			optStr(x.d, func(v float64) string { return fmt.Sprint(v) }),
			optStr(x.s, func(v string) string { return fmt.Sprintf("%q", v) }),
			optStr(x.dt, func(v int32) string { return time.Unix(int64(v)*86400, 0).UTC().Format(time.DateOnly) }),
			optStr(x.ts, func(v int64) string { return time.UnixMicro(v).UTC().Format(time.RFC3339Nano) }),
			optStr(x.dec, func(v int64) string { return decimal128.FromI64(v).ToString(decScale) }),
			optStr(x.b, func(v bool) string { return fmt.Sprint(v) }),
		}
		keys[k] = strings.Join(parts, "|")
	}
	slices.Sort(keys)
	return keys
}

func optStr[T any](v *T, f func(T) string) string {
	if v == nil {
		return "NULL"
	}
	return f(*v)
}

// rowKeys renders every row of batches read back, by column name, whatever
// Arrow types the reader chose for them (string or large_string, timestamp
// with or without zone).
func rowKeys(t *testing.T, batches []arrow.RecordBatch) []string {
	t.Helper()
	var keys []string
	for _, rec := range batches {
		cols := make([]arrow.Array, len(columnNames))
		for c, name := range columnNames {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("read batch has %d columns named %q: %v", len(idx), name, rec.Schema())
			}
			cols[c] = rec.Column(idx[0])
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, len(cols))
			for c, col := range cols {
				parts[c] = cellString(t, col, r)
			}
			keys = append(keys, strings.Join(parts, "|"))
		}
	}
	slices.Sort(keys)
	return keys
}

func cellString(t *testing.T, col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Int64:
		return fmt.Sprint(a.Value(r))
	case *array.Int32:
		return fmt.Sprint(a.Value(r))
	case *array.Float64:
		return fmt.Sprint(a.Value(r))
	case *array.String:
		return fmt.Sprintf("%q", a.Value(r))
	case *array.LargeString:
		return fmt.Sprintf("%q", a.Value(r))
	case *array.Date32:
		return a.Value(r).ToTime().UTC().Format(time.DateOnly)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(r).ToTime(unit).UTC().Format(time.RFC3339Nano)
	case *array.Decimal128:
		return a.Value(r).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Boolean:
		return fmt.Sprint(a.Value(r))
	}
	t.Fatalf("unexpected Arrow type %s", col.DataType())
	return ""
}

// assertSameRows compares the read rows with the expected ones as
// multisets, reporting the first few differences.
func assertSameRows(t *testing.T, want []string, got []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("read %d rows, want %d", len(got), len(want))
	}
	shown := 0
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Errorf("sorted row %d:\n got %s\nwant %s", i, g, w)
			if shown++; shown == 5 {
				t.FailNow()
			}
		}
	}
}
