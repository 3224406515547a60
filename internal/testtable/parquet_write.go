package testtable

import (
	"bufio"
	"fmt"
	"os"

	"github.com/floedb/floe/iceberg"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// writtenFile is what writing one data file produced.
type writtenFile struct {
	path      string
	rows      []int
	rowGroups []int
	partition []any
	size      int64
	footer    *format.FileMetaData
	// leafOf maps a field id to its column index in the Parquet schema,
	// which parquet-go orders by name.
	leafOf map[int]int
}

// parquetSchema is the Parquet schema of a table schema: every column with
// its field id, the logical type Iceberg's spec maps it to and an encoding
// that varies with the type, so files exercise several decoders:
// dictionaries for int and string, delta binary packing for long, PLAIN
// for the rest.
func parquetSchema(schema *iceberg.Schema, withoutIDs bool) (*parquet.Schema, error) {
	group := parquet.Group{}
	for _, f := range schema.Fields {
		node, err := parquetNode(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		if f.Required {
			node = parquet.Required(node)
		} else {
			node = parquet.Optional(node)
		}
		if !withoutIDs {
			node = parquet.FieldID(node, f.ID)
		}
		group[f.Name] = node
	}
	return parquet.NewSchema("table", group), nil
}

func parquetNode(t iceberg.Type) (parquet.Node, error) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return parquet.Leaf(parquet.BooleanType), nil
	case iceberg.IntType:
		return parquet.Encoded(parquet.Int(32), &parquet.RLEDictionary), nil
	case iceberg.LongType:
		return parquet.Encoded(parquet.Int(64), &parquet.DeltaBinaryPacked), nil
	case iceberg.FloatType:
		return parquet.Leaf(parquet.FloatType), nil
	case iceberg.DoubleType:
		return parquet.Leaf(parquet.DoubleType), nil
	case iceberg.DateType:
		return parquet.Date(), nil
	case iceberg.TimestampType:
		return parquet.TimestampAdjusted(parquet.Microsecond, false), nil
	case iceberg.TimestamptzType:
		return parquet.TimestampAdjusted(parquet.Microsecond, true), nil
	case iceberg.StringType:
		return parquet.Encoded(parquet.String(), &parquet.RLEDictionary), nil
	case iceberg.UUIDType:
		return parquet.UUID(), nil
	case iceberg.BinaryType:
		return parquet.Leaf(parquet.ByteArrayType), nil
	case iceberg.DecimalType:
		switch {
		case t.Precision <= 9:
			return parquet.Decimal(t.Scale, t.Precision, parquet.Int32Type), nil
		case t.Precision <= 18:
			return parquet.Decimal(t.Scale, t.Precision, parquet.Int64Type), nil
		}
		return parquet.Decimal(t.Scale, t.Precision, parquet.FixedLenByteArrayType(decimalBytes(t.Precision))), nil
	}
	return nil, fmt.Errorf("type %s is not supported", t)
}

// decimalBytes is the fewest bytes whose two's complement holds every
// unscaled value of the precision, the length Spark and Java use.
func decimalBytes(precision int) int {
	limit := decimalLimit(precision)
	for n := 1; ; n++ {
		if n*8-1 >= limit.BitLen() {
			return n
		}
	}
}

// parquetValue is one non-null value as parquet-go takes it.
func parquetValue(t iceberg.Type, v any) (parquet.Value, error) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return parquet.BooleanValue(v.(bool)), nil
	case iceberg.IntType, iceberg.DateType:
		return parquet.Int32Value(v.(int32)), nil
	case iceberg.LongType, iceberg.TimestampType, iceberg.TimestamptzType:
		return parquet.Int64Value(v.(int64)), nil
	case iceberg.FloatType:
		return parquet.FloatValue(v.(float32)), nil
	case iceberg.DoubleType:
		return parquet.DoubleValue(v.(float64)), nil
	case iceberg.StringType:
		return parquet.ByteArrayValue([]byte(v.(string))), nil
	case iceberg.BinaryType:
		return parquet.ByteArrayValue(v.([]byte)), nil
	case iceberg.UUIDType:
		u := v.([16]byte)
		return parquet.FixedLenByteArrayValue(u[:]), nil
	case iceberg.DecimalType:
		d := v.(iceberg.Decimal)
		if t.Precision <= 18 {
			n, ok := d.Int64()
			if !ok {
				return parquet.Value{}, fmt.Errorf("decimal %s does not fit %s", d, t)
			}
			if t.Precision <= 9 {
				return parquet.Int32Value(int32(n)), nil
			}
			return parquet.Int64Value(n), nil
		}
		return parquet.FixedLenByteArrayValue(decimalFixedBytes(d, decimalBytes(t.Precision))), nil
	}
	return parquet.Value{}, fmt.Errorf("type %s is not supported", t)
}

// decimalFixedBytes is the big-endian two's complement of d's unscaled
// value in n bytes.
func decimalFixedBytes(d iceberg.Decimal, n int) []byte {
	var full [16]byte
	for i := 0; i < 8; i++ {
		full[i] = byte(uint64(d.Hi) >> (56 - 8*i))
		full[8+i] = byte(d.Lo >> (56 - 8*i))
	}
	return append([]byte(nil), full[16-n:]...)
}

// pageRows is the rows per page of the table's column c.
func pageRows(perPage, c int) int {
	return max(1, perPage*(2+c%3)/2)
}

// writeDataFile writes the given rows to path, o.RowsPerRowGroup rows per
// row group, and reads its footer back.
func writeDataFile(path string, o *Options, rows []int) (_ *writtenFile, err error) {
	ps, err := parquetSchema(o.Schema, o.WithoutFieldIDs)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	buf := bufio.NewWriter(f)
	w := parquet.NewWriter(buf, ps,
		parquet.Compression(&parquet.Snappy),
		parquet.DataPageVersion(o.DataPageVersion),
		// A page buffer this small makes every WriteRowValues call one
		// page, so pages are cut where pageRows says.
		parquet.PageBufferSize(1),
		parquet.CreatedBy("floe-testtable", "1", "test"),
	)
	wf := &writtenFile{path: path, rows: rows, leafOf: map[int]int{}}
	columnOf := map[string]int{}
	for c, field := range o.Schema.Fields {
		columnOf[field.Name] = c
	}
	leaves := ps.Columns()
	for leaf, p := range leaves {
		c, ok := columnOf[p[0]]
		if !ok || len(p) != 1 {
			return nil, fmt.Errorf("parquet column %v is not a table column", p)
		}
		wf.leafOf[o.Schema.Fields[c].ID] = leaf
	}
	var vals []parquet.Value
	for start := 0; start < len(rows); start += o.RowsPerRowGroup {
		group := rows[start:min(start+o.RowsPerRowGroup, len(rows))]
		writers := w.ColumnWriters()
		for leaf, p := range leaves {
			c := columnOf[p[0]]
			field := o.Schema.Fields[c]
			vals = vals[:0]
			for _, r := range group {
				v := o.Rows[r][c]
				if v == nil {
					vals = append(vals, parquet.NullValue().Level(0, 0, leaf))
					continue
				}
				pv, err := parquetValue(field.Type, v)
				if err != nil {
					return nil, fmt.Errorf("row %d, column %s: %w", r, field.Name, err)
				}
				def := 1
				if field.Required {
					def = 0
				}
				vals = append(vals, pv.Level(0, def, leaf))
			}
			step := pageRows(o.RowsPerPage, c)
			for from := 0; from < len(vals); from += step {
				if _, err := writers[leaf].WriteRowValues(vals[from:min(from+step, len(vals))]); err != nil {
					return nil, fmt.Errorf("column %s: %w", field.Name, err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
		wf.rowGroups = append(wf.rowGroups, len(group))
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if err := buf.Flush(); err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	wf.size = info.Size()
	if wf.footer, err = readFooter(path, wf.size); err != nil {
		return nil, err
	}
	if len(wf.footer.RowGroups) != len(wf.rowGroups) || wf.footer.NumRows != int64(len(rows)) {
		return nil, fmt.Errorf("footer has %d row groups and %d rows, %d and %d were written",
			len(wf.footer.RowGroups), wf.footer.NumRows, len(wf.rowGroups), len(rows))
	}
	return wf, nil
}

func readFooter(path string, size int64) (*format.FileMetaData, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	return pf.Metadata(), nil
}
