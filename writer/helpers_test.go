package writer

import (
	"context"
	"fmt"
	"math"
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/parquet"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg"
)

// Test helpers that stand apart from the code under test: rows are canonical
// Go values (package iceberg's forms), batches are built from them with
// Arrow's builders (internal/rowstest, shared with package ops' tests),
// and files are read back with floe's reader and with arrow-go's pqarrow,
// each converted back to canonical values.

var (
	buildRecord = rowstest.BuildRecord
	canonical   = rowstest.Canonical
	sameValue   = rowstest.SameValue
	compareRows = rowstest.CompareRows
)

// schemaBuilder numbers fields as they are declared.
type schemaBuilder struct{ next int }

func (b *schemaBuilder) id() int { b.next++; return b.next }

func (b *schemaBuilder) field(name string, t iceberg.Type, required bool) iceberg.NestedField {
	return iceberg.NestedField{ID: b.id(), Name: name, Type: t, Required: required}
}

func (b *schemaBuilder) list(elem iceberg.Type, required bool) *iceberg.ListType {
	return &iceberg.ListType{ElementID: b.id(), Element: elem, ElementRequired: required}
}

func (b *schemaBuilder) mapOf(key, val iceberg.Type, required bool) *iceberg.MapType {
	return &iceberg.MapType{KeyID: b.id(), Key: key, ValueID: b.id(), Value: val, ValueRequired: required}
}

// primitiveTypes is every primitive type the writer supports.
var primitiveTypes = []iceberg.Type{
	iceberg.BooleanType{}, iceberg.IntType{}, iceberg.LongType{}, iceberg.FloatType{}, iceberg.DoubleType{},
	iceberg.DecimalType{Precision: 9, Scale: 2}, iceberg.DecimalType{Precision: 18, Scale: 4},
	iceberg.DecimalType{Precision: 38, Scale: 10}, iceberg.DecimalType{Precision: 21, Scale: 0},
	iceberg.DateType{}, iceberg.TimeType{}, iceberg.TimestampType{}, iceberg.TimestamptzType{},
	iceberg.TimestampNsType{}, iceberg.TimestamptzNsType{}, iceberg.StringType{}, iceberg.UUIDType{},
	iceberg.FixedType{Length: 5}, iceberg.BinaryType{},
}

// allTypesSchema has every primitive type, required and optional, and
// structs, lists and maps nested in each other.
func allTypesSchema() *iceberg.Schema {
	b := &schemaBuilder{}
	var fields []iceberg.NestedField
	for i, t := range primitiveTypes {
		fields = append(fields, b.field(fmt.Sprintf("opt_%d", i), t, false))
		fields = append(fields, b.field(fmt.Sprintf("req_%d", i), t, true))
	}
	innerList := b.list(iceberg.LongType{}, false)
	inner := &iceberg.StructType{Fields: []iceberg.NestedField{
		b.field("x", iceberg.DoubleType{}, false),
		b.field("y", innerList, false),
	}}
	fields = append(fields,
		b.field("s", &iceberg.StructType{Fields: []iceberg.NestedField{
			b.field("a", iceberg.IntType{}, false),
			b.field("b", iceberg.StringType{}, true),
			b.field("inner", inner, false),
		}}, false),
		b.field("l", b.list(iceberg.StringType{}, false), false),
		b.field("lr", b.list(iceberg.IntType{}, true), true),
		b.field("ls", b.list(&iceberg.StructType{Fields: []iceberg.NestedField{
			b.field("p", iceberg.IntType{}, false),
			b.field("q", iceberg.StringType{}, true),
		}}, false), false),
		b.field("m", b.mapOf(iceberg.StringType{}, iceberg.DoubleType{}, false), false),
		b.field("mm", b.mapOf(iceberg.IntType{}, b.list(iceberg.StringType{}, false), false), false),
		b.field("ll", b.list(b.list(iceberg.DecimalType{Precision: 20, Scale: 3}, false), true), false),
	)
	return iceberg.NewSchema(0, fields)
}

var sampleStrings = []string{
	"", "a", "héllo", "日本語のテキスト", "😀x", "\U0010FFFF", "z\U0010FFFF\U0010FFFF",
	"abcdefghijklmnopqrstuvwxyz", "ééééééééééééééééééé", "日本語日本語日本語日本語日本語日本語",
	"aaaaaaaaaaaaaaa\U0010FFFFb", "\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FF\uD7FFq",
}

// genValue makes a random canonical value of t, nil (null) now and then
// when the field is optional; extremes come up often.
func genValue(r *rand.Rand, t iceberg.Type, required bool) any {
	if !required && r.IntN(7) == 0 {
		return nil
	}
	extreme := r.IntN(5) == 0
	switch t := t.(type) {
	case iceberg.BooleanType:
		return r.IntN(2) == 0
	case iceberg.IntType:
		if extreme {
			return []int32{math.MinInt32, math.MaxInt32, 0, -1}[r.IntN(4)]
		}
		return int32(r.IntN(2001) - 1000)
	case iceberg.LongType:
		if extreme {
			return []int64{math.MinInt64, math.MaxInt64, 0}[r.IntN(3)]
		}
		return r.Int64N(1e12) - 5e11
	case iceberg.FloatType:
		if extreme {
			return []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}[r.IntN(8)]
		}
		return float32(r.NormFloat64() * 100)
	case iceberg.DoubleType:
		if extreme {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, math.MaxFloat64, -math.MaxFloat64}[r.IntN(7)]
		}
		return r.NormFloat64() * 1e6
	case iceberg.DecimalType:
		limit := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil), big.NewInt(1))
		var u *big.Int
		if extreme {
			u = new(big.Int).Set(limit)
			if r.IntN(2) == 0 {
				u.Neg(u)
			}
		} else {
			u = new(big.Int).Rand(mrand.New(mrand.NewSource(r.Int64())), limit) // [0, limit)
			if r.IntN(2) == 0 {
				u.Neg(u)
			}
		}
		d, err := iceberg.DecimalFromBigInt(u, t.Scale)
		if err != nil {
			panic(err)
		}
		return d
	case iceberg.DateType:
		if extreme {
			return []int32{-719162, 2932896, 0, -1}[r.IntN(4)]
		}
		return int32(r.IntN(40000) - 10000)
	case iceberg.TimeType:
		if extreme {
			return []int64{0, 86_400_000_000 - 1}[r.IntN(2)]
		}
		return r.Int64N(86_400_000_000)
	case iceberg.TimestampType, iceberg.TimestamptzType:
		if extreme {
			return []int64{-62135596800000000, 253402300799999999, 0, -1}[r.IntN(4)]
		}
		return r.Int64N(4e15) - 1e15
	case iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		if extreme {
			return []int64{math.MinInt64, math.MaxInt64, 0, -1}[r.IntN(4)]
		}
		return r.Int64N(4e18) - 1e18
	case iceberg.StringType:
		if r.IntN(3) > 0 {
			return sampleStrings[r.IntN(len(sampleStrings))]
		}
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	case iceberg.UUIDType:
		var u [16]byte
		for i := range u {
			u[i] = byte(r.IntN(256))
		}
		if extreme {
			u = [16]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
		}
		return u
	case iceberg.FixedType:
		b := make([]byte, t.Length)
		for i := range b {
			b[i] = byte(r.IntN(256))
			if extreme {
				b[i] = 0xff
			}
		}
		return b
	case iceberg.BinaryType:
		b := make([]byte, r.IntN(30))
		for i := range b {
			b[i] = byte(r.IntN(256))
			if extreme {
				b[i] = 0xff
			}
		}
		return b
	case *iceberg.StructType:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = genValue(r, f.Type, f.Required)
		}
		return out
	case *iceberg.ListType:
		out := make([]any, r.IntN(4))
		for i := range out {
			out[i] = genValue(r, t.Element, t.ElementRequired)
		}
		return out
	case *iceberg.MapType:
		n := r.IntN(4)
		mv := iceberg.MapValue{}
		seen := map[string]bool{}
		for range n {
			k := genValue(r, t.Key, true)
			ks := fmt.Sprint(k)
			if seen[ks] {
				continue
			}
			seen[ks] = true
			mv.Keys = append(mv.Keys, k)
			mv.Values = append(mv.Values, genValue(r, t.Value, t.ValueRequired))
		}
		return mv
	}
	panic(fmt.Sprintf("genValue: %v", t))
}

func genRows(r *rand.Rand, schema *iceberg.Schema, n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		row := make([]any, len(schema.Fields))
		for j, f := range schema.Fields {
			row[j] = genValue(r, f.Type, f.Required)
		}
		rows[i] = row
	}
	return rows
}

// openParquet opens a local Parquet file with floe's reader; closing it
// is the caller's.
func openParquet(t testing.TB, path string) (*parquet.File, func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, info.Size(), nil)
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	return pf, func() { f.Close() }
}

// readFloe reads a whole data file with floe's reader: one row of
// canonical values per file row, columns by field id.
var readFloe = rowstest.ReadFile

// readPqarrow reads a data file with arrow-go's pqarrow, checks that every
// Arrow field it produces carries the field id the schema gives it, and
// returns the rows.
func readPqarrow(t testing.TB, path string, schema *iceberg.Schema) [][]any {
	t.Helper()
	pr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if int(tbl.NumCols()) != len(schema.Fields) {
		t.Fatalf("pqarrow sees %d columns, schema has %d", tbl.NumCols(), len(schema.Fields))
	}
	for j, fld := range schema.Fields {
		checkFieldIDs(t, tbl.Schema().Field(j), fld.ID, fld.Name, fld.Type)
	}
	var rows [][]any
	for j, fld := range schema.Fields {
		k := 0
		for _, chunk := range tbl.Column(j).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				if j == 0 {
					rows = append(rows, make([]any, len(schema.Fields)))
				}
				rows[k][j] = canonical(chunk, i, fld.Type)
				k++
			}
		}
	}
	return rows
}

// checkFieldIDs checks the PARQUET:field_id metadata of f and its nested
// fields against the Iceberg field.
func checkFieldIDs(t testing.TB, f arrow.Field, id int, name string, it iceberg.Type) {
	t.Helper()
	got, ok := f.Metadata.GetValue(FieldIDKey)
	if !ok || got != strconv.Itoa(id) {
		t.Errorf("field %s: field id %q, want %d", name, got, id)
	}
	if f.Name != name {
		t.Errorf("field id %d: name %q, want %q", id, f.Name, name)
	}
	switch it := it.(type) {
	case *iceberg.StructType:
		st := f.Type.(*arrow.StructType)
		for i, c := range it.Fields {
			checkFieldIDs(t, st.Field(i), c.ID, c.Name, c.Type)
		}
	case *iceberg.ListType:
		checkFieldIDs(t, f.Type.(*arrow.ListType).ElemField(), it.ElementID, "element", it.Element)
	case *iceberg.MapType:
		mt := f.Type.(*arrow.MapType)
		checkFieldIDs(t, mt.KeyField(), it.KeyID, "key", it.Key)
		checkFieldIDs(t, mt.ItemField(), it.ValueID, "value", it.Value)
	}
}

// mustFilter parses a test's filter, row_filter text or REST JSON.
func mustFilter(s string) expr.Expr {
	e, err := expr.ParseFilter(s)
	if err != nil {
		panic(fmt.Sprintf("test filter %q: %v", s, err))
	}
	return e
}
