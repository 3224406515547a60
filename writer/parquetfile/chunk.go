package parquetfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Values are the non-null values of one Write, in the slice of the
// column's physical type (Bytes for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY),
// with their bounds plain-encoded as the column's statistics hold them.
// Unbounded values (only NaN) have none: the chunk then writes no bounds
// for their page or itself.
type Values struct {
	I32       []int32
	I64       []int64
	F32       []float32
	F64       []float64
	Bool      []bool
	Bytes     [][]byte
	Min, Max  []byte
	Unbounded bool
}

func (v *Values) len() int {
	return len(v.I32) + len(v.I64) + len(v.F32) + len(v.F64) + len(v.Bool) + len(v.Bytes)
}

// of is how many values v holds in the slice of physical type t.
func (v *Values) of(t format.Type) int {
	switch t {
	case format.Int32:
		return len(v.I32)
	case format.Int64:
		return len(v.I64)
	case format.Float:
		return len(v.F32)
	case format.Double:
		return len(v.F64)
	case format.Boolean:
		return len(v.Bool)
	case format.ByteArray, format.FixedLenByteArray:
		return len(v.Bytes)
	}
	return 0
}

// Chunk is one column's chunk of the row group being built: the page
// being filled and the pages already encoded and compressed.
type Chunk struct {
	col *Column
	cfg *Config
	pageState
	// Pages finished in this chunk: headers and compressed bodies, their
	// locations (offsets from the first data page) and index entries.
	pages     blockBuffer
	locations []format.PageLocation
	index     columnIndexBuilder
	firstRow  int64 // rows in finished pages
	numValues int64
	nulls     int64
	rawSize   int64 // uncompressed data pages, headers included
	bounds    boundsState
	dict      dictionary
	bloom     *bloomBuilder // nil without a filter
	fallback  bool          // the dictionary outgrew its limit: PLAIN from here on
	// pages per encoding, for the chunk's encoding stats
	plainPages, dictPages int32
	// scratch
	body, levels, packed, comp []byte
}

// pageState is the page being filled.
type pageState struct {
	reps, defs []byte
	plain      []byte
	boolBits   int // values in the last byte of plain (booleans)
	indexes    []int32
	entries    int // level entries (values and nulls)
	pageRows   int
	nonNull    int
	pageBounds boundsState
}

func newChunk(col *Column, cfg *Config) *Chunk {
	c := &Chunk{col: col, cfg: cfg}
	c.dict.init(col)
	if col.BloomFPP > 0 {
		c.bloom = newBloomBuilder(col.BloomFPP, cfg.BloomMaxBytes)
	}
	return c
}

func (c *Chunk) rows() int64 { return c.firstRow + int64(c.pageRows) }

func (c *Chunk) dictionaryOn() bool { return c.col.Dictionary && !c.fallback }

// Write appends entries level entries making rows rows: reps and defs are
// their levels (nil when the column's maximum is 0), v the non-null
// values among them. Callers cut Writes at row boundaries; a page ends
// only between Writes (see Full and FlushPage).
func (c *Chunk) Write(reps, defs []byte, entries, rows int, v *Values) error {
	// Levels and value counts are checked before anything is appended.
	n := v.len()
	switch {
	case v.of(c.col.Type) != n:
		return fmt.Errorf("parquetfile: column %v: values of another type than %v", c.col.Path, c.col.Type)
	case c.col.MaxRep > 0 && len(reps) != entries:
		return fmt.Errorf("parquetfile: column %v: %d repetition levels for %d entries", c.col.Path, len(reps), entries)
	case c.col.MaxDef > 0 && len(defs) != entries:
		return fmt.Errorf("parquetfile: column %v: %d definition levels for %d entries", c.col.Path, len(defs), entries)
	case c.col.MaxDef == 0 && n != entries:
		return fmt.Errorf("parquetfile: required column %v: %d values for %d entries", c.col.Path, n, entries)
	case n > entries:
		return fmt.Errorf("parquetfile: column %v: %d values for %d entries", c.col.Path, n, entries)
	}
	if c.col.MaxRep > 0 {
		c.reps = append(c.reps, reps...)
	}
	if c.col.MaxDef > 0 {
		c.defs = append(c.defs, defs...)
	}
	var err error
	if c.dictionaryOn() {
		err = c.appendIndexes(v)
	} else {
		err = c.appendPlain(v)
	}
	if err != nil {
		return err
	}
	if c.bloom != nil {
		c.bloom.addValues(c.col.Type, v)
	}
	c.entries += entries
	c.pageRows += rows
	c.nonNull += n
	if n > 0 && c.col.Order != OrderNone {
		if v.Unbounded {
			c.pageBounds.lost = true
		} else {
			c.pageBounds.merge(c.col, v.Min, v.Max)
		}
	}
	if c.dictionaryOn() && c.dict.plainSize() > c.cfg.DictionaryMaxBytes {
		// The dictionary keeps what it has; the page using it ends here
		// and the rest of the chunk is PLAIN (as parquet-mr falls back).
		if err := c.finishPage(); err != nil {
			return err
		}
		c.fallback = true
	}
	return nil
}

// Full reports whether the page being filled reached the page size or
// the page row limit.
func (c *Chunk) Full() bool {
	return c.pageBytes() >= c.cfg.PageSize || (c.cfg.PageRowLimit > 0 && c.pageRows >= c.cfg.PageRowLimit)
}

// RowsLeft is how many rows the page being filled may still take before
// the page row limit (at least 1; all of them without a limit).
func (c *Chunk) RowsLeft() int {
	if c.cfg.PageRowLimit <= 0 {
		return math.MaxInt
	}
	return max(1, c.cfg.PageRowLimit-c.pageRows)
}

func (c *Chunk) pageBytes() int {
	n := len(c.plain) + (len(c.reps)+len(c.defs))/4
	if len(c.indexes) > 0 {
		n += len(c.indexes) * bits.Len(uint(c.dict.len())) / 8
	}
	return n
}

// FlushPage ends the page being filled (nothing if it is empty).
func (c *Chunk) FlushPage() error { return c.finishPage() }

func (c *Chunk) buffered() int64 {
	return int64(c.pages.len() + c.dict.plainSize() + c.pageBytes())
}

func asBytes[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(zero)))
}

// appendPlain appends the values PLAIN-encoded. Fixed-width numbers are
// copied as their memory: every platform Go and Arrow run on is
// little-endian, as PLAIN is.
func (c *Chunk) appendPlain(v *Values) error {
	switch c.col.Type {
	case format.Int32:
		c.plain = append(c.plain, asBytes(v.I32)...)
	case format.Int64:
		c.plain = append(c.plain, asBytes(v.I64)...)
	case format.Float:
		c.plain = append(c.plain, asBytes(v.F32)...)
	case format.Double:
		c.plain = append(c.plain, asBytes(v.F64)...)
	case format.Boolean:
		for _, b := range v.Bool {
			if c.boolBits == 0 {
				c.plain = append(c.plain, 0)
			}
			if b {
				c.plain[len(c.plain)-1] |= 1 << c.boolBits
			}
			c.boolBits = (c.boolBits + 1) & 7
		}
	case format.ByteArray:
		size := 0
		for _, b := range v.Bytes {
			size += 4 + len(b)
		}
		c.plain = slices.Grow(c.plain, size)
		for _, b := range v.Bytes {
			c.plain = binary.LittleEndian.AppendUint32(c.plain, uint32(len(b)))
			c.plain = append(c.plain, b...)
		}
	case format.FixedLenByteArray:
		for _, b := range v.Bytes {
			if len(b) != c.col.Length {
				return fmt.Errorf("parquetfile: column %v: a value of %d bytes in a column of %d", c.col.Path, len(b), c.col.Length)
			}
			c.plain = append(c.plain, b...)
		}
	default:
		return fmt.Errorf("parquetfile: column %v: unsupported type %v", c.col.Path, c.col.Type)
	}
	return nil
}

// appendIndexes appends the values' dictionary indexes, adding new values
// to the dictionary.
func (c *Chunk) appendIndexes(v *Values) error {
	switch c.col.Type {
	case format.Int32:
		for _, x := range v.I32 {
			c.indexes = append(c.indexes, c.dict.int(int64(x)))
		}
	case format.Int64:
		for _, x := range v.I64 {
			c.indexes = append(c.indexes, c.dict.int(x))
		}
	case format.ByteArray, format.FixedLenByteArray:
		// A value equal to the one before takes its index without a hash:
		// runs of one value (a position delete file's path, sorted
		// low-cardinality columns) cost a comparison each. On random
		// values the comparison stops at the length or the first bytes.
		var prev []byte
		index := int32(-1)
		for _, b := range v.Bytes {
			if c.col.Type == format.FixedLenByteArray && len(b) != c.col.Length {
				return fmt.Errorf("parquetfile: column %v: a value of %d bytes in a column of %d", c.col.Path, len(b), c.col.Length)
			}
			if index < 0 || !bytes.Equal(b, prev) {
				prev, index = b, c.dict.bytes(b)
			}
			c.indexes = append(c.indexes, index)
		}
	default:
		return fmt.Errorf("parquetfile: column %v: no dictionary for type %v", c.col.Path, c.col.Type)
	}
	return nil
}

// appendLevels appends levels as a v1 page holds them: a 4-byte length,
// then the RLE/bit-packed hybrid.
func (c *Chunk) appendLevels(dst, levels []byte, max int) ([]byte, error) {
	enc := rle.Encoding{BitWidth: bits.Len(uint(max))}
	var err error
	if c.levels, err = enc.EncodeLevels(c.levels, levels); err != nil {
		return dst, err
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(c.levels)))
	return append(dst, c.levels...), nil
}

// finishPage encodes, compresses and keeps the page being filled.
func (c *Chunk) finishPage() error {
	if c.entries == 0 {
		return nil
	}
	body := c.body[:0]
	var err error
	if c.col.MaxRep > 0 {
		if body, err = c.appendLevels(body, c.reps, c.col.MaxRep); err != nil {
			return err
		}
	}
	if c.col.MaxDef > 0 {
		if body, err = c.appendLevels(body, c.defs, c.col.MaxDef); err != nil {
			return err
		}
	}
	encoding := format.Plain
	if len(c.indexes) > 0 {
		encoding = format.RLEDictionary
		width := max(1, bits.Len(uint(c.dict.len()-1)))
		enc := rle.Encoding{BitWidth: width}
		if c.packed, err = enc.EncodeInt32(c.packed, c.indexes); err != nil {
			return err
		}
		body = append(body, byte(width))
		body = append(body, c.packed...)
	} else {
		body = append(body, c.plain...)
	}
	c.body = body
	header := format.PageHeader{
		Type:                 format.DataPage,
		UncompressedPageSize: int32(len(body)),
		DataPageHeader: thrift.New(format.DataPageHeader{
			NumValues:               int32(c.entries),
			Encoding:                encoding,
			DefinitionLevelEncoding: format.RLE,
			RepetitionLevelEncoding: format.RLE,
		}),
	}
	headerSize, err := c.appendPage(&header, body)
	if err != nil {
		return err
	}
	c.rawSize += int64(headerSize + len(body))
	if encoding == format.Plain {
		c.plainPages++
	} else {
		c.dictPages++
	}
	nulls := int64(c.entries - c.nonNull)
	c.index.add(c.col, c.nonNull == 0, &c.pageBounds, nulls)
	c.bounds.mergeState(c.col, &c.pageBounds)
	c.firstRow += int64(c.pageRows)
	c.numValues += int64(c.entries)
	c.nulls += nulls
	c.pageState = pageState{
		reps: c.reps[:0], defs: c.defs[:0], plain: c.plain[:0], indexes: c.indexes[:0],
		pageBounds: boundsState{min: c.pageBounds.min[:0], max: c.pageBounds.max[:0]},
	}
	return nil
}

// appendPage compresses body and appends header and body to the chunk's
// pages, recording the page's location; it returns the header's size.
func (c *Chunk) appendPage(header *format.PageHeader, body []byte) (int, error) {
	// Room for what an incompressible body grows to (snappy's bound is the
	// widest: n/6 + 32).
	h, comp, err := c.encodePage(header, body, c.pages.reserve(len(body)+len(body)/6+64))
	if err != nil {
		return 0, err
	}
	c.locations = append(c.locations, format.PageLocation{
		Offset:             int64(c.pages.len()),
		CompressedPageSize: int32(len(h) + len(comp)),
		FirstRowIndex:      c.firstRow,
	})
	c.pages.add(h)
	c.pages.commit(comp)
	return len(h), nil
}

// encodePage compresses body, appending to dst, and gives the page's
// header (its compressed size set) and the compressed body.
func (c *Chunk) encodePage(header *format.PageHeader, body, dst []byte) (h, comp []byte, err error) {
	if comp, err = c.cfg.Codec.Encode(dst, body); err != nil {
		return nil, nil, fmt.Errorf("parquetfile: column %v: compressing a %v page: %w", c.col.Path, header.Type, err)
	}
	header.CompressedPageSize = int32(len(comp))
	h, err = thrift.Marshal(&thrift.CompactProtocol{}, header)
	return h, comp, err
}

// columnMeta finishes the chunk's metadata for a chunk starting at start,
// and returns the dictionary page to write before the data pages.
func (c *Chunk) columnMeta(start int64) (format.ColumnMetaData, []byte, error) {
	meta := format.ColumnMetaData{
		Type:         c.col.Type,
		PathInSchema: c.col.Path,
		Codec:        c.cfg.Codec.CompressionCodec(),
		NumValues:    c.numValues,
	}
	var dictPage []byte
	var stats []format.PageEncodingStats
	if c.dict.len() > 0 {
		body := c.dict.plain
		h, comp, err := c.encodePage(&format.PageHeader{
			Type:                 format.DictionaryPage,
			UncompressedPageSize: int32(len(body)),
			DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(c.dict.len()), Encoding: format.Plain}),
		}, body, c.comp[:0])
		if err != nil {
			return meta, nil, err
		}
		c.comp = comp
		dictPage = append(h, comp...)
		meta.DictionaryPageOffset = start
		meta.TotalUncompressedSize += int64(len(h) + len(body))
		stats = append(stats, format.PageEncodingStats{PageType: format.DictionaryPage, Encoding: format.Plain, Count: 1})
	}
	meta.DataPageOffset = start + int64(len(dictPage))
	meta.TotalCompressedSize = int64(len(dictPage) + c.pages.len())
	meta.TotalUncompressedSize += c.rawSize
	if c.plainPages > 0 || len(dictPage) > 0 {
		meta.Encoding = append(meta.Encoding, format.Plain)
	}
	if c.col.MaxDef > 0 || c.col.MaxRep > 0 {
		meta.Encoding = append(meta.Encoding, format.RLE)
	}
	if c.dictPages > 0 {
		meta.Encoding = append(meta.Encoding, format.RLEDictionary)
		stats = append(stats, format.PageEncodingStats{PageType: format.DataPage, Encoding: format.RLEDictionary, Count: c.dictPages})
	}
	if c.plainPages > 0 {
		stats = append(stats, format.PageEncodingStats{PageType: format.DataPage, Encoding: format.Plain, Count: c.plainPages})
	}
	meta.EncodingStats = stats
	meta.Statistics.NullCount = c.nulls
	if c.col.Order != OrderNone && c.bounds.set && !c.bounds.lost {
		lo, hi := truncateBounds(c.col, c.bounds.min, c.bounds.max, statsMaxBytes)
		meta.Statistics.MinValue = append([]byte{}, lo...)
		meta.Statistics.MaxValue = append([]byte{}, hi...)
	}
	return meta, dictPage, nil
}

func (c *Chunk) columnIndex() *format.ColumnIndex {
	if c.col.Order == OrderNone || c.index.lost {
		return nil
	}
	return c.index.build()
}

func (c *Chunk) offsetIndex(dataStart int64) format.OffsetIndex {
	locs := make([]format.PageLocation, len(c.locations))
	for i, l := range c.locations {
		l.Offset += dataStart
		locs[i] = l
	}
	return format.OffsetIndex{PageLocations: locs}
}

// reset empties the chunk for the next row group (its pages have moved
// to the goroutine writing them), keeping its scratch buffers.
func (c *Chunk) reset() {
	*c = Chunk{
		col: c.col, cfg: c.cfg, pageState: c.pageState,
		locations: c.locations[:0],
		index:     c.index.reset(), dict: c.dict, bloom: c.bloom,
		body: c.body, levels: c.levels, packed: c.packed, comp: c.comp,
	}
	c.dict.reset()
	if c.bloom != nil {
		c.bloom.reset()
	}
}
