package writer

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// withID is an Arrow field carrying an Iceberg field id, as a scan of some
// table produces.
func withID(f arrow.Field, id string) arrow.Field {
	f.Metadata = arrow.NewMetadata([]string{FieldIDKey}, []string{id})
	return f
}

// actionSchema: 1:id long required, 2:action string.
func actionSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "action", Type: iceberg.StringType{}},
	})
}

// Field ids belong to the table that gave them: a batch scanned from
// another table whose "user" column has id 2 must not land in this table's
// column 2 ("action"). Columns bind by name; the id is ignored.
func TestBindIgnoresAnotherTablesFieldIDs(t *testing.T) {
	schema := actionSchema()
	dir := t.TempDir()
	w := newWriter(t, dir, schema, nil, DefaultOptions())
	rec := recordOf([]arrow.Field{
		withID(arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}, "1"),
		withID(arrow.Field{Name: "user", Type: arrow.BinaryTypes.String, Nullable: true}, "2"),
	}, int64s(1), stringsArr("alice"))
	err := w.Write(rec)
	if err == nil {
		t.Fatal("a batch with column user, which the table lacks, was written (into action, by its field id)")
	}
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), `"user"`) {
		t.Fatalf("error %v, want an invalid-argument error naming \"user\"", err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}

	// Names that match with ids that contradict them: the name wins.
	w = newWriter(t, t.TempDir(), schema, nil, DefaultOptions())
	rec = recordOf([]arrow.Field{
		withID(arrow.Field{Name: "action", Type: arrow.BinaryTypes.String, Nullable: true}, "1"),
		withID(arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}, "7"),
	}, stringsArr("click"), int64s(5))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	compareRows(t, "bound by name", schema, [][]any{{int64(5), "click"}}, readFloe(t, files[0].FilePath, schema))
}

// A column the table lacks is refused naming it and the closest column,
// at the top level and inside a struct.
func TestBindUnknownColumnNamesTheClosest(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}},
		{ID: 3, Name: "info", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 4, Name: "city", Type: iceberg.StringType{}},
		}}},
	})
	info := arrow.StructOf(arrow.Field{Name: "citty", Type: arrow.BinaryTypes.String, Nullable: true})
	infoArr := func() arrow.Array {
		b := array.NewStructBuilder(memory.DefaultAllocator, info)
		b.Append(true)
		b.FieldBuilder(0).(*array.StringBuilder).Append("x")
		return b.NewArray()
	}
	cases := []struct {
		name string
		rec  arrow.RecordBatch
		want []string
	}{
		{"top level", recordOf([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "nmae", Type: arrow.BinaryTypes.String, Nullable: true},
		}, int64s(1), stringsArr("typo")), []string{`"nmae"`, `did you mean "name"`}},
		{"in a struct", recordOf([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "info", Type: info, Nullable: true},
		}, int64s(1), infoArr()), []string{`"info.citty"`, `did you mean "info.city"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w := newWriter(t, dir, schema, nil, DefaultOptions())
			err := w.Write(c.rec)
			if err == nil {
				t.Fatal("written")
			}
			if !errors.Is(err, errkind.InvalidArgument) {
				t.Errorf("error %v is not an invalid argument", err)
			}
			for _, s := range c.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %s", err, s)
				}
			}
			_ = w.Abort()
			if left := filesUnder(t, dir); len(left) > 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}

// The promotions Iceberg allows are accepted from Arrow input (int32 into
// long, float32 into double, a narrower decimal into a wider one), at the
// top level and inside a list of structs; other mismatches are refused
// naming the column and both types.
func TestBindPromotesNarrowerTypes(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "n", Type: iceberg.LongType{}},
		{ID: 2, Name: "f", Type: iceberg.DoubleType{}},
		{ID: 3, Name: "d", Type: iceberg.DecimalType{Precision: 12, Scale: 2}},
		{ID: 4, Name: "items", Type: &iceberg.ListType{ElementID: 5, Element: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 6, Name: "qty", Type: iceberg.LongType{}},
		}}}},
	})
	item := arrow.StructOf(arrow.Field{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	mem := memory.DefaultAllocator
	nb := array.NewInt32Builder(mem)
	nb.AppendValues([]int32{-3, 2147483647}, nil)
	fb := array.NewFloat32Builder(mem)
	fb.AppendValues([]float32{1.5, -0.25}, nil)
	dt := &arrow.Decimal128Type{Precision: 5, Scale: 2}
	db := array.NewDecimal128Builder(mem, dt)
	db.AppendValues([]decimal128.Num{decimal128.FromI64(12345), decimal128.FromI64(-1)}, nil)
	lb := array.NewListBuilder(mem, item)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	lb.Append(true)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int32Builder).Append(7)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int32Builder).AppendNull()
	lb.AppendNull()
	rec := recordOf([]arrow.Field{
		{Name: "items", Type: arrow.ListOf(item), Nullable: true},
		{Name: "d", Type: dt, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, lb.NewArray(), db.NewArray(), fb.NewArray(), nb.NewArray())
	w := newWriter(t, t.TempDir(), schema, nil, DefaultOptions())
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{int64(-3), 1.5, dec2(12345), []any{[]any{int64(7)}, []any{nil}}},
		{int64(2147483647), -0.25, dec2(-1), nil},
	}
	compareRows(t, "promoted", schema, want, readFloe(t, files[0].FilePath, schema))

	// A long into an int column narrows: refused, naming both types.
	narrow := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "n", Type: iceberg.IntType{}}})
	w = newWriter(t, t.TempDir(), narrow, nil, DefaultOptions())
	err = w.Write(recordOf([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, int64s(1)))
	if err == nil || !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("int64 into an int column: %v", err)
	}
	for _, s := range []string{`"n"`, "int64", "int"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %s", err, s)
		}
	}
	_ = w.Abort()
}

// dec2 is v/100 as a canonical decimal of scale 2.
func dec2(v int64) iceberg.Decimal {
	n := decimal128.FromI64(v)
	return iceberg.Decimal{Hi: n.HighBits(), Lo: n.LowBits(), Scale: 2}
}

// An optional map or list column the input leaves out is written as
// nulls, though its key (or a required element) is required: a required
// field is missing only when its parent is there.
func TestBindMissingOptionalMapColumn(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "attrs", Type: &iceberg.MapType{KeyID: 3, Key: iceberg.StringType{}, ValueID: 4, Value: iceberg.LongType{}}},
		{ID: 5, Name: "tags", Type: &iceberg.ListType{ElementID: 6, Element: iceberg.StringType{}, ElementRequired: true}},
	})
	w := newWriter(t, t.TempDir(), schema, nil, DefaultOptions())
	if err := w.Write(recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, int64s(1))); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	compareRows(t, "missing map and list", schema, [][]any{{int64(1), nil, nil}}, readFloe(t, files[0].FilePath, schema))
}
