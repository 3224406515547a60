package parquet

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/floedb/floe/errkind"
)

// pageValues is the cursor over one data page's values section. Simple
// encodings are read in place; dictionary indexes, RLE booleans and the
// delta encodings are expanded once per page into the leaf's scratch.
type pageValues struct {
	enc  Encoding
	data []byte // PLAIN bytes (or delta-decoded fixed values), BSS streams
	pos  int    // byte cursor, or bit cursor for PLAIN booleans
	i    int    // value cursor for expanded encodings and BSS
	n    int    // values present in the expanded form / BSS streams
	kind valuesForm
}

type valuesForm uint8

const (
	formPlain       valuesForm = iota // data read in place
	formDict                          // indexes in leaf.idx
	formBoolBytes                     // booleans one per byte in leaf.bools
	formDeltaBytes                    // byte arrays in leaf.deltaData/deltaOffs
	formStreamSplit                   // BYTE_STREAM_SPLIT streams in data
)

// setupValues prepares the cursor for a page whose values section is data
// and which holds count non-null values.
func (l *LeafReader) setupValues(enc Encoding, data []byte, count int) error {
	pv := &l.pg.values
	*pv = pageValues{enc: enc, data: data}
	phys := l.Node.Physical
	switch enc {
	case EncPlain:
		pv.n = count
		return nil
	case EncPlainDictionary, EncRLEDictionary:
		if !l.dict.loaded {
			return fmt.Errorf("dictionary-encoded page without a dictionary page")
		}
		if len(data) < 1 {
			if count == 0 {
				pv.kind = formDict
				return nil
			}
			return errShortValues("data", count)
		}
		idx := l.idxBuf(count)
		if err := l.hyb.decode(idx, data[1:], int(data[0])); err != nil {
			return err
		}
		pv.kind, pv.n = formDict, count
		return nil
	case EncRLE:
		if phys != Boolean {
			return fmt.Errorf("RLE values on a %s column", phys)
		}
		if len(data) < 4 {
			return errShortValues("data", count)
		}
		size := binary.LittleEndian.Uint32(data)
		if uint64(size) > uint64(len(data)-4) {
			return errShortValues("data", count)
		}
		l.bools = grow(l.bools, count)
		if err := decodeHybridU8(l.bools, data[4:4+size], 1); err != nil {
			return err
		}
		pv.kind, pv.n = formBoolBytes, count
		return nil
	case EncDeltaBinaryPacked:
		if phys != Int32 && phys != Int64 {
			return fmt.Errorf("DELTA_BINARY_PACKED values on a %s column", phys)
		}
		vals, _, err := l.delta.binaryPacked(l.delta64, data, count)
		if err != nil {
			return err
		}
		l.delta64 = vals
		if phys == Int64 {
			pv.data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 8*len(vals))
			return nil
		}
		// narrow in place: the low half of each value, packed to the front
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		}
		pv.data = b[:4*len(vals)]
		return nil
	case EncDeltaLengthByteArray, EncDeltaByteArray:
		var err error
		if phys != ByteArray && (phys != FixedLenByteArray || enc != EncDeltaByteArray) {
			return fmt.Errorf("%s values on a %s column", enc, phys)
		}
		if enc == EncDeltaLengthByteArray {
			l.deltaOffs, l.delta64, pv.data, err = l.delta.lengthByteArray(l.deltaOffs, l.delta64, data, count)
		} else {
			l.deltaData, l.deltaOffs, l.delta64, l.deltaLens, l.deltaSufOffs, err = l.delta.byteArray(l.deltaData, l.deltaOffs, l.delta64, l.deltaLens, l.deltaSufOffs, data, count)
			pv.data = l.deltaData
		}
		if err != nil {
			return err
		}
		pv.kind, pv.n = formDeltaBytes, len(l.deltaOffs)-1
		if phys == FixedLenByteArray {
			// fixed-size values back to back are PLAIN
			w := l.Node.TypeLength
			if len(pv.data) != w*pv.n {
				return fmt.Errorf("DELTA_BYTE_ARRAY values are not all %d bytes long", w)
			}
			pv.kind, pv.n = formPlain, count
		}
		return nil
	case EncByteStreamSplit:
		w := l.conv.physWidth
		if w == 0 || phys == Boolean || phys == ByteArray {
			return fmt.Errorf("BYTE_STREAM_SPLIT values on a %s column", phys)
		}
		pv.kind, pv.n = formStreamSplit, len(data)/w
		return nil
	}
	return errkind.Errorf(errkind.Unsupported, "unsupported value encoding %s", enc)
}

func (l *LeafReader) idxBuf(n int) []int32 {
	b := l.idxScratch.take(4 * max(n, 1))
	l.idx = unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), n)
	return l.idx
}

func (pv *pageValues) take(n int) (int, error) {
	if n > pv.n-pv.i {
		return 0, fmt.Errorf("page has fewer values than its levels promise")
	}
	i := pv.i
	pv.i += n
	return i, nil
}

// fixedValues returns n physical fixed-width values (PLAIN layout).
func (l *LeafReader) fixedValues(n int) ([]byte, error) {
	pv := &l.pg.values
	w := l.conv.physWidth
	switch pv.kind {
	case formPlain:
		if n > (len(pv.data)-pv.pos)/w {
			return nil, fmt.Errorf("page has fewer values than its levels promise")
		}
		b := pv.data[pv.pos : pv.pos+n*w]
		pv.pos += n * w
		return b, nil
	case formStreamSplit:
		i, err := pv.take(n)
		if err != nil {
			return nil, err
		}
		out := l.bssScratch.take(n * w)
		for k := range w {
			stream := pv.data[k*pv.n+i : k*pv.n+i+n]
			for v, b := range stream {
				out[v*w+k] = b
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s values on a %s column", pv.enc, l.Node.Physical)
}

// valuesFixed writes n Arrow values (conversion width) to dst.
func (l *LeafReader) valuesFixed(dst []byte, n int) error {
	if n == 0 {
		return nil
	}
	pv := &l.pg.values
	c := l.conv
	if pv.kind == formDict {
		i, err := pv.take(n)
		if err != nil {
			return err
		}
		return l.dict.gatherFixed(dst, l.idx[i:i+n], c.width)
	}
	if c.fromBytes != nil {
		for k := range n {
			v, err := l.nextBytes()
			if err != nil {
				return err
			}
			if err := c.fromBytes(dst[k*c.width:], v); err != nil {
				return err
			}
		}
		return nil
	}
	src, err := l.fixedValues(n)
	if err != nil {
		return err
	}
	if c.fixed == nil {
		copy(dst, src)
	} else {
		c.fixed(dst, src, n)
	}
	return nil
}

// nextBytes returns one BYTE_ARRAY (or FIXED_LEN_BYTE_ARRAY) value.
func (l *LeafReader) nextBytes() ([]byte, error) {
	pv := &l.pg.values
	if l.Node.Physical == FixedLenByteArray {
		return l.fixedValues(1)
	}
	switch pv.kind {
	case formPlain:
		if len(pv.data)-pv.pos < 4 {
			return nil, fmt.Errorf("page has fewer values than its levels promise")
		}
		size := binary.LittleEndian.Uint32(pv.data[pv.pos:])
		if uint64(size) > uint64(len(pv.data)-pv.pos-4) {
			return nil, fmt.Errorf("byte array of %d bytes overruns its page", size)
		}
		v := pv.data[pv.pos+4 : pv.pos+4+int(size)]
		pv.pos += 4 + int(size)
		return v, nil
	case formDeltaBytes:
		i, err := pv.take(1)
		if err != nil {
			return nil, err
		}
		return pv.data[l.deltaOffs[i]:l.deltaOffs[i+1]], nil
	}
	return nil, fmt.Errorf("%s values on a %s column", pv.enc, l.Node.Physical)
}

// valuesBool writes n booleans into bits from bit off.
func (l *LeafReader) valuesBool(bits []byte, off, n int) error {
	pv := &l.pg.values
	switch pv.kind {
	case formPlain:
		if n > len(pv.data)*8-pv.pos {
			return fmt.Errorf("page has fewer values than its levels promise")
		}
		bitutil.CopyBitmap(pv.data, pv.pos, n, bits, off)
		pv.pos += n
		return nil
	case formBoolBytes:
		i, err := pv.take(n)
		if err != nil {
			return err
		}
		for k, b := range l.bools[i : i+n] {
			setBit(bits, off+k, b != 0)
		}
		return nil
	case formDict:
		i, err := pv.take(n)
		if err != nil {
			return err
		}
		return l.dict.gatherBools(bits, off, l.idx[i:i+n])
	}
	return fmt.Errorf("%s values on a BOOLEAN column", pv.enc)
}

// valuesBinary appends n values at slots start..start+n-1.
// shortCopy is the length up to which plain byte-array values are copied
// with one fixed-size move instead of a memmove call per value.
const shortCopy = 32

func (l *LeafReader) valuesBinary(start, n int) error {
	if n == 0 {
		return nil
	}
	pv := &l.pg.values
	o := &l.out
	if o.data.b == nil {
		l.reserveData()
	}
	if pv.kind == formDict {
		i, err := pv.take(n)
		if err != nil {
			return err
		}
		return l.dict.gatherBinary(o, start, l.idx[i:i+n])
	}
	if l.conv.fixedAsBinary {
		w := l.conv.physWidth
		src, err := l.fixedValues(n)
		if err != nil {
			return err
		}
		if err := o.ensureData(n * w); err != nil {
			return err
		}
		copy(o.data.b[o.dataLen:], src)
		for k := range n {
			o.setOffset(start+1+k, o.dataLen+(k+1)*w)
		}
		o.dataLen += n * w
		return nil
	}
	switch pv.kind {
	case formPlain:
		// Two passes: find the page span and total size first, so the data
		// buffer grows once and the copy loop needs no checks.
		data := pv.data
		pos, total := pv.pos, 0
		for range n {
			if len(data)-pos < 4 {
				return fmt.Errorf("page has fewer values than its levels promise")
			}
			size := int(binary.LittleEndian.Uint32(data[pos:]))
			if size < 0 || size > len(data)-pos-4 {
				return fmt.Errorf("byte array of %d bytes overruns its page", size)
			}
			pos += 4 + size
			total += size
		}
		// The slack lets short values be copied as one 32-byte move
		// whatever their length: bytes past a value are overwritten by the
		// next one or lie beyond the batch's data.
		if err := o.ensureData(total + shortCopy); err != nil {
			return err
		}
		out := o.data.b
		dpos := o.dataLen
		pos = pv.pos
		if o.kind == targetBinary {
			offs := o.offsets.b[(start+1)*4:]
			for k := range n {
				size := int(binary.LittleEndian.Uint32(data[pos:]))
				if size <= shortCopy && len(data)-pos-4 >= shortCopy {
					*(*[shortCopy]byte)(out[dpos:]) = *(*[shortCopy]byte)(data[pos+4:])
					dpos += size
				} else {
					dpos += copy(out[dpos:], data[pos+4:pos+4+size])
				}
				pos += 4 + size
				binary.LittleEndian.PutUint32(offs[k*4:], uint32(dpos))
			}
		} else {
			for k := range n {
				size := int(binary.LittleEndian.Uint32(data[pos:]))
				dpos += copy(out[dpos:], data[pos+4:pos+4+size])
				pos += 4 + size
				o.setOffset(start+1+k, dpos)
			}
		}
		pv.pos = pos
		o.dataLen = dpos
		return nil
	case formDeltaBytes:
		i, err := pv.take(n)
		if err != nil {
			return err
		}
		lo, hi := l.deltaOffs[i], l.deltaOffs[i+n]
		if err := o.ensureData(int(hi - lo)); err != nil {
			return err
		}
		copy(o.data.b[o.dataLen:], pv.data[lo:hi])
		base := o.dataLen - int(lo)
		for k := range n {
			o.setOffset(start+1+k, base+int(l.deltaOffs[i+k+1]))
		}
		o.dataLen += int(hi - lo)
		return nil
	}
	return fmt.Errorf("%s values on a %s column", pv.enc, l.Node.Physical)
}

// reserveData sizes a batch's data buffer once, from the average value
// length of the current page (or dictionary), so that it rarely regrows:
// every regrowth is a fresh allocation and a copy.
func (l *LeafReader) reserveData() {
	pv := &l.pg.values
	avg := 16.0
	switch {
	case pv.kind == formDict && l.dict.n > 0:
		avg = float64(l.dict.totalLen) / float64(l.dict.n)
	case pv.kind == formPlain && l.conv.fixedAsBinary:
		avg = float64(l.conv.physWidth)
	case pv.kind == formPlain && pv.n > 0:
		avg = float64(len(pv.data)-4*pv.n) / float64(pv.n)
	case pv.kind == formDeltaBytes && pv.n > 0:
		avg = float64(len(pv.data)) / float64(pv.n)
	}
	l.out.data.reserve(int(float64(l.out.capSlots())*avg*1.1)+64, 0)
}

// skipValues advances past n non-null values.
func (l *LeafReader) skipValues(n int) error {
	if n == 0 {
		return nil
	}
	pv := &l.pg.values
	switch pv.kind {
	case formDict, formBoolBytes, formDeltaBytes, formStreamSplit:
		_, err := pv.take(n)
		return err
	}
	switch l.Node.Physical {
	case Boolean:
		if n > len(pv.data)*8-pv.pos {
			return fmt.Errorf("page has fewer values than its levels promise")
		}
		pv.pos += n
		return nil
	case ByteArray:
		for range n {
			if _, err := l.nextBytes(); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := l.fixedValues(n)
	return err
}
