package rowstest

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
)

// Reader hands rows of schema out as one batch.
func Reader(t testing.TB, schema *iceberg.Schema, rows [][]any) array.RecordReader {
	t.Helper()
	rec := BuildRecord(t, schema, rows)
	defer rec.Release()
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

// BuildRecord builds an Arrow batch of rows with the types the reader
// gives for the schema.
func BuildRecord(t testing.TB, schema *iceberg.Schema, rows [][]any) arrow.RecordBatch {
	t.Helper()
	as, err := arrowschema.ArrowSchema(schema.Fields)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	for _, row := range rows {
		for j, f := range schema.Fields {
			appendValue(b.Field(j), f.Type, row[j])
		}
	}
	return b.NewRecordBatch()
}

func appendValue(b array.Builder, t iceberg.Type, v any) {
	if err := arrowschema.AppendValue(b, t, v); err != nil {
		panic(fmt.Sprintf("appendValue: %v", err))
	}
}

// Canonical converts element i of an Arrow array (in whatever Arrow type a
// reader chose) to the Canonical value of t.
func Canonical(a arrow.Array, i int, t iceberg.Type) any {
	if ext, ok := a.(array.ExtensionArray); ok {
		a = ext.Storage()
	}
	if a.IsNull(i) {
		return nil
	}
	switch t := t.(type) {
	case iceberg.UnknownType:
		return nil // a Null array, whose IsNull says false
	case iceberg.BooleanType:
		return a.(*array.Boolean).Value(i)
	case iceberg.IntType:
		return a.(*array.Int32).Value(i)
	case iceberg.DateType:
		return int32(a.(*array.Date32).Value(i))
	case iceberg.LongType:
		return a.(*array.Int64).Value(i)
	case iceberg.TimeType:
		tt := a.DataType().(*arrow.Time64Type)
		v := int64(a.(*array.Time64).Value(i))
		if tt.Unit == arrow.Nanosecond {
			v /= 1000
		}
		return v
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return int64(a.(*array.Timestamp).Value(i))
	case iceberg.FloatType:
		return a.(*array.Float32).Value(i)
	case iceberg.DoubleType:
		return a.(*array.Float64).Value(i)
	case iceberg.DecimalType:
		n := a.(*array.Decimal128).Value(i)
		return iceberg.Decimal{Hi: n.HighBits(), Lo: n.LowBits(), Scale: t.Scale}
	case iceberg.StringType:
		switch s := a.(type) {
		case *array.String:
			return s.Value(i)
		case *array.LargeString:
			return s.Value(i)
		}
	case iceberg.UUIDType:
		return [16]byte(a.(*array.FixedSizeBinary).Value(i))
	case iceberg.FixedType:
		return bytes.Clone(a.(*array.FixedSizeBinary).Value(i))
	case iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		switch s := a.(type) {
		case *array.Binary:
			return append([]byte{}, s.Value(i)...)
		case *array.LargeBinary:
			return append([]byte{}, s.Value(i)...)
		}
	case *iceberg.StructType:
		s := a.(*array.Struct)
		out := make([]any, len(t.Fields))
		for j, f := range t.Fields {
			out[j] = Canonical(s.Field(j), i, f.Type)
		}
		return out
	case *iceberg.ListType:
		l := a.(array.ListLike)
		start, end := l.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, Canonical(l.ListValues(), int(j), t.Element))
		}
		return out
	case *iceberg.MapType:
		m := a.(*array.Map)
		start, end := m.ValueOffsets(i)
		mv := iceberg.MapValue{}
		for j := start; j < end; j++ {
			mv.Keys = append(mv.Keys, Canonical(m.Keys(), int(j), t.Key))
			mv.Values = append(mv.Values, Canonical(m.Items(), int(j), t.Value))
		}
		return mv
	}
	panic(fmt.Sprintf("Canonical: %v from %s", t, a.DataType()))
}

// SameValue compares Canonical values: primitives with iceberg.Compare
// (NaN equals NaN, -0 differs from +0), nested ones element by element.
func SameValue(t iceberg.Type, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch t := t.(type) {
	case *iceberg.StructType:
		x, y := a.([]any), b.([]any)
		for i, f := range t.Fields {
			if !SameValue(f.Type, x[i], y[i]) {
				return false
			}
		}
		return len(x) == len(y)
	case *iceberg.ListType:
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !SameValue(t.Element, x[i], y[i]) {
				return false
			}
		}
		return true
	case *iceberg.MapType:
		x, y := a.(iceberg.MapValue), b.(iceberg.MapValue)
		if len(x.Keys) != len(y.Keys) {
			return false
		}
		for i := range x.Keys {
			if !SameValue(t.Key, x.Keys[i], y.Keys[i]) || !SameValue(t.Value, x.Values[i], y.Values[i]) {
				return false
			}
		}
		return true
	}
	if iceberg.IsGeo(t) {
		t = iceberg.BinaryType{} // WKB has no order, but its bytes compare
	}
	if err := iceberg.CheckValue(t, a); err != nil {
		return false
	}
	if err := iceberg.CheckValue(t, b); err != nil {
		return false
	}
	return iceberg.Compare(t, a, b) == 0
}

// CompareRows reports the first differences between want and got.
func CompareRows(t testing.TB, what string, schema *iceberg.Schema, want, got [][]any) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range want {
		for j, f := range schema.Fields {
			if !SameValue(f.Type, want[i][j], got[i][j]) {
				t.Errorf("%s: row %d column %s: got %#v, want %#v", what, i, f.Name, got[i][j], want[i][j])
				if bad++; bad > 10 {
					t.FailNow()
				}
			}
		}
	}
}

func SortRows(schema *iceberg.Schema, rows [][]any) {
	slices.SortFunc(rows, func(a, b []any) int {
		if a[0] == nil || b[0] == nil {
			return cmp.Compare(boolInt(a[0] != nil), boolInt(b[0] != nil))
		}
		return iceberg.Compare(schema.Fields[0].Type, a[0], b[0])
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// KeepRows is rows less those the predicate is true for, in a new slice
// sorted by the first column.
func KeepRows(schema *iceberg.Schema, rows [][]any, deleted func(row []any) bool) [][]any {
	var out [][]any
	for _, r := range rows {
		if !deleted(r) {
			out = append(out, r)
		}
	}
	SortRows(schema, out)
	return out
}
