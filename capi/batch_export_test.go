package main

import (
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
)

// nestedBatch has every kind of array floe emits, nulls and a sliced
// column included.
func nestedBatch(t *testing.T, alloc *mallocator.Mallocator) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "u", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "n", Type: arrow.Null, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(alloc, schema)
	defer bld.Release()
	for r := 0; r < 40; r++ {
		if r%4 == 0 {
			bld.Field(0).AppendNull()
			bld.Field(1).AppendNull()
		} else {
			bld.Field(0).(*array.BooleanBuilder).Append(r%3 == 0)
			bld.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r * 101)))
		}
		var u [16]byte
		u[0], u[15] = byte(r), 0xAB
		bld.Field(2).(*array.FixedSizeBinaryBuilder).Append(u[:])
		bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(r) * 1_000_000))
		sb := bld.Field(4).(*array.StructBuilder)
		if r%5 == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(r))
			lb := sb.FieldBuilder(1).(*array.ListBuilder)
			lb.Append(true)
			for k := 0; k < r%3; k++ {
				lb.ValueBuilder().(*array.StringBuilder).Append("item")
			}
		}
		mb := bld.Field(5).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("k")
		mb.ItemBuilder().(*array.Float64Builder).Append(float64(r) / 2)
		bld.Field(6).AppendNull()
	}
	full := bld.NewRecordBatch()
	defer full.Release()
	return full.NewSlice(3, 37) // offsets everywhere
}

func TestExportBatchRoundTrip(t *testing.T) {
	alloc := mallocator.NewMallocator()
	rec := nestedBatch(t, alloc)
	out := new(cArrowArray)
	exportBatch(rec, out)
	if !fastPath(out) {
		t.Fatal("a batch of floe's types took the general exporter")
	}
	back, err := cdata.ImportCRecordBatchWithSchema((*cdata.CArrowArray)(unsafe.Pointer(out)), rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if !array.RecordEqual(rec, back) {
		t.Fatalf("round trip differs:\n%v\n%v", rec, back)
	}
	back.Release()
	rec.Release()
	if n := alloc.AllocatedBytes(); n != 0 {
		t.Fatalf("%d bytes still allocated", n)
	}
}

// A consumer may move a child out of a batch and release it after the
// batch: the buffers live until the last array goes.
func TestExportBatchMovedChildOutlivesParent(t *testing.T) {
	alloc := mallocator.NewMallocator()
	rec := nestedBatch(t, alloc)
	out := new(cArrowArray)
	exportBatch(rec, out)
	rec.Release()

	children := unsafe.Slice(out.children, out.n_children)
	moved := *children[4] // the struct column, with its own children
	children[4].release = nil
	releaseArray(out)
	if alloc.AllocatedBytes() == 0 {
		t.Fatal("buffers freed while a moved child still uses them")
	}
	if moved.length != 34 || moved.offset != 3 || moved.n_children != 2 {
		t.Fatalf("moved child: length %d offset %d children %d", moved.length, moved.offset, moved.n_children)
	}
	releaseArray(&moved)
	if n := alloc.AllocatedBytes(); n != 0 {
		t.Fatalf("%d bytes still allocated after the moved child was released", n)
	}
}

// Types outside the fast path still export, through arrow-go's exporter.
func TestExportBatchFallsBack(t *testing.T) {
	alloc := mallocator.NewMallocator()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "dict", Type: dt}}, nil)
	bld := array.NewRecordBuilder(alloc, schema)
	db := bld.Field(0).(*array.BinaryDictionaryBuilder)
	for _, s := range []string{"a", "b", "a"} {
		if err := db.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	rec := bld.NewRecordBatch()
	bld.Release()
	out := new(cArrowArray)
	exportBatch(rec, out)
	if fastPath(out) {
		t.Fatal("a dictionary batch took the fast path")
	}
	back, err := cdata.ImportCRecordBatchWithSchema((*cdata.CArrowArray)(unsafe.Pointer(out)), schema)
	if err != nil {
		t.Fatal(err)
	}
	if !array.RecordEqual(rec, back) {
		t.Fatal("dictionary batch differs after the round trip")
	}
	back.Release()
	rec.Release()
}
