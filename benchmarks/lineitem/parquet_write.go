package lineitem

import (
	"bufio"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// valueChunk is how many values go to a column writer per call: big
// enough to amortise the call, small enough to stay in cache.
const valueChunk = 8192

// dataFile is what writing one Parquet file produced.
type dataFile struct {
	path  string
	rows  int64
	stats *fileStats
}

// writeDataFile writes rowGroups row groups of rowsPerGroup rows each
// (the last file may be shorter: rows is the file's total) to path.
func writeDataFile(path string, g *generator, rows int64, rowGroups int) (_ *dataFile, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	buf := bufio.NewWriterSize(f, 1<<20)
	w := parquet.NewWriter(buf,
		parquet.SchemaOf(Row{}),
		parquet.Compression(&parquet.Snappy),
		parquet.DataPageVersion(1), // what Spark writes by default
		parquet.CreatedBy("floe-benchmarks", "lineitem", "1"),
	)
	stats := newFileStats()
	var cols columns
	vals := make([]parquet.Value, 0, valueChunk)
	written := int64(0)
	for rg := 0; rg < rowGroups; rg++ {
		n := int((rows - written) / int64(rowGroups-rg))
		g.fill(&cols, n)
		stats.add(&cols)
		writers := w.ColumnWriters()
		if len(writers) != lastColumnID {
			return nil, fmt.Errorf("parquet schema has %d columns, want %d", len(writers), lastColumnID)
		}
		for col, cw := range writers {
			for start := 0; start < n; start += valueChunk {
				end := min(start+valueChunk, n)
				vals = appendValues(vals[:0], &cols, col, start, end)
				if _, err := cw.WriteRowValues(vals); err != nil {
					return nil, fmt.Errorf("%s: column %s: %w", path, ColumnNames[col], err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			return nil, fmt.Errorf("%s: row group %d: %w", path, rg, err)
		}
		written += int64(n)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := buf.Flush(); err != nil {
		return nil, err
	}
	return &dataFile{path: path, rows: written, stats: stats}, nil
}

// appendValues appends rows [start, end) of column col as parquet values
// of an optional column (definition level 1: present).
func appendValues(dst []parquet.Value, c *columns, col, start, end int) []parquet.Value {
	level := func(v parquet.Value) parquet.Value { return v.Level(0, 1, col) }
	for i := start; i < end; i++ {
		var v parquet.Value
		switch col + 1 {
		case IDOrderKey:
			v = parquet.Int64Value(c.orderKey[i])
		case IDPartKey:
			v = parquet.Int64Value(c.partKey[i])
		case IDSuppKey:
			v = parquet.Int64Value(c.suppKey[i])
		case IDQuantity:
			v = parquet.Int64Value(c.quantity[i])
		case IDExtendedPrice:
			v = parquet.DoubleValue(c.extendedPrice[i])
		case IDDiscount:
			v = parquet.DoubleValue(c.discount[i])
		case IDReturnFlag:
			v = parquet.ByteArrayValue(returnFlagBytes[c.returnFlag[i]])
		case IDShipDate:
			v = parquet.Int32Value(c.shipDate[i])
		case IDComment:
			v = parquet.ByteArrayValue(c.comment(i))
		}
		dst = append(dst, level(v))
	}
	return dst
}
