package main

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	goiceberg "github.com/apache/iceberg-go"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/writer"
)

// commitRows is the size of every small append.
const commitRows = 100

// commitSchema is the small tables' schema: a key, a string, a double and
// a timestamp, so each data file carries metrics of several kinds.
func commitSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "category", Type: iceberg.StringType{}},
		{ID: 3, Name: "amount", Type: iceberg.DoubleType{}},
		{ID: 4, Name: "ts", Type: iceberg.TimestampType{}},
	})
}

func commitArrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "category", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	}, nil)
}

// icebergGoCommitSchema is commitSchema in iceberg-go's types, converted
// through the spec's JSON so both peers create the same table.
func icebergGoCommitSchema() (*goiceberg.Schema, error) {
	data, err := commitSchema().MarshalJSON()
	if err != nil {
		return nil, err
	}
	var s goiceberg.Schema
	if err := s.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("iceberg-go schema from %s: %w", data, err)
	}
	return &s, nil
}

// commitBatch is the n-th append's rows: ids n*commitRows on, the other
// columns derived from the id.
func commitBatch(n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, commitArrowSchema())
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	cats := b.Field(1).(*array.StringBuilder)
	amounts := b.Field(2).(*array.Float64Builder)
	ts := b.Field(3).(*array.TimestampBuilder)
	const base = int64(1_717_200_000_000_000) // 2024-06-01 in microseconds
	for i := range commitRows {
		id := int64(n*commitRows + i)
		ids.Append(id)
		cats.Append(fmt.Sprintf("cat-%d", id%17))
		amounts.Append(float64(id%1000) * 1.25)
		ts.Append(arrow.Timestamp(base + id*1_000_000))
	}
	return b.NewRecordBatch()
}

// commitFixture is what the runs share: the batches the write+commit runs
// append, and data files written once beforehand that the commit-only
// runs append, as floe entries and as iceberg-go DataFiles of the same
// files (iceberg-go's AddDataFiles does not open them).
type commitFixture struct {
	batches  []arrow.RecordBatch
	tables   []arrow.Table // the batches as iceberg-go's AppendTable takes them
	staged   []manifest.DataFile
	stagedGo []goiceberg.DataFile
}

func newCommitFixture(ctx context.Context, dir string, batches, files int) (*commitFixture, error) {
	f := &commitFixture{}
	for n := range batches {
		rec := commitBatch(n)
		f.batches = append(f.batches, rec)
		f.tables = append(f.tables, array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec}))
	}
	schema := commitSchema()
	for n := range files {
		rec := commitBatch(n)
		written, err := writeBatch(ctx, fileio.Local{}, dir, schema, rec)
		rec.Release()
		if err != nil {
			f.release()
			return nil, err
		}
		for _, df := range written {
			gdf, err := icebergGoDataFile(df)
			if err != nil {
				f.release()
				return nil, err
			}
			f.staged, f.stagedGo = append(f.staged, df), append(f.stagedGo, gdf)
		}
	}
	if len(f.staged) != files {
		f.release()
		return nil, fmt.Errorf("staging wrote %d data files, want %d", len(f.staged), files)
	}
	return f, nil
}

func (f *commitFixture) release() {
	for _, t := range f.tables {
		t.Release()
	}
	for _, b := range f.batches {
		b.Release()
	}
	f.tables, f.batches = nil, nil
}

// writeBatch writes one batch with floe's writer (unpartitioned, default
// options) and returns its data files, uncommitted.
func writeBatch(ctx context.Context, files fileio.FileIO, dataDir string, schema *iceberg.Schema, rec arrow.RecordBatch) ([]manifest.DataFile, error) {
	w, err := writer.New(ctx, files, dataDir, schema, nil, writer.DefaultOptions())
	if err != nil {
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		w.Abort()
		return nil, err
	}
	return w.Close()
}

// icebergGoDataFile is a floe data file entry, metrics and all, as
// iceberg-go's DataFile, so both peers commit the same manifest content.
func icebergGoDataFile(df manifest.DataFile) (goiceberg.DataFile, error) {
	b, err := goiceberg.NewDataFileBuilder(*goiceberg.UnpartitionedSpec, goiceberg.EntryContentData, df.FilePath, goiceberg.ParquetFile,
		nil, nil, nil, df.RecordCount, df.FileSizeInBytes)
	if err != nil {
		return nil, err
	}
	m := df.Metrics.Maps()
	b.ColumnSizes(m.ColumnSizes).ValueCounts(m.ValueCounts).NullValueCounts(m.NullValueCounts).
		LowerBoundValues(m.LowerBounds).UpperBoundValues(m.UpperBounds).SplitOffsets(df.SplitOffsets)
	if m.NaNValueCounts != nil {
		b.NaNValueCounts(m.NaNValueCounts)
	}
	return b.Build(), nil
}
