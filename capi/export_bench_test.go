package main

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
)

// BenchmarkExportBatch measures what leaving Go costs per batch: get_next's
// export of a 16-column batch (lineitem's shape: ints, decimals, dates,
// strings) and the consumer's release, without any decoding.
func BenchmarkExportBatch(b *testing.B) {
	alloc := mallocator.NewMallocator()
	fields := make([]arrow.Field, 16)
	for i := range fields {
		switch {
		case i < 4:
			fields[i] = arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64}
		case i < 8:
			fields[i] = arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true}
		case i < 11:
			fields[i] = arrow.Field{Name: "t", Type: arrow.FixedWidthTypes.Date32}
		default:
			fields[i] = arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}
		}
	}
	schema := arrow.NewSchema(fields, nil)
	bld := array.NewRecordBuilder(alloc, schema)
	for r := 0; r < 1024; r++ {
		for i := range fields {
			switch fb := bld.Field(i).(type) {
			case *array.Int64Builder:
				fb.Append(int64(r))
			case *array.Decimal128Builder:
				fb.AppendNull()
			case *array.Date32Builder:
				fb.Append(arrow.Date32(r))
			case *array.StringBuilder:
				fb.Append("value")
			}
		}
	}
	rec := bld.NewRecordBatch()
	bld.Release()
	defer rec.Release()

	batches := make([]arrow.RecordBatch, b.N)
	for i := range batches {
		batches[i] = rec
		rec.Retain()
	}
	rdr, err := array.NewRecordReader(schema, batches)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range batches {
		r.Release()
	}
	s := &stream{rdr: rdr, schema: schema}
	out := new(cArrowArray)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		*out = cArrowArray{}
		if rc := s.getNext(out); rc != 0 || out.release == nil {
			b.Fatalf("getNext: %d", rc)
		}
		releaseArray(out)
	}
	b.StopTimer()
	s.release()
}
