package prune

import (
	"encoding/binary"
	"math"

	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
)

// maxPruneDictionary bounds the decompressed dictionary page pruning will
// hold; a larger one (or a corrupt size) is not used.
const maxPruneDictionary = 64 << 20

// dictionaryGuess is how much of a chunk is read to find a dictionary page
// whose end the metadata does not give.
const dictionaryGuess = 64 << 10

// pruneDictionary is a chunk's dictionary page, decompressed: n PLAIN
// values, BYTE_ARRAY ones with their length prefixes.
type pruneDictionary struct {
	n     int
	width int // fixed value size; 0 for BYTE_ARRAY
	data  []byte
	// pooled buffers to give back
	raw, plain []byte
}

func (d *pruneDictionary) release() {
	parquet.PutBytes(d.raw)
	parquet.PutBytes(d.plain)
	*d = pruneDictionary{}
}

// each calls fn with each value's bytes until fn returns false.
func (d *pruneDictionary) each(fn func(v []byte) bool) {
	if d.width > 0 {
		for k := range d.n {
			if !fn(d.data[k*d.width : (k+1)*d.width]) {
				return
			}
		}
		return
	}
	pos := 0
	for range d.n {
		size := int(binary.LittleEndian.Uint32(d.data[pos:]))
		pos += 4
		if !fn(d.data[pos : pos+size]) {
			return
		}
		pos += size
	}
}

// dictionaryMayMatch reports whether some value of the column's dictionary
// (or a null, when the chunk may hold nulls) satisfies the predicate. A
// column whose data pages are not all dictionary-encoded may hold other
// values, so it might match.
func (p *rowGroupPruner) dictionaryMayMatch(pred *prunePredicate, c *pruneColumn) (bool, error) {
	if !c.dictRead {
		c.dictRead = true
		d, err := readDictionary(p.f, c)
		if err != nil {
			return false, err
		}
		c.dict = d
	}
	if c.dict == nil {
		return true, nil
	}
	stats := c.summary(p.rg.NumRows)
	if !noNulls(stats) {
		null := bounds.Summary{Values: 1, Nulls: 1, HasValues: true, HasNulls: true}
		if pred.leaf.MightMatch(&null) {
			return true, nil
		}
	}
	if allNull(stats) {
		return false, nil
	}
	may := false
	c.dict.each(func(raw []byte) bool {
		v, ok := c.dec.decode(raw)
		if !ok {
			may = true // a value we cannot convert might be anything
			return false
		}
		// One entry: exact bounds, no null, a NaN or not.
		s := bounds.Summary{Lower: v, Upper: v, HasLower: true, HasUpper: true, Exact: true,
			Values: 1, HasValues: true, HasNulls: true, HasNaNs: true}
		if c.dec.domain == bounds.DomainFloat && math.IsNaN(v.Float) {
			s.NaNs = 1
		}
		may = pred.leaf.MightMatch(&s)
		return !may
	})
	return may, nil
}

// allDictionaryEncoded reports whether every data page of the chunk is
// dictionary-encoded, from its encoding stats or, without them, its list
// of encodings: parquet-mr's v1 writer labels the dictionary and its pages
// PLAIN_DICTIONARY and adds PLAIN only when it falls back; RLE and
// BIT_PACKED there are level encodings. With RLE_DICTIONARY the dictionary
// page itself is PLAIN, so a fallback cannot be told apart and the answer
// is no.
func allDictionaryEncoded(c *parquet.ColumnChunk) bool {
	// An empty list of encoding stats counts as none: it says nothing of
	// the data pages, so it cannot say they all use the dictionary.
	if len(c.EncodingStats) > 0 {
		for _, e := range c.EncodingStats {
			if (e.PageType == int32(parquet.PageData) || e.PageType == int32(parquet.PageDataV2)) && e.Count > 0 &&
				e.Encoding != parquet.EncPlainDictionary && e.Encoding != parquet.EncRLEDictionary {
				return false
			}
		}
		return true
	}
	plainDict := false
	for _, e := range c.Encodings {
		switch e {
		case parquet.EncPlainDictionary:
			plainDict = true
		case parquet.EncRLE, parquet.EncBitPacked:
		default:
			return false
		}
	}
	return plainDict
}

// readDictionary reads and decompresses the chunk's dictionary page,
// or returns nil when the chunk has none usable for pruning. Only I/O
// failures are errors: a corrupt page is left for the decoder to report.
func readDictionary(f *parquet.File, c *pruneColumn) (*pruneDictionary, error) {
	ch := c.chunk
	if c.node.Physical == parquet.Boolean || !allDictionaryEncoded(ch) || parquet.CheckCodec(ch.Codec) != nil || ch.TotalCompressedSize <= 0 {
		return nil, nil
	}
	start := ch.Start()
	chunkEnd := start + ch.TotalCompressedSize
	span := min(ch.TotalCompressedSize, dictionaryGuess)
	if ch.DictionaryPageOffset > 0 && ch.DictionaryPageOffset < ch.DataPageOffset && ch.DataPageOffset <= chunkEnd {
		span = ch.DataPageOffset - start
	}
	if span > maxPruneDictionary+dictionaryGuess {
		return nil, nil
	}
	raw := parquet.GetBytes(int(span))
	if ok, err := f.ReadFull(raw, start, "dictionary page"); !ok {
		parquet.PutBytes(raw)
		return nil, err
	}
	d := &pruneDictionary{raw: raw}
	ok, err := decodeDictionary(f, d, c, start, chunkEnd)
	if err != nil || !ok {
		d.release()
		return nil, err
	}
	return d, nil
}

func decodeDictionary(f *parquet.File, d *pruneDictionary, c *pruneColumn, start, chunkEnd int64) (bool, error) {
	r := parquet.ThriftReader{Buf: d.raw}
	var h parquet.PageHeader
	if parquet.ParsePageHeader(&r, &h) != nil || h.Typ != parquet.PageDictionary || (h.Encoding != parquet.EncPlain && h.Encoding != parquet.EncPlainDictionary) {
		return false, nil
	}
	body := int64(r.Pos) + int64(h.CompressedSize)
	if body > chunkEnd-start || h.UncompressedSize > maxPruneDictionary {
		return false, nil
	}
	if body > int64(len(d.raw)) {
		// the page is longer than the first read guessed
		more := parquet.GetBytes(int(body))
		copy(more, d.raw)
		parquet.PutBytes(d.raw)
		d.raw = more
		if ok, err := f.ReadFull(more[r.Pos:], start+int64(r.Pos), "dictionary page"); !ok {
			return false, err
		}
	}
	src := d.raw[r.Pos:body]
	if ch := c.chunk; ch.Codec == parquet.CodecUncompressed {
		if len(src) != int(h.UncompressedSize) {
			return false, nil
		}
		d.data = src
	} else {
		d.plain = parquet.GetBytes(int(h.UncompressedSize))
		if parquet.Decompress(ch.Codec, d.plain, src) != nil {
			return false, nil
		}
		d.data = d.plain
	}
	d.n = int(h.NumValues)
	if c.node.Physical == parquet.ByteArray {
		pos := 0
		for range d.n {
			if len(d.data)-pos < 4 {
				return false, nil
			}
			size := binary.LittleEndian.Uint32(d.data[pos:])
			pos += 4
			if uint64(size) > uint64(len(d.data)-pos) {
				return false, nil
			}
			pos += int(size)
		}
		return true, nil
	}
	d.width = parquet.PhysicalWidth(c.node)
	return d.width > 0 && d.n <= len(d.data)/d.width, nil
}
