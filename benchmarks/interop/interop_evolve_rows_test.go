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
)

// The evolving table of the evolution tests. Before evolution (schema 0):
//
//	id long required, n int, x float, s string, ts timestamp, dec decimal(9,2), gone int
//
// after it (schema 1): note string added after id, n promoted to long, x to
// double, dec to decimal(12,2), s renamed label, gone dropped:
//
//	id long required, note string, n long, x double, label string, ts timestamp, dec decimal(12,2)
var (
	preColumns     = []string{"id", "n", "x", "s", "ts", "dec", "gone"}
	evolvedColumns = []string{"id", "note", "n", "x", "label", "ts", "dec"}
)

const evScale = 2

// evRow is one row of the evolving table in a neutral form, nil is null.
// label is the same field as s (renamed), so one value serves both names.
type evRow struct {
	id    int64
	n     *int64
	x     *float64
	label *string
	ts    *int64 // microseconds
	dec   *int64 // unscaled, scale 2
	gone  *int32
	note  *string
	tier  *int32 // only in TestFloeColumnDefaultReadByIcebergGo
}

// makeEvRows builds count rows from firstID. Rows for the schema before
// evolution hold values that fit its narrower types; evolved rows hold
// values only the promoted types can (n past int32, dec past 9 digits) and
// a note. Each optional column is null in about one row in six.
func makeEvRows(seed uint64, firstID int64, count int, evolved bool) []evRow {
	r := rand.New(rand.NewPCG(seed, 11))
	base := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]evRow, count)
	for k := range rows {
		id := firstID + int64(k)
		x := evRow{id: id}
		null := func(phase int64) bool { return (id+phase)%6 == 0 }
		if !null(1) {
			if evolved {
				x.n = ptr(int64(3_000_000_000) + r.Int64N(1_000_000))
			} else {
				x.n = ptr(int64(r.Int32N(2_000_000) - 1_000_000))
			}
		}
		if !null(2) {
			if evolved {
				x.x = ptr(r.NormFloat64() * 1e9)
			} else {
				x.x = ptr(float64(float32(r.NormFloat64() * 1e3)))
			}
		}
		if !null(3) {
			x.label = ptr(fmt.Sprintf("v-%d-%x", id%5, r.Uint32()))
		}
		if !null(4) {
			x.ts = ptr(base.Add(time.Duration(r.IntN(10*24*3600))*time.Second + time.Duration(r.IntN(1e6))*time.Microsecond).UnixMicro())
		}
		if !null(5) {
			if evolved {
				x.dec = ptr(r.Int64N(2e11) - 1e11)
			} else {
				x.dec = ptr(r.Int64N(2e8) - 1e8)
			}
		}
		if evolved {
			if !null(0) {
				x.note = ptr(fmt.Sprintf("note %d", id))
			}
		} else if !null(0) {
			x.gone = ptr(r.Int32N(100))
		}
		rows[k] = x
	}
	return rows
}

// evKeys renders rows as namedKeys renders them read back under columns,
// computed from the neutral values.
func evKeys(rows []evRow, columns []string) []string {
	keys := make([]string, len(rows))
	for k, x := range rows {
		parts := make([]string, len(columns))
		for c, name := range columns {
			switch name {
			case "id":
				parts[c] = fmt.Sprint(x.id)
			case "n":
				parts[c] = optStr(x.n, func(v int64) string { return fmt.Sprint(v) })
			case "x":
				parts[c] = optStr(x.x, func(v float64) string { return fmt.Sprint(v) })
			case "s", "label":
				parts[c] = optStr(x.label, func(v string) string { return fmt.Sprintf("%q", v) })
			case "ts":
				parts[c] = optStr(x.ts, microsText)
			case "dec":
				parts[c] = optStr(x.dec, func(v int64) string { return decimal128.FromI64(v).ToString(evScale) })
			case "gone":
				parts[c] = optStr(x.gone, func(v int32) string { return fmt.Sprint(v) })
			case "note":
				parts[c] = optStr(x.note, func(v string) string { return fmt.Sprintf("%q", v) })
			case "tier":
				parts[c] = optStr(x.tier, func(v int32) string { return fmt.Sprint(v) })
			default:
				panic("evKeys: no column " + name)
			}
		}
		keys[k] = strings.Join(parts, "|")
	}
	slices.Sort(keys)
	return keys
}

func concatRows(groups ...[]evRow) []evRow {
	var out []evRow
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Arrow types of the columns whose type evolution changes, before and
// after: a reader must give the new type for rows of files written
// before the change.
var (
	preTypes = map[string]arrow.DataType{"n": arrow.PrimitiveTypes.Int32, "x": arrow.PrimitiveTypes.Float32,
		"dec": &arrow.Decimal128Type{Precision: 9, Scale: evScale}}
	evolvedTypes = map[string]arrow.DataType{"n": arrow.PrimitiveTypes.Int64, "x": arrow.PrimitiveTypes.Float64,
		"dec": &arrow.Decimal128Type{Precision: 12, Scale: evScale}}
)

func preArrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "dec", Type: preTypes["dec"], Nullable: true},
		{Name: "gone", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
}

func evolvedArrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "dec", Type: evolvedTypes["dec"], Nullable: true},
	}, nil)
}

// evBatch builds rows as a batch of the schema before evolution or after.
func evBatch(rows []evRow, evolved bool) arrow.RecordBatch {
	schema := preArrowSchema()
	if evolved {
		schema = evolvedArrowSchema()
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, x := range rows {
		for c, f := range schema.Fields() {
			fb := b.Field(c)
			switch f.Name {
			case "id":
				fb.(*array.Int64Builder).Append(x.id)
			case "n":
				if evolved {
					appendOpt(fb.(*array.Int64Builder), x.n, func(v int64) int64 { return v })
				} else {
					appendOpt(fb.(*array.Int32Builder), x.n, func(v int64) int32 { return int32(v) })
				}
			case "x":
				if evolved {
					appendOpt(fb.(*array.Float64Builder), x.x, func(v float64) float64 { return v })
				} else {
					appendOpt(fb.(*array.Float32Builder), x.x, func(v float64) float32 { return float32(v) })
				}
			case "s", "label", "note":
				v := x.label
				if f.Name == "note" {
					v = x.note
				}
				appendOpt(fb.(*array.StringBuilder), v, func(v string) string { return v })
			case "ts":
				appendOpt(fb.(*array.TimestampBuilder), x.ts, func(v int64) arrow.Timestamp { return arrow.Timestamp(v) })
			case "dec":
				appendOpt(fb.(*array.Decimal128Builder), x.dec, decimal128.FromI64)
			case "gone":
				appendOpt(fb.(*array.Int32Builder), x.gone, func(v int32) int32 { return v })
			}
		}
	}
	return b.NewRecordBatch()
}

// evTable is evBatch as an Arrow table, as iceberg-go's AppendTable takes.
func evTable(rows []evRow, evolved bool) arrow.Table {
	rec := evBatch(rows, evolved)
	defer rec.Release()
	return array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
}

// evReader is evBatch as a record reader, as floe's writer/ops take.
func evReader(rows []evRow, evolved bool) array.RecordReader {
	rec := evBatch(rows, evolved)
	defer rec.Release()
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		panic(err)
	}
	return rr
}

// assertRead compares rows read by who with the expected rows under
// columns, and the read types of the columns types names.
func assertRead(t *testing.T, who string, batches []arrow.RecordBatch, want []evRow, columns []string, types map[string]arrow.DataType) {
	t.Helper()
	assertColumnTypes(t, who, batches, types)
	wantKeys, got := evKeys(want, columns), namedKeys(t, batches, columns)
	if !slices.Equal(got, wantKeys) {
		t.Errorf("%s read other rows than were written:", who)
		assertSameRows(t, wantKeys, got)
	}
}
