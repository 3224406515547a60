package writer

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/writer/parquetfile"
	"github.com/parquet-go/parquet-go/format"
)

// dataFile is one Parquet file being written: the page writer over a
// FileIO stream (nothing is visible at its path until it is finished), and
// the metrics of its rows so far.
type dataFile struct {
	path      string
	partition []any
	out       fileio.Writer
	pf        *parquetfile.File
	stats     []leafStats
	rows      int64
}

func newDataFile(out fileio.Writer, path string, partition []any, fs *fileSchema, config *parquetfile.Config) (*dataFile, error) {
	f := &dataFile{
		path:      path,
		partition: partition,
		out:       out,
		stats:     make([]leafStats, len(fs.leaves)),
	}
	pf, err := parquetfile.New(out, config)
	if err != nil {
		out.Abort()
		return nil, err
	}
	f.pf = pf
	return f, nil
}

// size estimates the file's length so far: bytes written plus the row
// group still buffered.
func (f *dataFile) size() int64 { return f.pf.Written() + f.pf.Buffered() }

// bufferedRowGroup is the estimated size of the row group being built.
func (f *dataFile) bufferedRowGroup() int64 { return f.pf.Buffered() }

// abort discards the file.
func (f *dataFile) abort() {
	f.pf.Abort()
	f.out.Abort()
}

// finish writes the footer, computes the file's entry and only then
// publishes the file, so a file that reaches its path is complete and has
// an entry; on error nothing is left behind.
func (f *dataFile) finish(fs *fileSchema, specID int, opts *Options) (manifest.DataFile, error) {
	df, err := f.entry(fs, specID, opts)
	if err != nil {
		f.out.Abort()
		return df, fmt.Errorf("writing %s: %w", f.path, err)
	}
	if err := f.out.Close(); err != nil {
		return df, fmt.Errorf("writing %s: %w", f.path, err)
	}
	return df, nil
}

func (f *dataFile) entry(fs *fileSchema, specID int, opts *Options) (manifest.DataFile, error) {
	meta, err := f.pf.Close()
	if err != nil {
		return manifest.DataFile{}, err
	}
	df := manifest.DataFile{
		Content:         manifest.ContentData,
		FilePath:        f.path,
		FileFormat:      "PARQUET",
		Partition:       f.partition,
		SpecID:          specID,
		RecordCount:     f.rows,
		FileSizeInBytes: f.pf.Written(),
	}
	if opts.SortOrderID != nil {
		id := *opts.SortOrderID
		df.SortOrderID = &id
	}
	if meta.NumRows != f.rows {
		return df, fmt.Errorf("footer counts %d rows, %d were written", meta.NumRows, f.rows)
	}
	for _, rg := range meta.RowGroups {
		df.SplitOffsets = append(df.SplitOffsets, rg.FileOffset)
	}
	if err := fillMetrics(&df, fs, f, meta.RowGroups); err != nil {
		return df, fmt.Errorf("metrics: %w", err)
	}
	return df, nil
}

// fillMetrics sets the column metrics of df from the leaves' statistics and
// the footer's column chunk sizes, as each column's metrics mode allows.
func fillMetrics(df *manifest.DataFile, fs *fileSchema, f *dataFile, rowGroups []format.RowGroup) error {
	var m manifest.MetricMaps
	for i, leaf := range fs.leaves {
		if inVariant, isMetadata := leaf.variantLeaf(); inVariant {
			if isMetadata {
				fillVariantMetrics(&m, fs, f, rowGroups, i)
			}
			continue
		}
		if !leaf.mode.counts() {
			continue
		}
		id := leaf.field.ID
		var size int64
		for _, rg := range rowGroups {
			size += rg.Columns[leaf.index].MetaData.TotalCompressedSize
		}
		st := &f.stats[i]
		setInt(&m.ColumnSizes, id, size)
		setInt(&m.ValueCounts, id, st.values)
		setInt(&m.NullValueCounts, id, st.nulls)
		switch leaf.field.Type.(type) {
		case iceberg.FloatType, iceberg.DoubleType:
			setInt(&m.NaNValueCounts, id, st.nans)
		}
		if !leaf.mode.bounds() || leaf.inRepeated {
			continue
		}
		if iceberg.IsGeo(leaf.field.Type) {
			if lb, ub, ok := geoBounds(leaf.field.Type, st.geo); ok {
				setBytes(&m.LowerBounds, id, lb)
				setBytes(&m.UpperBounds, id, ub)
			}
			continue
		}
		lower, upper := st.bounds(leaf.field.Type)
		if lower == nil {
			continue
		}
		lower, upper, hasUpper := truncateBounds(leaf.field.Type, lower, upper, leaf.mode.truncateLength())
		lb, err := iceberg.ValueToBytes(leaf.field.Type, lower)
		if err != nil {
			return fmt.Errorf("lower bound of %q: %w", leaf.field.Name, err)
		}
		setBytes(&m.LowerBounds, id, lb)
		if !hasUpper {
			continue
		}
		ub, err := iceberg.ValueToBytes(leaf.field.Type, upper)
		if err != nil {
			return fmt.Errorf("upper bound of %q: %w", leaf.field.Name, err)
		}
		setBytes(&m.UpperBounds, id, ub)
	}
	df.Metrics = manifest.MetricsOf(m)
	return nil
}

// truncateBounds cuts string and binary bounds to n (0: whole); other
// types, fixed included (as in Java), keep whole bounds.
func truncateBounds(t iceberg.Type, lower, upper any, n int) (lo, hi any, hasUpper bool) {
	if n <= 0 {
		return lower, upper, true
	}
	switch t.(type) {
	case iceberg.StringType:
		hi, ok := truncateUpperString(upper.(string), n)
		return truncateLowerString(lower.(string), n), hi, ok
	case iceberg.BinaryType:
		hi, ok := truncateUpperBinary(upper.([]byte), n)
		return truncateLowerBinary(lower.([]byte), n), hi, ok
	}
	return lower, upper, true
}

func setInt(m *map[int]int64, id int, v int64) {
	if *m == nil {
		*m = map[int]int64{}
	}
	(*m)[id] = v
}

func setBytes(m *map[int][]byte, id int, v []byte) {
	if *m == nil {
		*m = map[int][]byte{}
	}
	(*m)[id] = v
}
