package reader

import (
	"encoding/binary"
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
	putBytes(d.raw)
	putBytes(d.plain)
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
func (p *rowGroupPruner) dictionaryMayMatch(pred *prunePredicate) (bool, error) {
	c := pred.col
	if !c.dictRead {
		c.dictRead = true
		d, err := p.f.readPruneDictionary(c)
		if err != nil {
			return false, err
		}
		c.dict = d
	}
	if c.dict == nil {
		return true, nil
	}
	stats := chunkSummary(c, p.rg.NumRows)
	if !stats.noNulls() {
		null := valueSummary{rows: 1, nullCount: 1, nullsKnown: true}
		if pred.mightMatch(&null) {
			return true, nil
		}
	}
	if stats.allNull() {
		return false, nil
	}
	may := false
	c.dict.each(func(raw []byte) bool {
		v, ok := c.dec.decode(raw)
		if !ok {
			may = true // a value we cannot convert might be anything
			return false
		}
		nan := c.dec.domain.isNaN(&v)
		s := valueSummary{min: v, max: v, hasMin: true, hasMax: true, exact: true, rows: 1, nullsKnown: true, mayNaN: nan, onlyNaN: nan}
		may = pred.mightMatch(&s)
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
func allDictionaryEncoded(c *ColumnChunk) bool {
	if c.EncodingStats != nil {
		for _, e := range c.EncodingStats {
			if (e.PageType == int32(pageData) || e.PageType == int32(pageDataV2)) && e.Count > 0 &&
				e.Encoding != EncPlainDictionary && e.Encoding != EncRLEDictionary {
				return false
			}
		}
		return true
	}
	plainDict := false
	for _, e := range c.Encodings {
		switch e {
		case EncPlainDictionary:
			plainDict = true
		case EncRLE, EncBitPacked:
		default:
			return false
		}
	}
	return plainDict
}

// readPruneDictionary reads and decompresses the chunk's dictionary page,
// or returns nil when the chunk has none usable for pruning. Only I/O
// failures are errors: a corrupt page is left for the decoder to report.
func (f *File) readPruneDictionary(c *pruneColumn) (*pruneDictionary, error) {
	ch := c.chunk
	if c.node.Physical == Boolean || !allDictionaryEncoded(ch) || checkCodec(ch.Codec) != nil || ch.TotalCompressedSize <= 0 {
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
	raw := getBytes(int(span))
	if ok, err := f.readFull(raw, start, "dictionary page"); !ok {
		putBytes(raw)
		return nil, err
	}
	d := &pruneDictionary{raw: raw}
	ok, err := f.decodePruneDictionary(d, c, start, chunkEnd)
	if err != nil || !ok {
		d.release()
		return nil, err
	}
	return d, nil
}

func (f *File) decodePruneDictionary(d *pruneDictionary, c *pruneColumn, start, chunkEnd int64) (bool, error) {
	r := thriftReader{buf: d.raw}
	var h pageHeader
	if parsePageHeader(&r, &h) != nil || h.typ != pageDictionary || (h.encoding != EncPlain && h.encoding != EncPlainDictionary) {
		return false, nil
	}
	body := int64(r.pos) + int64(h.compressedSize)
	if body > chunkEnd-start || h.uncompressedSize > maxPruneDictionary {
		return false, nil
	}
	if body > int64(len(d.raw)) {
		// the page is longer than the first read guessed
		more := getBytes(int(body))
		copy(more, d.raw)
		putBytes(d.raw)
		d.raw = more
		if ok, err := f.readFull(more[r.pos:], start+int64(r.pos), "dictionary page"); !ok {
			return false, err
		}
	}
	src := d.raw[r.pos:body]
	if ch := c.chunk; ch.Codec == CodecUncompressed {
		if len(src) != int(h.uncompressedSize) {
			return false, nil
		}
		d.data = src
	} else {
		d.plain = getBytes(int(h.uncompressedSize))
		if decompress(ch.Codec, d.plain, src) != nil {
			return false, nil
		}
		d.data = d.plain
	}
	d.n = int(h.numValues)
	if c.node.Physical == ByteArray {
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
	d.width = physicalWidth(c.node)
	return d.width > 0 && d.n <= len(d.data)/d.width, nil
}
