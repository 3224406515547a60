package writer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/parquet-go/parquet-go"
)

// benchPositionDeletes is 1,000,000 deleted rows: 10,000 of the first
// 20,000 rows of each of 100 data files, picked at random (a seeded
// generator), with paths as a table's writer names them.
func benchPositionDeletes() []FilePositions {
	rng := rand.New(rand.NewPCG(1, 2))
	deletes := make([]FilePositions, 100)
	for i := range deletes {
		bm := roaring64.New()
		for _, p := range rng.Perm(20_000)[:10_000] {
			bm.Add(uint64(p))
		}
		deletes[i] = FilePositions{
			FilePath:  fmt.Sprintf("s3://warehouse/db/events/data/event_day=2026-12-%02d/00000-%d-5f0c2a4e-8d1b-4c3a-9e7f-1a2b3c4d5e6f-00001.parquet", i%28+1, i),
			Positions: bm,
		}
	}
	return deletes
}

// BenchmarkWritePositionDeletes writes a position delete file of
// 1,000,000 rows (zstd, the default options) to the local disk.
func BenchmarkWritePositionDeletes(b *testing.B) {
	ctx := context.Background()
	deletes := benchPositionDeletes()
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		df, err := WritePositionDeletes(ctx, fileio.Local{}, filepath.Join(dir, fmt.Sprintf("pos-%d.parquet", i)), 0, nil, deletes, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		if df.RecordCount != 1_000_000 {
			b.Fatalf("%d rows", df.RecordCount)
		}
		b.ReportMetric(float64(df.FileSizeInBytes), "file-bytes")
	}
}

// BenchmarkWritePositionDeletesParquetGo is the baseline: the same rows
// through parquet-go's row writer, as position delete files were written
// before they moved onto floe's writer.
func BenchmarkWritePositionDeletesParquetGo(b *testing.B) {
	ctx := context.Background()
	sorted, total, err := sortedPositions(benchPositionDeletes())
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	codec, _ := DefaultOptions().codec()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		path := filepath.Join(dir, fmt.Sprintf("pos-%d.parquet", i))
		out, err := fileio.Local{}.Create(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		df, err := writePositionRowsParquetGo(out, path, sorted, total, parquet.Compression(codec))
		if err != nil {
			b.Fatal(err)
		}
		if err := out.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(df.FileSizeInBytes), "file-bytes")
	}
}

// parquetGoPositionSchema is the spec's position delete file schema. Its
// columns come out of parquet.Group sorted by name, which is the spec's
// order: file_path, pos.
var parquetGoPositionSchema = parquet.NewSchema("position_deletes", parquet.Group{
	"file_path": parquet.FieldID(parquet.Required(parquet.Encoded(parquet.String(), &parquet.RLEDictionary)), FieldIDDeleteFilePath),
	"pos":       parquet.FieldID(parquet.Required(parquet.Int(64)), FieldIDDeletePos),
})

const parquetGoPositionSchemaJSON = `{"type":"struct","schema-id":0,"fields":[` +
	`{"id":2147483546,"name":"file_path","required":true,"type":"string"},` +
	`{"id":2147483545,"name":"pos","required":true,"type":"long"}]}`

// writePositionRowsParquetGo writes the rows and returns the entry, less the
// partition.
func writePositionRowsParquetGo(out fileio.Writer, path string, sorted []FilePositions, total int64, codec parquet.WriterOption) (manifest.DataFile, error) {
	counter := &countingWriterParquetGo{w: out}
	pw := parquet.NewWriter(counter, parquetGoPositionSchema, codec,
		parquet.WriteBufferSize(0),
		parquet.CreatedBy("floe", createdByVersion, ""),
		parquet.KeyValueMetadata("iceberg.schema", parquetGoPositionSchemaJSON),
	)
	rows := make([]parquet.Row, 1024)
	values := make([]parquet.Value, 2*1024)
	for i := range rows {
		rows[i] = values[2*i : 2*i+2 : 2*i+2]
	}
	minPos, maxPos := int64(math.MaxInt64), int64(-1)
	batch := make([]uint64, 1024)
	for _, d := range sorted {
		pathValue := parquet.ByteArrayValue([]byte(d.FilePath)).Level(0, 0, 0)
		minPos = min(minPos, int64(d.Positions.Minimum()))
		maxPos = max(maxPos, int64(d.Positions.Maximum()))
		it := d.Positions.ManyIterator()
		for {
			n := it.NextMany(batch)
			if n == 0 {
				break
			}
			for i, p := range batch[:n] {
				rows[i][0] = pathValue
				rows[i][1] = parquet.Int64Value(int64(p)).Level(0, 0, 1)
			}
			if _, err := pw.WriteRows(rows[:n]); err != nil {
				return manifest.DataFile{}, err
			}
		}
	}
	if err := pw.Close(); err != nil {
		return manifest.DataFile{}, err
	}
	meta := pw.File().Metadata()
	if meta.NumRows != total {
		return manifest.DataFile{}, fmt.Errorf("footer counts %d rows, %d were written", meta.NumRows, total)
	}
	var pathSize, posSize int64
	var splits []int64
	for _, rg := range meta.RowGroups {
		pathSize += rg.Columns[0].MetaData.TotalCompressedSize
		posSize += rg.Columns[1].MetaData.TotalCompressedSize
		splits = append(splits, rg.FileOffset)
	}
	lowerPos, _ := iceberg.ValueToBytes(iceberg.LongType{}, minPos)
	upperPos, _ := iceberg.ValueToBytes(iceberg.LongType{}, maxPos)
	df := manifest.DataFile{
		Content:         manifest.ContentPositionDeletes,
		FilePath:        path,
		FileFormat:      "PARQUET",
		RecordCount:     total,
		FileSizeInBytes: counter.n,
		Metrics: manifest.MetricsOf(manifest.MetricMaps{
			ColumnSizes:     map[int]int64{FieldIDDeleteFilePath: pathSize, FieldIDDeletePos: posSize},
			ValueCounts:     map[int]int64{FieldIDDeleteFilePath: total, FieldIDDeletePos: total},
			NullValueCounts: map[int]int64{FieldIDDeleteFilePath: 0, FieldIDDeletePos: 0},
			LowerBounds:     map[int][]byte{FieldIDDeleteFilePath: []byte(sorted[0].FilePath), FieldIDDeletePos: lowerPos},
			UpperBounds:     map[int][]byte{FieldIDDeleteFilePath: []byte(sorted[len(sorted)-1].FilePath), FieldIDDeletePos: upperPos},
		}),
		SplitOffsets: splits,
	}
	if len(sorted) == 1 {
		df.ReferencedDataFile = sorted[0].FilePath
	}
	return df, nil
}

// countingWriterParquetGo counts the bytes that reach the file, which is what the
// footer's offsets are relative to.
type countingWriterParquetGo struct {
	w fileio.Writer
	n int64
}

func (c *countingWriterParquetGo) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
