package lineitem

import (
	"bytes"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/parquet-go/parquet-go/format"
)

// boundLength is how long string bounds may be: Iceberg's default metrics
// mode, truncate(16).
const boundLength = 16

// fileStats are the per-column lower and upper bounds of one file.
type fileStats struct {
	minInt, maxInt         [lastColumnID + 1]int64
	minFloat, maxFloat     [lastColumnID + 1]float64
	minFlag, maxFlag       uint8
	minDate, maxDate       int32
	minComment, maxComment []byte
	rows                   int64
}

func newFileStats() *fileStats {
	s := &fileStats{minFlag: math.MaxUint8, minDate: math.MaxInt32, maxDate: math.MinInt32}
	for i := range s.minInt {
		s.minInt[i], s.maxInt[i] = math.MaxInt64, math.MinInt64
		s.minFloat[i], s.maxFloat[i] = math.Inf(1), math.Inf(-1)
	}
	return s
}

func (s *fileStats) add(c *columns) {
	ints := map[int][]int64{IDOrderKey: c.orderKey, IDPartKey: c.partKey, IDSuppKey: c.suppKey, IDQuantity: c.quantity}
	for id, vs := range ints {
		for _, v := range vs {
			s.minInt[id] = min(s.minInt[id], v)
			s.maxInt[id] = max(s.maxInt[id], v)
		}
	}
	floats := map[int][]float64{IDExtendedPrice: c.extendedPrice, IDDiscount: c.discount}
	for id, vs := range floats {
		for _, v := range vs {
			s.minFloat[id] = min(s.minFloat[id], v)
			s.maxFloat[id] = max(s.maxFloat[id], v)
		}
	}
	for _, v := range c.returnFlag {
		s.minFlag, s.maxFlag = min(s.minFlag, v), max(s.maxFlag, v)
	}
	for _, v := range c.shipDate {
		s.minDate, s.maxDate = min(s.minDate, v), max(s.maxDate, v)
	}
	for i := range c.commentEnds {
		v := c.comment(i)
		if s.minComment == nil || bytes.Compare(v, s.minComment) < 0 {
			s.minComment = append(s.minComment[:0], v...)
		}
		if s.maxComment == nil || bytes.Compare(v, s.maxComment) > 0 {
			s.maxComment = append(s.maxComment[:0], v...)
		}
	}
	s.rows += int64(len(c.orderKey))
}

// metrics fills the data file's column metrics as Java's Parquet writer
// does: value and null counts for every column, NaN counts for floating
// point ones, column sizes from the footer, and bounds in the binary
// single-value form (strings truncated to 16 characters).
func (s *fileStats) metrics(df *manifest.DataFile, footer *format.FileMetaData) error {
	schema := Schema()
	var m manifest.MetricMaps
	m.ColumnSizes = map[int]int64{}
	m.ValueCounts = map[int]int64{}
	m.NullValueCounts = map[int]int64{}
	m.NaNValueCounts = map[int]int64{}
	m.LowerBounds = map[int][]byte{}
	m.UpperBounds = map[int][]byte{}
	for _, rg := range footer.RowGroups {
		if len(rg.Columns) != lastColumnID {
			return fmt.Errorf("row group has %d columns, want %d", len(rg.Columns), lastColumnID)
		}
		for i, cc := range rg.Columns {
			m.ColumnSizes[i+1] += cc.MetaData.TotalCompressedSize
		}
		df.SplitOffsets = append(df.SplitOffsets, rowGroupStart(&rg))
	}
	bound := func(id int, lower, upper any) error {
		t := schema.Fields[id-1].Type
		lo, err := iceberg.ValueToBytes(t, lower)
		if err != nil {
			return fmt.Errorf("lower bound of %s: %w", ColumnNames[id-1], err)
		}
		hi, err := iceberg.ValueToBytes(t, upper)
		if err != nil {
			return fmt.Errorf("upper bound of %s: %w", ColumnNames[id-1], err)
		}
		m.LowerBounds[id], m.UpperBounds[id] = lo, hi
		return nil
	}
	for id := 1; id <= lastColumnID; id++ {
		m.ValueCounts[id] = s.rows
		m.NullValueCounts[id] = 0
		var err error
		switch id {
		case IDOrderKey, IDPartKey, IDSuppKey:
			err = bound(id, s.minInt[id], s.maxInt[id])
		case IDQuantity:
			err = bound(id, iceberg.DecimalFromInt64(s.minInt[id], QuantityScale), iceberg.DecimalFromInt64(s.maxInt[id], QuantityScale))
		case IDExtendedPrice, IDDiscount:
			m.NaNValueCounts[id] = 0
			err = bound(id, s.minFloat[id], s.maxFloat[id])
		case IDReturnFlag:
			err = bound(id, returnFlags[s.minFlag], returnFlags[s.maxFlag])
		case IDShipDate:
			err = bound(id, s.minDate, s.maxDate)
		case IDComment:
			upper, ok := truncateUpper(string(s.maxComment), boundLength)
			if !ok {
				// No truncated upper bound exists; Java then leaves it out.
				m.LowerBounds[id], _ = iceberg.ValueToBytes(iceberg.StringType{}, truncateLower(string(s.minComment), boundLength))
				continue
			}
			err = bound(id, truncateLower(string(s.minComment), boundLength), upper)
		}
		if err != nil {
			return err
		}
	}
	df.Metrics = manifest.MetricsOf(m)
	return nil
}

// rowGroupStart is where a row group's first page begins: its first
// column's dictionary page when it has one.
func rowGroupStart(rg *format.RowGroup) int64 {
	md := &rg.Columns[0].MetaData
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < md.DataPageOffset {
		return md.DictionaryPageOffset
	}
	return md.DataPageOffset
}

// truncateLower keeps the first n characters: a prefix sorts no higher.
func truncateLower(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n])
}

// truncateUpper keeps the first n characters and increments the last one
// that can be, so the result still sorts above every value it bounds.
func truncateUpper(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, true
	}
	runes := []rune(s)[:n]
	for i := len(runes) - 1; i >= 0; i-- {
		next := runes[i] + 1
		if next == 0xD800 { // skip the surrogate range
			next = 0xE000
		}
		if next <= utf8.MaxRune {
			runes[i] = next
			return string(runes[:i+1]), true
		}
	}
	return "", false
}
