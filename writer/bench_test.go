package writer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/fileio"
)

// discardIO is a FileIO whose files go nowhere, so benchmarks measure
// encoding rather than the disk.
type discardIO struct {
	fileio.Local
	written *int64
}

type discardWriter struct{ n *int64 }

// countingDiscard counts what pqarrow writes.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func (w *discardWriter) Write(p []byte) (int, error) { *w.n += int64(len(p)); return len(p), nil }
func (w *discardWriter) Close() error                { return nil }
func (w *discardWriter) Abort() error                { return nil }

func (d discardIO) Create(context.Context, string) (fileio.Writer, error) {
	return &discardWriter{n: d.written}, nil
}
func (discardIO) Delete(context.Context, string) error { return errors.New("discardIO: no files") }

// benchSchema is a typical fact table: keys, measures, a timestamp, short
// strings, some nulls.
func benchSchema() *iceberg.Schema {
	b := &schemaBuilder{}
	return iceberg.NewSchema(0, []iceberg.NestedField{
		b.field("id", iceberg.LongType{}, true),
		b.field("customer", iceberg.IntType{}, true),
		b.field("amount", iceberg.DoubleType{}, false),
		b.field("price", iceberg.DecimalType{Precision: 18, Scale: 2}, false),
		b.field("ts", iceberg.TimestamptzType{}, false),
		b.field("flag", iceberg.BooleanType{}, false),
		b.field("name", iceberg.StringType{}, false),
		b.field("comment", iceberg.StringType{}, false),
	})
}

// benchBatches builds batches of the bench schema straight with builders
// (genValue's boxing would dominate setup time).
func benchBatches(b *testing.B, schema *iceberg.Schema, batches, rowsPerBatch int) ([]arrow.RecordBatch, int64) {
	as, err := arrowschema.ArrowSchema(schema.Fields)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	names := make([]string, 500)
	for i := range names {
		names[i] = fmt.Sprintf("customer-%05d", r.IntN(100000))
	}
	var out []arrow.RecordBatch
	var size int64
	id := int64(0)
	for range batches {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
		for range rowsPerBatch {
			rb.Field(0).(*array.Int64Builder).Append(id)
			rb.Field(1).(*array.Int32Builder).Append(int32(r.IntN(100000)))
			rb.Field(2).(*array.Float64Builder).Append(r.Float64() * 1000)
			rb.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(r.Int64N(1e8)))
			rb.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1.7e15 + id*1000))
			rb.Field(5).(*array.BooleanBuilder).Append(r.IntN(2) == 0)
			rb.Field(6).(*array.StringBuilder).Append(names[r.IntN(len(names))])
			if r.IntN(5) == 0 {
				rb.Field(7).AppendNull()
			} else {
				rb.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("comment %d about order %x", r.IntN(1000), r.Uint64()))
			}
			id++
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		for _, c := range rec.Columns() {
			for _, buf := range c.Data().Buffers() {
				if buf != nil {
					size += int64(buf.Len())
				}
			}
		}
		out = append(out, rec)
	}
	return out, size
}

// cpuSeconds is the process's user and system CPU time so far: on a busy
// machine it measures the work done better than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

const (
	benchBatchCount = 16
	benchBatchRows  = 65536
)

// BenchmarkWrite compares floe's writer (Iceberg metrics included) with
// arrow-go's pqarrow on the same batches, both zstd with dictionaries and
// v1 pages, one file, into a discarding sink. Bytes are Arrow input bytes.
func BenchmarkWrite(b *testing.B) {
	schema := benchSchema()
	recs, size := benchBatches(b, schema, benchBatchCount, benchBatchRows)
	rows := float64(benchBatchCount * benchBatchRows)
	b.Run("floe", func(b *testing.B) {
		b.SetBytes(size)
		var out int64
		cpu0 := cpuSeconds()
		for b.Loop() {
			out = 0
			w, err := New(context.Background(), discardIO{written: &out}, "/bench/data", schema, nil, DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			for _, rec := range recs {
				if err := w.Write(rec); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(out), "file-bytes")
	})
	b.Run("floe-serial", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		var out int64
		cpu0 := cpuSeconds()
		for b.Loop() {
			opts := DefaultOptions()
			opts.Parallelism = 1
			out = 0
			w, err := New(context.Background(), discardIO{written: &out}, "/bench/data", schema, nil, opts)
			if err != nil {
				b.Fatal(err)
			}
			for _, rec := range recs {
				if err := w.Write(rec); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(out), "file-bytes")
	})
	b.Run("pqarrow", func(b *testing.B) {
		b.SetBytes(size)
		props := parquet.NewWriterProperties(
			parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithDictionaryDefault(true),
			parquet.WithDataPageVersion(parquet.DataPageV1),
			parquet.WithStats(true),
			parquet.WithMaxRowGroupLength(int64(rows)),
		)
		var out countingDiscard
		cpu0 := cpuSeconds()
		for b.Loop() {
			out.n = 0
			fw, err := pqarrow.NewFileWriter(recs[0].Schema(), &out, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
			if err != nil {
				b.Fatal(err)
			}
			for _, rec := range recs {
				if err := fw.WriteBuffered(rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := fw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(out.n), "file-bytes")
	})
}

// BenchmarkWritePartitioned measures the fan-out: rows spread over 64
// bucket partitions.
func BenchmarkWritePartitioned(b *testing.B) {
	schema := benchSchema()
	recs, size := benchBatches(b, schema, benchBatchCount, benchBatchRows)
	spec := &iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "c", Transform: iceberg.BucketTransform{N: 64}},
	}}
	b.SetBytes(size)
	for b.Loop() {
		var out int64
		w, err := New(context.Background(), discardIO{written: &out}, "/bench/data", schema, spec, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		for _, rec := range recs {
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchBatchCount*benchBatchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWriteSorted measures sorted writes against the same batches
// unsorted: by a random int key (every row moves), and by the customer
// name then the amount descending (a string key with ties).
func BenchmarkWriteSorted(b *testing.B) {
	schema := benchSchema()
	recs, size := benchBatches(b, schema, benchBatchCount, benchBatchRows)
	orders := []struct {
		name  string
		order *iceberg.SortOrder
	}{
		{"unsorted", nil},
		{"customer", &iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
			{SourceID: 2, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first"}}}},
		{"name,amount-desc", &iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
			{SourceID: 7, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first"},
			{SourceID: 3, Transform: iceberg.IdentityTransform{}, Direction: "desc", NullOrder: "nulls-last"}}}},
	}
	for _, o := range orders {
		b.Run(o.name, func(b *testing.B) {
			b.SetBytes(size)
			cpu0 := cpuSeconds()
			for b.Loop() {
				var out int64
				opts := DefaultOptions()
				opts.SortOrder = o.order
				w, err := New(context.Background(), discardIO{written: &out}, "/bench/data", schema, nil, opts)
				if err != nil {
					b.Fatal(err)
				}
				for _, rec := range recs {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(benchBatchCount*benchBatchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkWriteBloom measures bloom filters on the id and name columns
// against none, on the same batches.
func BenchmarkWriteBloom(b *testing.B) {
	schema := benchSchema()
	recs, size := benchBatches(b, schema, benchBatchCount, benchBatchRows)
	for _, c := range []struct {
		name   string
		filter map[int]float64
	}{{"none", nil}, {"id,name", map[int]float64{1: 0.01, 7: 0.01}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			cpu0 := cpuSeconds()
			var out int64
			for b.Loop() {
				out = 0
				opts := DefaultOptions()
				opts.BloomFilters = c.filter
				w, err := New(context.Background(), discardIO{written: &out}, "/bench/data", schema, nil, opts)
				if err != nil {
					b.Fatal(err)
				}
				for _, rec := range recs {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(out), "file-bytes")
		})
	}
}
