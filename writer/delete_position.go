package writer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/parquet-go/parquet-go"
)

// Reserved field ids of a position delete file's columns (spec: "Reserved
// Field IDs").
const (
	FieldIDDeleteFilePath = 2147483546
	FieldIDDeletePos      = 2147483545
)

// FilePositions are deleted rows of one data file: its path as the
// table's manifests write it and the rows' 0-based positions.
type FilePositions struct {
	FilePath  string
	Positions *roaring64.Bitmap
}

// positionDeleteSchema is the spec's position delete file schema. Its
// columns come out of parquet.Group sorted by name, which is the spec's
// order: file_path, pos.
var positionDeleteSchema = parquet.NewSchema("position_deletes", parquet.Group{
	"file_path": parquet.FieldID(parquet.Required(parquet.Encoded(parquet.String(), &parquet.RLEDictionary)), FieldIDDeleteFilePath),
	"pos":       parquet.FieldID(parquet.Required(parquet.Int(64)), FieldIDDeletePos),
})

// positionDeleteSchemaJSON is the Iceberg schema written into the file's
// key-value metadata, as Java does.
const positionDeleteSchemaJSON = `{"type":"struct","schema-id":0,"fields":[` +
	`{"id":2147483546,"name":"file_path","required":true,"type":"string"},` +
	`{"id":2147483545,"name":"pos","required":true,"type":"long"}]}`

// positionRowsPerWrite is how many rows are handed to parquet-go at once.
const positionRowsPerWrite = 1024

// WritePositionDeletes writes a position delete file (format v2) at path
// and returns its manifest entry in the given partition spec and
// partition, which must be those of the data files it deletes from. Rows
// are sorted by file path, then position, as the spec requires; entries
// for the same data file are merged. The entry has full metrics (counts,
// column sizes, untruncated bounds on file_path and pos) so planners can
// match it to data files, and referenced_data_file when it deletes from a
// single data file. Only opts' codec and compression level are used.
func WritePositionDeletes(ctx context.Context, files fileio.FileIO, path string, specID int, partition []any, deletes []FilePositions, opts Options) (manifest.DataFile, error) {
	sorted, total, err := sortedPositions(deletes)
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("position deletes %s: %w", path, err)
	}
	opts, err = opts.withDefaults()
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("position deletes %s: %w", path, err)
	}
	codec, _ := opts.codec()
	out, err := files.Create(ctx, path)
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("position deletes: %w", err)
	}
	df, err := writePositionRows(out, path, sorted, total, parquet.Compression(codec))
	if err != nil {
		_ = out.Abort()
		return manifest.DataFile{}, fmt.Errorf("position deletes %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return manifest.DataFile{}, fmt.Errorf("position deletes %s: %w", path, err)
	}
	df.SpecID, df.Partition = specID, partition
	return df, nil
}

// sortedPositions orders the deletes by path, merging those of one path,
// drops empty ones and counts the positions.
func sortedPositions(deletes []FilePositions) ([]FilePositions, int64, error) {
	sorted := make([]FilePositions, 0, len(deletes))
	for _, d := range deletes {
		if d.FilePath == "" {
			return nil, 0, errors.New("a data file with an empty path")
		}
		if d.Positions == nil || d.Positions.IsEmpty() {
			continue
		}
		if d.Positions.Maximum() > math.MaxInt64 {
			return nil, 0, fmt.Errorf("position %d of %s is out of range", d.Positions.Maximum(), d.FilePath)
		}
		sorted = append(sorted, d)
	}
	slices.SortStableFunc(sorted, func(a, b FilePositions) int { return strings.Compare(a.FilePath, b.FilePath) })
	merged := sorted[:0]
	for _, d := range sorted {
		if n := len(merged); n > 0 && merged[n-1].FilePath == d.FilePath {
			merged[n-1].Positions = roaring64.Or(merged[n-1].Positions, d.Positions)
			continue
		}
		merged = append(merged, d)
	}
	var total int64
	for _, d := range merged {
		total += int64(d.Positions.GetCardinality())
	}
	if total == 0 {
		return nil, 0, errors.New("no positions to delete")
	}
	return merged, total, nil
}

// writePositionRows writes the rows and returns the entry, less the
// partition.
func writePositionRows(out fileio.Writer, path string, sorted []FilePositions, total int64, codec parquet.WriterOption) (manifest.DataFile, error) {
	counter := &countingWriter{w: out}
	pw := parquet.NewWriter(counter, positionDeleteSchema, codec,
		parquet.WriteBufferSize(0),
		parquet.CreatedBy("floe", createdByVersion, ""),
		parquet.KeyValueMetadata("iceberg.schema", positionDeleteSchemaJSON),
	)
	rows := make([]parquet.Row, positionRowsPerWrite)
	values := make([]parquet.Value, 2*positionRowsPerWrite)
	for i := range rows {
		rows[i] = values[2*i : 2*i+2 : 2*i+2]
	}
	minPos, maxPos := int64(math.MaxInt64), int64(-1)
	batch := make([]uint64, positionRowsPerWrite)
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

// countingWriter counts the bytes that reach the file, which is what the
// footer's offsets are relative to.
type countingWriter struct {
	w fileio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
