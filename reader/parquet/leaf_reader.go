package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
)

// LeafReader decodes one leaf column of one row group into Arrow buffers,
// batch after batch, resuming mid-page between batches.
type LeafReader struct {
	Node  *Node
	conv  *conversion
	chunk chunkReader
	codec Codec

	maxDef, maxRep int
	// slotDef: entries with a definition level at least this make an Arrow
	// slot; lower ones are nulls or empty lists of an ancestor.
	slotDef int
	// keepLevels: an enclosing struct/list/map assembles from this leaf's
	// levels, so the batch's levels are kept.
	keepLevels bool
	defs, reps []uint8 // the batch's levels when keepLevels
	// wholeUnderSelection: the leaf's column is decoded whole and cut down
	// afterwards when a batch is read for a selection.
	wholeUnderSelection bool

	pg   pageState
	dict dictionary
	out  leafOutput
	// pagesDecoded counts data pages whose values were decompressed.
	pagesDecoded int
	// pagesPrefixed counts those decompressed only in part (page_prefix.go).
	pagesPrefixed int
	// prefixLeft, during a selected read, is how many rows from the read
	// position the read needs (0: all): a page is decompressed only as far
	// as they reach.
	prefixLeft int
	// rowPos is the row (within the row group) the reader stands at.
	rowPos int64

	// scratch, reused page after page
	pageBuf, dictPage, levelBuf, idxScratch, bssScratch scratch
	idx                                                 []int32
	hyb                                                 hybridI32
	delta                                               deltaDecoder
	bools                                               []byte
	delta64, deltaLens                                  []uint64
	deltaData                                           []byte
	deltaOffs, deltaSufOffs                             []uint32
	// keptScratch, keptPositions: selective decoding (leaf_kept.go)
	keptScratch scratch
	// tested: the filter a reader evaluates on its column (leaf_tested.go)
	tested *testedLeaf
}

type pageState struct {
	numValues int
	pos       int
	defs      []uint8 // nil: every entry is at maxDef
	reps      []uint8 // nil: every entry starts a row
	v2        bool
	numRows   int
	values    pageValues
	// rest: the page was decompressed only as far as numValues entries
	// (page_prefix.go); nil when whole.
	rest *pageRest
}

func newLeafReader(f *File, rg *RowGroup, n *Node, conv *conversion, mem memory.Allocator, verifyCRC bool, rowStart, rowEnd int64) *LeafReader {
	meta := &rg.Columns[n.Leaf]
	return &LeafReader{
		Node:  n,
		conv:  conv,
		codec: meta.Codec,
		chunk: chunkReader{f: f, meta: meta, leaf: n, verifyCRC: verifyCRC,
			rowStart: rowStart, rowEnd: rowEnd, rowGroupRows: rg.NumRows},
		maxDef: n.DefLevel,
		maxRep: n.RepLevel,
		out:    newLeafOutput(mem, conv),
	}
}

func (l *LeafReader) errorf(format string, args ...any) error {
	return fmt.Errorf("column %s: %w", l.Node.DottedPath(), fmt.Errorf(format, args...))
}

func (l *LeafReader) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("column %s: %w", l.Node.DottedPath(), err)
}

func (l *LeafReader) release() {
	l.releaseTested()
	l.out.free()
	l.chunk.release()
	for _, s := range []*scratch{&l.pageBuf, &l.dictPage, &l.levelBuf, &l.idxScratch, &l.bssScratch, &l.keptScratch} {
		s.release()
	}
}

// nextDataPage returns the next data page, loading any dictionary page on
// the way; io.EOF at the end of the chunk.
func (l *LeafReader) nextDataPage() (*PageHeader, []byte, error) {
	for {
		h, body, err := l.chunk.next()
		if err != nil {
			return nil, nil, err
		}
		switch h.Typ {
		case PageDictionary:
			if l.dict.loaded {
				return nil, nil, l.errorf("second dictionary page in one column chunk")
			}
			if err := l.loadDictionary(h, body); err != nil {
				return nil, nil, l.wrap(err)
			}
		case PageData, PageDataV2:
			if h.Typ == PageData && !h.hasDataHeader || h.Typ == PageDataV2 && !h.hasV2Header {
				return nil, nil, l.errorf("data page without its header")
			}
			return h, body, nil
		}
	}
}

// pageBytes returns body decompressed (or body itself when stored plain).
func (l *LeafReader) pageBytes(body []byte, size int, s *scratch) ([]byte, error) {
	if l.codec == CodecUncompressed {
		if len(body) < size {
			return nil, fmt.Errorf("page has %d bytes, header says %d", len(body), size)
		}
		return body[:size], nil
	}
	buf := s.take(size)
	if err := Decompress(l.codec, buf, body); err != nil {
		return nil, err
	}
	return buf, nil
}

// preparePage decodes a data page's levels and readies its values.
func (l *LeafReader) preparePage(h *PageHeader, body []byte) error {
	return l.preparePageWant(h, body, 0)
}

// preparePageWant is preparePage for a read needing only the page's first
// want entries (0: all of them), which may then be all it decompresses.
func (l *LeafReader) preparePageWant(h *PageHeader, body []byte, want int) error {
	pg := &l.pg
	n := int(h.NumValues)
	l.pagesDecoded++
	if n > maxPageValues {
		return l.errorf("page claims %d values; at most %d are supported", n, maxPageValues)
	}
	*pg = pageState{numValues: n, v2: h.Typ == PageDataV2, numRows: int(h.numRows), values: pg.values}
	var prefix []byte
	if want > 0 && want < n {
		var ok bool
		if prefix, ok = l.pagePrefix(h, body, want); ok {
			n, pg.numValues = want, want
			pg.rest = &pageRest{h: *h, body: body}
		}
	}
	var repSrc, defSrc, values []byte
	repEnc, defEnc := EncRLE, EncRLE
	if pg.v2 {
		rl, dl := int(h.repLength), int(h.defLength)
		if rl+dl > len(body) {
			return l.errorf("page levels (%d bytes) overrun the page (%d bytes)", rl+dl, len(body))
		}
		repSrc, defSrc = body[:rl], body[rl:rl+dl]
		values = body[rl+dl:]
		if h.isCompressed && l.codec != CodecUncompressed {
			size := int(h.UncompressedSize) - rl - dl
			if size < 0 {
				return l.errorf("page v2 uncompressed size %d is below its level bytes", h.UncompressedSize)
			}
			buf := l.pageBuf.take(size)
			if err := Decompress(l.codec, buf, values); err != nil {
				return l.wrap(err)
			}
			values = buf
		}
	} else {
		buf, err := prefix, error(nil)
		if buf == nil {
			if buf, err = l.pageBytes(body, int(h.UncompressedSize), &l.pageBuf); err != nil {
				return l.wrap(err)
			}
		}
		repEnc, defEnc = h.repEncoding, h.defEncoding
		pos := 0
		if l.maxRep > 0 {
			if repSrc, pos, err = v1Levels(buf, pos, repEnc, n, l.maxRep); err != nil {
				return l.wrap(err)
			}
		}
		if l.maxDef > 0 {
			if defSrc, pos, err = v1Levels(buf, pos, defEnc, n, l.maxDef); err != nil {
				return l.wrap(err)
			}
		}
		values = buf[pos:]
	}
	if err := checkLevelCount(repSrc, repEnc, l.maxRep, n); err != nil {
		return l.errorf("repetition levels: %w", err)
	}
	if err := checkLevelCount(defSrc, defEnc, l.maxDef, n); err != nil {
		return l.errorf("definition levels: %w", err)
	}
	lv := l.levelBuf.take(2 * n)
	if l.maxRep > 0 {
		pg.reps = lv[:n]
		if err := decodeLevels(pg.reps, repSrc, repEnc, l.maxRep); err != nil {
			return l.errorf("repetition levels: %w", err)
		}
	}
	count := n
	if l.maxDef > 0 && !(defEnc == EncRLE && hybridAllEqual(defSrc, bitWidthOf(l.maxDef), n, uint32(l.maxDef))) {
		pg.defs = lv[n : 2*n]
		if err := decodeLevels(pg.defs, defSrc, defEnc, l.maxDef); err != nil {
			return l.errorf("definition levels: %w", err)
		}
		count = 0
		for _, d := range pg.defs {
			if int(d) == l.maxDef {
				count++
			} else if int(d) > l.maxDef {
				return l.errorf("definition level %d above the maximum %d", d, l.maxDef)
			}
		}
	}
	if l.maxRep > 0 {
		for _, r := range pg.reps {
			if int(r) > l.maxRep {
				return l.errorf("repetition level %d above the maximum %d", r, l.maxRep)
			}
		}
	}
	return l.wrap(l.setupValues(h.Encoding, values, count))
}

// maxPageValues bounds a page's value count before anything is sized by it.
const maxPageValues = 1 << 27

// checkLevelCount verifies that level data really holds n levels, so that a
// corrupt count cannot size our buffers.
func checkLevelCount(src []byte, enc Encoding, maxLevel, n int) error {
	if maxLevel == 0 || enc == EncBitPacked {
		return nil // no levels, or sized exactly by v1Levels
	}
	if got := hybridCount(src, bitWidthOf(maxLevel), n); got < n {
		return fmt.Errorf("level data holds %d of the page's %d values", got, n)
	}
	return nil
}

// v1Levels splits one level section off a v1 page.
func v1Levels(buf []byte, pos int, enc Encoding, n, maxLevel int) ([]byte, int, error) {
	switch enc {
	case EncRLE:
		if len(buf)-pos < 4 {
			return nil, 0, errors.New("page too short for its levels")
		}
		size := binary.LittleEndian.Uint32(buf[pos:])
		if uint64(size) > uint64(len(buf)-pos-4) {
			return nil, 0, fmt.Errorf("levels of %d bytes overrun the page", size)
		}
		return buf[pos+4 : pos+4+int(size)], pos + 4 + int(size), nil
	case EncBitPacked:
		size := (n*bitWidthOf(maxLevel) + 7) / 8
		if size > len(buf)-pos {
			return nil, 0, errors.New("page too short for its levels")
		}
		return buf[pos : pos+size], pos + size, nil
	}
	return nil, 0, errkind.Errorf(errkind.Unsupported, "unsupported level encoding %s", enc)
}

func decodeLevels(dst []uint8, src []byte, enc Encoding, maxLevel int) error {
	if enc == EncBitPacked {
		_, err := decodeBitPackedLegacyU8(dst, src, bitWidthOf(maxLevel))
		return err
	}
	return decodeHybridU8(dst, src, bitWidthOf(maxLevel))
}

// tryDirect handles a whole PLAIN page of fixed-width values without nulls
// that the batch wants entirely: its values decompress straight into the
// Arrow buffer.
func (l *LeafReader) tryDirect(h *PageHeader, body []byte, want int) (bool, error) {
	n := int(h.NumValues)
	w := l.conv.width
	if !l.conv.identity() || h.Encoding != EncPlain || n == 0 || n > want || l.maxRep > 0 || l.conv.physWidth != w {
		return false, nil
	}
	var src []byte
	compressed := l.codec != CodecUncompressed
	size := int(h.UncompressedSize)
	if h.Typ == PageDataV2 {
		dl := int(h.defLength)
		if h.repLength != 0 || dl > len(body) {
			return false, nil
		}
		if l.maxDef > 0 && !hybridAllEqual(body[:dl], bitWidthOf(l.maxDef), n, uint32(l.maxDef)) {
			return false, nil
		}
		src = body[dl:]
		size -= dl
		compressed = compressed && h.isCompressed
	} else {
		if l.maxDef > 0 {
			return false, nil
		}
		src = body
	}
	if size != n*w {
		return false, nil
	}
	o := &l.out
	l.pagesDecoded++
	dst := o.values.b[o.length*w : (o.length+n)*w]
	if compressed {
		if err := Decompress(l.codec, dst, src); err != nil {
			return false, l.wrap(err)
		}
	} else {
		if len(src) < size {
			return false, l.errorf("page has %d value bytes, header says %d", len(src), size)
		}
		copy(dst, src)
	}
	if o.validity.b != nil {
		setBits(o.validity.b, o.length, n)
	}
	o.length += n
	if l.keepLevels {
		l.appendLevels(nil, nil, n)
	}
	l.pg = pageState{values: l.pg.values}
	return true, nil
}

func (l *LeafReader) appendLevels(defs, reps []uint8, k int) {
	if defs == nil {
		base := len(l.defs)
		l.defs = append(l.defs, make([]uint8, k)...)
		fill(l.defs[base:], uint8(l.maxDef))
	} else {
		l.defs = append(l.defs, defs...)
	}
	if l.maxRep > 0 {
		l.reps = append(l.reps, reps...)
	}
}

// readRows decodes the next n rows into a fresh output.
func (l *LeafReader) readRows(n int) error {
	if err := l.chunk.ensureLoaded(); err != nil {
		return err
	}
	if l.rowPos < l.chunk.skippedRows {
		return l.errorf("rows %d..%d were left out of the read", l.rowPos, l.chunk.skippedRows)
	}
	l.rowPos += int64(n)
	l.defs, l.reps = l.defs[:0], l.reps[:0]
	if l.maxRep == 0 {
		l.out.begin(n)
		return l.readFlat(n)
	}
	l.out.begin(n)
	return l.readNested(n)
}

func (l *LeafReader) readFlat(n int) error {
	n0 := n
	for n > 0 {
		if rest := l.pg.rest; l.pg.pos >= l.pg.numValues && rest != nil {
			// A page decompressed in part: skipping all it has left
			// needs none of it.
			if left := int(rest.h.NumValues) - l.pg.pos; left <= n {
				n -= left
				l.pg.rest = nil
				continue
			}
			if err := l.completePage(); err != nil {
				return err
			}
		}
		if l.pg.pos >= l.pg.numValues {
			h, body, err := l.nextDataPage()
			if err == io.EOF {
				return l.errorf("column chunk ends %d rows before its row group", n)
			}
			if err != nil {
				return err
			}
			direct, err := l.tryDirect(h, body, n)
			if err != nil {
				return err
			}
			if direct {
				n -= int(h.NumValues)
				continue
			}
			if err := l.preparePageWant(h, body, l.wantFrom(n0-n)); err != nil {
				return err
			}
			continue
		}
		k := min(n, l.pg.numValues-l.pg.pos)
		var defs []uint8
		if l.pg.defs != nil {
			defs = l.pg.defs[l.pg.pos : l.pg.pos+k]
		}
		if l.keepLevels {
			l.appendLevels(defs, nil, k)
		}
		if err := l.consume(defs, k); err != nil {
			return l.wrap(err)
		}
		l.pg.pos += k
		n -= k
	}
	return nil
}

// readNested reads entries until n rows are complete. A row ends where the
// next entry with repetition level 0 starts, possibly on a later page.
func (l *LeafReader) readNested(n int) error {
	toStart := n
	first := true
	for {
		if l.pg.pos >= l.pg.numValues {
			h, body, err := l.nextDataPage()
			if err == io.EOF {
				if toStart == 0 {
					return nil
				}
				return l.errorf("column chunk ends %d rows before its row group", toStart)
			}
			if err != nil {
				return err
			}
			if err := l.preparePage(h, body); err != nil {
				return err
			}
			continue
		}
		pg := &l.pg
		start, i := pg.pos, pg.pos
		if first && pg.reps[i] != 0 {
			return l.errorf("a row starts with repetition level %d", pg.reps[i])
		}
		first = false
		for ; i < pg.numValues; i++ {
			if pg.reps[i] == 0 {
				if toStart == 0 {
					break
				}
				toStart--
			}
		}
		var defs []uint8
		if pg.defs != nil {
			defs = pg.defs[start:i]
		}
		if l.keepLevels {
			l.appendLevels(defs, pg.reps[start:i], i-start)
		}
		if err := l.consume(defs, i-start); err != nil {
			return l.wrap(err)
		}
		pg.pos = i
		if i < pg.numValues {
			return nil
		}
	}
}

// skipTo advances to row target of the row group. The chunk read may
// already start past rows the offset index showed were not wanted.
func (l *LeafReader) skipTo(target int64) error {
	if err := l.chunk.ensureLoaded(); err != nil {
		return err
	}
	if l.rowPos < l.chunk.skippedRows {
		l.rowPos = l.chunk.skippedRows
	}
	if target < l.rowPos {
		return l.errorf("cannot skip back to row %d from row %d", target, l.rowPos)
	}
	n := target - l.rowPos
	l.rowPos = target
	return l.skipRows(int(n))
}

// skipRows advances past n rows without producing output. Whole pages are
// dropped on their header alone when their row count is known.
func (l *LeafReader) skipRows(n int) error {
	n0 := n
	for n > 0 {
		if rest := l.pg.rest; l.pg.pos >= l.pg.numValues && rest != nil {
			// A page decompressed in part: skipping all it has left
			// needs none of it.
			if left := int(rest.h.NumValues) - l.pg.pos; left <= n {
				n -= left
				l.pg.rest = nil
				continue
			}
			if err := l.completePage(); err != nil {
				return err
			}
		}
		if l.pg.pos >= l.pg.numValues {
			h, body, err := l.nextDataPage()
			if err == io.EOF {
				return l.errorf("column chunk ends %d rows before its row group", n)
			}
			if err != nil {
				return err
			}
			switch {
			case l.maxRep == 0 && int(h.NumValues) <= n:
				n -= int(h.NumValues)
				continue
			case l.maxRep > 0 && h.Typ == PageDataV2 && h.numRows > 0 && int(h.numRows) <= n:
				// v2 pages hold whole rows
				n -= int(h.numRows)
				continue
			}
			if err := l.preparePageWant(h, body, l.wantFrom(n0-n)); err != nil {
				return err
			}
			continue
		}
		pg := &l.pg
		start := pg.pos
		end := start
		if l.maxRep == 0 {
			end = start + min(n, pg.numValues-start)
			n -= end - start
		} else {
			// stop before the row start that follows the n-th row
			for ; end < pg.numValues; end++ {
				if pg.reps[end] == 0 {
					if n == 0 {
						break
					}
					n--
				}
			}
			if end == pg.numValues && n == 0 {
				// the last skipped row may continue on the next page
				n = 0
			}
		}
		if err := l.skipValues(l.valuesIn(start, end)); err != nil {
			return l.wrap(err)
		}
		pg.pos = end
		if l.maxRep > 0 && end < pg.numValues {
			return nil
		}
	}
	if l.maxRep > 0 {
		return l.skipContinuation()
	}
	return nil
}

// wantFrom is how many entries of a page starting done rows past the read
// position the read needs (0: all), from prefixLeft.
func (l *LeafReader) wantFrom(done int) int {
	if l.prefixLeft <= 0 || l.maxRep > 0 {
		return 0
	}
	return max(l.prefixLeft-done, 1)
}

// valuesIn counts the level entries [start, end) of the current page that
// hold a value (are defined at the leaf), i.e. the values to skip.
func (l *LeafReader) valuesIn(start, end int) int {
	if l.pg.defs == nil {
		return end - start
	}
	nv := 0
	for _, d := range l.pg.defs[start:end] {
		if int(d) == l.maxDef {
			nv++
		}
	}
	return nv
}

// skipContinuation drops entries at the head of the next pages that
// continue the last skipped row.
func (l *LeafReader) skipContinuation() error {
	for {
		if l.pg.pos < l.pg.numValues {
			pg := &l.pg
			start, end := pg.pos, pg.pos
			for end < pg.numValues && pg.reps[end] != 0 {
				end++
			}
			if err := l.skipValues(l.valuesIn(start, end)); err != nil {
				return l.wrap(err)
			}
			pg.pos = end
			return nil
		}
		h, body, err := l.nextDataPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := l.preparePage(h, body); err != nil {
			return err
		}
	}
}

// consume turns k level entries (defs nil: all defined) of the current page
// into Arrow slots.
func (l *LeafReader) consume(defs []uint8, k int) error {
	o := &l.out
	start := o.length
	if defs == nil {
		o.ensureSlots(start + k)
		if err := l.readDense(start, k); err != nil {
			return err
		}
		if o.validity.b != nil {
			setBits(o.validity.b, start, k)
		}
		o.length += k
		return nil
	}
	maxDef, slotDef := uint8(l.maxDef), uint8(l.slotDef)
	nslots, nv := 0, 0
	for _, d := range defs {
		if d >= slotDef {
			nslots++
			if d == maxDef {
				nv++
			}
		}
	}
	o.ensureSlots(start + nslots)
	if nv < nslots && o.validity.b == nil {
		o.startValidity(max(o.capSlots(), start+nslots))
	}
	if v := o.validity.b; v != nil {
		s := start
		for _, d := range defs {
			if d >= slotDef {
				setBit(v, s, d == maxDef)
				s++
			}
		}
	}
	if err := l.readDense(start, nv); err != nil {
		return err
	}
	if nv < nslots {
		switch o.kind {
		case targetFixed:
			w := o.width
			spreadFixed(o.values.b[start*w:], w, nslots, nv, o.validity.b, start)
		case targetBool:
			spreadBools(o.values.b, start, nslots, nv, o.validity.b, start)
		default:
			spreadOffsets(o, start, nslots, nv, o.validity.b, start)
		}
	}
	o.nulls += nslots - nv
	o.length += nslots
	return nil
}

// readDense decodes nv values into slots start..start+nv-1.
func (l *LeafReader) readDense(start, nv int) error {
	o := &l.out
	switch o.kind {
	case targetFixed:
		w := o.width
		return l.valuesFixed(o.values.b[start*w:(start+nv)*w], nv)
	case targetBool:
		return l.valuesBool(o.values.b, start, nv)
	}
	return l.valuesBinary(start, nv)
}
