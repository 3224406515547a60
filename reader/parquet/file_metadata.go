package parquet

import (
	"fmt"

	"github.com/floedb/floe/errkind"
)

// KeyValue is one entry of the footer's key/value metadata.
type KeyValue struct {
	Key, Value string
	// HasValue is false when the writer stored the key alone.
	HasValue bool
}

// RowGroup describes one row group of the file.
type RowGroup struct {
	Index         int
	NumRows       int64
	TotalByteSize int64
	// FileOffset is where the row group starts (0 when the writer did not say).
	FileOffset int64
	// Columns holds one chunk per leaf, in File.Leaves order.
	Columns []ColumnChunk
}

// ColumnChunk describes one leaf's data within a row group.
type ColumnChunk struct {
	// Path is path_in_schema as the writer stored it.
	Path                  []string
	Physical              PhysicalType
	Codec                 Codec
	Encodings             []Encoding
	NumValues             int64
	TotalUncompressedSize int64
	TotalCompressedSize   int64
	DataPageOffset        int64
	// DictionaryPageOffset is 0 when there is no dictionary page.
	DictionaryPageOffset int64
	// FilePath is set when the chunk lives in another file (unsupported).
	FilePath string
	// Statistics is nil when the writer stored none.
	Statistics *Statistics
	// OffsetIndexOffset/Length and ColumnIndexOffset/Length locate the page
	// index; a length of 0 means absent.
	OffsetIndexOffset, ColumnIndexOffset int64
	OffsetIndexLength, ColumnIndexLength int32
	BloomFilterOffset                    int64
	BloomFilterLength                    int32
	// EncodingStats counts pages by type and encoding; nil when the writer
	// stored none (it tells whether every data page uses the dictionary).
	EncodingStats []PageEncodingStats
	// UnknownColumnOrder: the footer's column_orders gives this column an
	// order this reader does not know, so min_value/max_value and the
	// column index must not be used.
	UnknownColumnOrder bool
}

// PageEncodingStats is one entry of ColumnMetaData.encoding_stats.
type PageEncodingStats struct {
	// PageType is 0 data page, 1 index page, 2 dictionary page, 3 data
	// page v2, as in the format.
	PageType int32
	Encoding Encoding
	Count    int32
}

// Start is the file offset of the chunk's first page.
func (c *ColumnChunk) Start() int64 {
	if c.DictionaryPageOffset > 0 && c.DictionaryPageOffset < c.DataPageOffset {
		return c.DictionaryPageOffset
	}
	return c.DataPageOffset
}

// Statistics are a chunk's min/max/null counts as stored: values are in the
// column's PLAIN encoding (byte arrays without the length prefix).
type Statistics struct {
	// Min and Max come from min_value/max_value, whose order is the
	// column's logical sort order.
	Min, Max       []byte
	HasMin, HasMax bool
	// LegacyMin and LegacyMax come from the deprecated min/max fields, which
	// old writers filled using signed byte-wise order; trust them only for
	// types whose order that is.
	LegacyMin, LegacyMax       []byte
	HasLegacyMin, HasLegacyMax bool
	NullCount                  int64
	HasNullCount               bool
	DistinctCount              int64
	HasDistinctCount           bool
	IsMinExact, IsMaxExact     bool
}

type schemaElement struct {
	physical      PhysicalType
	typeLength    int32
	repetition    Repetition
	hasRepetition bool
	name          string
	numChildren   int32
	converted     ConvertedType
	scale         int32
	precision     int32
	fieldID       int32
	hasFieldID    bool
	logical       LogicalType
	hasLogical    bool
}

type fileMetaData struct {
	version   int32
	schema    []schemaElement
	numRows   int64
	rowGroups []RowGroup
	kv        []KeyValue
	createdBy string
}

func parseFileMetaData(buf []byte) (*fileMetaData, error) {
	r := &ThriftReader{Buf: buf}
	md := &fileMetaData{}
	arena := &chunkArena{}
	var unknownOrders []int
	err := r.readStruct(func(id int16, typ byte) error {
		switch {
		case id == 1 && expect(typ, thriftI32):
			v, err := r.i32()
			md.version = v
			return err
		case id == 2 && expect(typ, thriftList):
			_, n, err := r.listHeader()
			if err != nil {
				return err
			}
			md.schema = make([]schemaElement, 0, min(n, 1024))
			for i := range n {
				md.schema = append(md.schema, schemaElement{})
				if err := parseSchemaElement(r, &md.schema[i]); err != nil {
					return fmt.Errorf("schema element %d: %w", i, err)
				}
			}
			return nil
		case id == 3 && expect(typ, thriftI64):
			v, err := r.i64()
			md.numRows = v
			return err
		case id == 4 && expect(typ, thriftList):
			_, n, err := r.listHeader()
			if err != nil {
				return err
			}
			md.rowGroups = make([]RowGroup, 0, min(n, 1024))
			for i := range n {
				md.rowGroups = append(md.rowGroups, RowGroup{Index: i})
				if err := parseRowGroup(r, &md.rowGroups[i], arena); err != nil {
					return fmt.Errorf("row group %d: %w", i, err)
				}
			}
			return nil
		case id == 5 && expect(typ, thriftList):
			kv, err := parseKeyValues(r)
			md.kv = kv
			return err
		case id == 6 && expect(typ, thriftBinary):
			s, err := r.str()
			md.createdBy = s
			return err
		case id == 7 && expect(typ, thriftList):
			var err error
			unknownOrders, err = parseColumnOrders(r)
			return err
		}
		return r.skip(typ)
	})
	if err != nil {
		return nil, fmt.Errorf("parquet footer: %w", err)
	}
	for _, leaf := range unknownOrders {
		for i := range md.rowGroups {
			if cols := md.rowGroups[i].Columns; leaf < len(cols) {
				cols[leaf].UnknownColumnOrder = true
			}
		}
	}
	return md, nil
}

// parseColumnOrders returns the leaves whose ColumnOrder is neither
// TYPE_ORDER (1) nor IEEE_754_TOTAL_ORDER (2), the members this reader
// knows.
func parseColumnOrders(r *ThriftReader) ([]int, error) {
	_, n, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	var unknown []int
	for i := range n {
		known := false
		err := r.readStruct(func(id int16, typ byte) error {
			if (id == 1 || id == 2) && typ == thriftStruct {
				known = true
			}
			return r.skip(typ)
		})
		if err != nil {
			return nil, err
		}
		if !known {
			unknown = append(unknown, i)
		}
	}
	return unknown, nil
}

func parseKeyValues(r *ThriftReader) ([]KeyValue, error) {
	_, n, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	kvs := make([]KeyValue, 0, min(n, 1024))
	for i := range n {
		kvs = append(kvs, KeyValue{})
		kv := &kvs[i]
		err := r.readStruct(func(id int16, typ byte) error {
			switch {
			case id == 1 && expect(typ, thriftBinary):
				s, err := r.str()
				kv.Key = s
				return err
			case id == 2 && expect(typ, thriftBinary):
				s, err := r.str()
				kv.Value, kv.HasValue = s, true
				return err
			}
			return r.skip(typ)
		})
		if err != nil {
			return nil, err
		}
	}
	return kvs, nil
}

func parseSchemaElement(r *ThriftReader, e *schemaElement) error {
	e.physical = NoPhysicalType
	e.converted = ConvertedNone
	return r.readStruct(func(id int16, typ byte) error {
		var v int32
		var err error
		switch id {
		case 1, 2, 3, 5, 6, 7, 8, 9:
			if !expect(typ, thriftI32) {
				return r.skip(typ)
			}
			if v, err = r.i32(); err != nil {
				return err
			}
		case 4:
			if !expect(typ, thriftBinary) {
				return r.skip(typ)
			}
			e.name, err = r.str()
			return err
		case 10:
			if !expect(typ, thriftStruct) {
				return r.skip(typ)
			}
			e.hasLogical = true
			return parseLogicalType(r, &e.logical)
		default:
			return r.skip(typ)
		}
		switch id {
		case 1:
			if v < 0 || v > int32(FixedLenByteArray) {
				return fmt.Errorf("unknown physical type %d", v)
			}
			e.physical = PhysicalType(v)
		case 2:
			e.typeLength = v
		case 3:
			if v < 0 || v > int32(Repeated) {
				return fmt.Errorf("unknown repetition %d", v)
			}
			e.repetition, e.hasRepetition = Repetition(v), true
		case 5:
			e.numChildren = v
		case 6:
			if v >= 0 && v <= int32(ConvertedInterval) {
				e.converted = ConvertedType(v)
			}
		case 7:
			e.scale = v
		case 8:
			e.precision = v
		case 9:
			e.fieldID, e.hasFieldID = v, true
		}
		return nil
	})
}

func parseTimeUnit(r *ThriftReader, unit *TimeUnit) error {
	return r.readStruct(func(id int16, typ byte) error {
		switch id {
		case 1:
			*unit = Millis
		case 2:
			*unit = Micros
		case 3:
			*unit = Nanos
		}
		return r.skip(typ)
	})
}

// parseLogicalType reads the LogicalType union. Members this reader does not
// know become LogicalUnrecognized, so newer writers stay readable.
func parseLogicalType(r *ThriftReader, l *LogicalType) error {
	return r.readStruct(func(id int16, typ byte) error {
		if typ != thriftStruct {
			return r.skip(typ)
		}
		switch id {
		case 1:
			l.Kind = LogicalString
		case 2:
			l.Kind = LogicalMap
		case 3:
			l.Kind = LogicalList
		case 4:
			l.Kind = LogicalEnum
		case 5:
			l.Kind = LogicalDecimal
			return r.readStruct(func(id int16, typ byte) error {
				if (id == 1 || id == 2) && expect(typ, thriftI32) {
					v, err := r.i32()
					if id == 1 {
						l.Scale = v
					} else {
						l.Precision = v
					}
					return err
				}
				return r.skip(typ)
			})
		case 6:
			l.Kind = LogicalDate
		case 7, 8:
			l.Kind = LogicalTime
			if id == 8 {
				l.Kind = LogicalTimestamp
			}
			return r.readStruct(func(id int16, typ byte) error {
				switch {
				case id == 1 && expect(typ, thriftTrue):
					l.AdjustedToUTC = boolField(typ)
					return nil
				case id == 2 && typ == thriftStruct:
					return parseTimeUnit(r, &l.Unit)
				}
				return r.skip(typ)
			})
		case 9:
			l.Kind = LogicalInterval
		case 10:
			l.Kind = LogicalInteger
			return r.readStruct(func(id int16, typ byte) error {
				switch {
				case id == 1 && expect(typ, thriftByte):
					b, err := r.byte1()
					l.BitWidth = int8(b)
					return err
				case id == 2 && expect(typ, thriftTrue):
					l.Signed = boolField(typ)
					return nil
				}
				return r.skip(typ)
			})
		case 11:
			l.Kind = LogicalUnknown
		case 12:
			l.Kind = LogicalJSON
		case 13:
			l.Kind = LogicalBSON
		case 14:
			l.Kind = LogicalUUID
		case 15:
			l.Kind = LogicalFloat16
		case 16:
			l.Kind = LogicalVariant
		case 17:
			l.Kind = LogicalGeometry
		case 18:
			l.Kind = LogicalGeography
		default:
			l.Kind = LogicalUnrecognized
		}
		return r.skip(typ)
	})
}

func parseRowGroup(r *ThriftReader, rg *RowGroup, arena *chunkArena) error {
	return r.readStruct(func(id int16, typ byte) error {
		switch {
		case id == 1 && expect(typ, thriftList):
			_, n, err := r.listHeader()
			if err != nil {
				return err
			}
			rg.Columns = make([]ColumnChunk, 0, min(n, 1024))
			for i := range n {
				rg.Columns = append(rg.Columns, ColumnChunk{})
				if err := parseColumnChunk(r, &rg.Columns[i], arena); err != nil {
					return fmt.Errorf("column %d: %w", i, err)
				}
			}
			return nil
		case id == 2 && expect(typ, thriftI64):
			v, err := r.i64()
			rg.TotalByteSize = v
			return err
		case id == 3 && expect(typ, thriftI64):
			v, err := r.i64()
			rg.NumRows = v
			return err
		case id == 5 && expect(typ, thriftI64):
			v, err := r.i64()
			rg.FileOffset = v
			return err
		}
		return r.skip(typ)
	})
}

func parseColumnChunk(r *ThriftReader, c *ColumnChunk, arena *chunkArena) error {
	return r.readStruct(func(id int16, typ byte) error {
		var err error
		switch {
		case id == 1 && expect(typ, thriftBinary):
			c.FilePath, err = r.str()
		case id == 3 && expect(typ, thriftStruct):
			err = parseColumnMetaData(r, c, arena)
		case id == 4 && expect(typ, thriftI64):
			c.OffsetIndexOffset, err = r.i64()
		case id == 5 && expect(typ, thriftI32):
			c.OffsetIndexLength, err = r.i32()
		case id == 6 && expect(typ, thriftI64):
			c.ColumnIndexOffset, err = r.i64()
		case id == 7 && expect(typ, thriftI32):
			c.ColumnIndexLength, err = r.i32()
		case id == 8 || id == 9:
			return errkind.Errorf(errkind.Unsupported, "encrypted column chunks are not supported")
		default:
			err = r.skip(typ)
		}
		return err
	})
}

func parseColumnMetaData(r *ThriftReader, c *ColumnChunk, arena *chunkArena) error {
	c.Physical = NoPhysicalType
	return r.readStruct(func(id int16, typ byte) error {
		var err error
		var v int32
		switch {
		case id == 1 && expect(typ, thriftI32):
			if v, err = r.i32(); err == nil {
				if v < 0 || v > int32(FixedLenByteArray) {
					return fmt.Errorf("unknown physical type %d", v)
				}
				c.Physical = PhysicalType(v)
			}
		case id == 2 && expect(typ, thriftList):
			var n int
			if _, n, err = r.listHeader(); err != nil {
				return err
			}
			c.Encodings = carve(&arena.encodings, n)
			for range n {
				if v, err = r.i32(); err != nil {
					return err
				}
				c.Encodings = append(c.Encodings, Encoding(v))
			}
		case id == 3 && expect(typ, thriftList):
			var n int
			if _, n, err = r.listHeader(); err != nil {
				return err
			}
			c.Path = carve(&arena.paths, n)
			for range n {
				var b []byte
				if b, err = r.binary(); err != nil {
					return err
				}
				c.Path = append(c.Path, arena.name(b))
			}
		case id == 4 && expect(typ, thriftI32):
			v, err = r.i32()
			c.Codec = Codec(v)
		case id == 5 && expect(typ, thriftI64):
			c.NumValues, err = r.i64()
		case id == 6 && expect(typ, thriftI64):
			c.TotalUncompressedSize, err = r.i64()
		case id == 7 && expect(typ, thriftI64):
			c.TotalCompressedSize, err = r.i64()
		case id == 9 && expect(typ, thriftI64):
			c.DataPageOffset, err = r.i64()
		case id == 11 && expect(typ, thriftI64):
			c.DictionaryPageOffset, err = r.i64()
		case id == 12 && expect(typ, thriftStruct):
			c.Statistics = arena.statistics()
			err = parseStatistics(r, c.Statistics)
		case id == 13 && expect(typ, thriftList):
			c.EncodingStats, err = parseEncodingStats(r, arena)
		case id == 14 && expect(typ, thriftI64):
			c.BloomFilterOffset, err = r.i64()
		case id == 15 && expect(typ, thriftI32):
			c.BloomFilterLength, err = r.i32()
		default:
			err = r.skip(typ)
		}
		return err
	})
}

func parseEncodingStats(r *ThriftReader, arena *chunkArena) ([]PageEncodingStats, error) {
	_, n, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	out := carve(&arena.encodingStats, n)
	for range n {
		var e PageEncodingStats
		err := r.readStruct(func(id int16, typ byte) error {
			var err error
			var v int32
			switch {
			case id == 1 && expect(typ, thriftI32):
				e.PageType, err = r.i32()
			case id == 2 && expect(typ, thriftI32):
				v, err = r.i32()
				e.Encoding = Encoding(v)
			case id == 3 && expect(typ, thriftI32):
				e.Count, err = r.i32()
			default:
				err = r.skip(typ)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func parseStatistics(r *ThriftReader, s *Statistics) error {
	return r.readStruct(func(id int16, typ byte) error {
		var err error
		switch {
		case id == 1 && expect(typ, thriftBinary):
			s.LegacyMax, err = r.binary()
			s.HasLegacyMax = true
		case id == 2 && expect(typ, thriftBinary):
			s.LegacyMin, err = r.binary()
			s.HasLegacyMin = true
		case id == 3 && expect(typ, thriftI64):
			s.NullCount, err = r.i64()
			s.HasNullCount = true
		case id == 4 && expect(typ, thriftI64):
			s.DistinctCount, err = r.i64()
			s.HasDistinctCount = true
		case id == 5 && expect(typ, thriftBinary):
			s.Max, err = r.binary()
			s.HasMax = true
		case id == 6 && expect(typ, thriftBinary):
			s.Min, err = r.binary()
			s.HasMin = true
		case id == 7 && expect(typ, thriftTrue):
			s.IsMaxExact = boolField(typ)
		case id == 8 && expect(typ, thriftTrue):
			s.IsMinExact = boolField(typ)
		default:
			err = r.skip(typ)
		}
		return err
	})
}
