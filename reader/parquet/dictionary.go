package parquet

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// dictionary holds a chunk's dictionary page already converted to the
// leaf's Arrow type, so dictionary-encoded pages are a gather and nothing
// more.
type dictionary struct {
	loaded bool
	n      int
	fixed  []byte   // targetFixed: n values of conversion width
	bools  []byte   // targetBool: one byte (0/1) per value
	starts []uint32 // binary targets: value k is data[starts[k]:starts[k]+lens[k]]
	lens   []uint32
	// data is readable shortCopy bytes past its last value (those bytes
	// are zeros), so every value can move as whole words or blocks.
	data []byte
	// pad holds data when the page's own buffer has no room past its end.
	pad []byte
	// totalLen is the sum of lens, for sizing output; maxLen the longest.
	totalLen, maxLen int
}

// padded returns buf readable and zeroed for shortCopy bytes past its
// end: in place when buf is the reader's own decompressed page with room
// to spare, else copied into d.pad. Without it the values near the end of
// a dictionary took a copy call each: the last entries of a small
// dictionary (TPC-H's ship modes) are a good share of the rows, and that
// fallback was a quarter of the gathers of a scan of DuckDB's files.
func (d *dictionary) padded(buf []byte, own bool) []byte {
	n := len(buf)
	if own && cap(buf)-n >= shortCopy {
		buf = buf[:n+shortCopy]
		clear(buf[n:])
		return buf
	}
	d.pad = grow(d.pad, n+shortCopy)
	copy(d.pad, buf)
	clear(d.pad[n:])
	return d.pad
}

func (l *LeafReader) loadDictionary(h *PageHeader, body []byte) error {
	if h.Encoding != EncPlain && h.Encoding != EncPlainDictionary {
		return fmt.Errorf("dictionary page encoded as %s", h.Encoding)
	}
	buf, err := l.pageBytes(body, int(h.UncompressedSize), &l.dictPage)
	if err != nil {
		return err
	}
	d := &l.dict
	n := int(h.NumValues)
	*d = dictionary{loaded: true, n: n, fixed: d.fixed[:0], bools: d.bools[:0], starts: d.starts[:0], lens: d.lens[:0], pad: d.pad}
	// The decompressed page is the reader's own scratch; an uncompressed
	// one points into the chunk, whose next bytes are the next page.
	own := l.codec != CodecUncompressed
	c := l.conv
	switch l.Node.Physical {
	case Boolean:
		if (n+7)/8 > len(buf) {
			return errShortValues("dictionary", n)
		}
		for i := range n {
			d.bools = append(d.bools, buf[i/8]>>(i%8)&1)
		}
		return nil
	case ByteArray:
		pos := 0
		for range n {
			if len(buf)-pos < 4 {
				return errShortValues("dictionary", n)
			}
			size := binary.LittleEndian.Uint32(buf[pos:])
			pos += 4
			if uint64(size) > uint64(len(buf)-pos) {
				return errShortValues("dictionary", n)
			}
			d.starts = append(d.starts, uint32(pos))
			d.lens = append(d.lens, size)
			d.totalLen += int(size)
			d.maxLen = max(d.maxLen, int(size))
			pos += int(size)
		}
		d.data = d.padded(buf, own)
		if c.fromBytes != nil {
			d.fixed = grow(d.fixed, n*c.width)
			for k := range n {
				if err := c.fromBytes(d.fixed[k*c.width:], buf[d.starts[k]:d.starts[k]+d.lens[k]]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	w := c.physWidth
	if n > len(buf)/w {
		return errShortValues("dictionary", n)
	}
	src := buf[:n*w]
	switch {
	case c.fixedAsBinary:
		for k := range n {
			d.starts = append(d.starts, uint32(k*w))
			d.lens = append(d.lens, uint32(w))
		}
		d.data = d.padded(src, own)
		d.totalLen, d.maxLen = n*w, w
	case c.fromBytes != nil:
		d.fixed = grow(d.fixed, n*c.width)
		for k := range n {
			if err := c.fromBytes(d.fixed[k*c.width:], src[k*w:k*w+w]); err != nil {
				return err
			}
		}
	case c.fixed != nil:
		d.fixed = grow(d.fixed, n*c.width)
		c.fixed(d.fixed, src, n)
	default:
		d.fixed = append(grow(d.fixed, 0), src...)
	}
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

func errShortValues(what string, n int) error {
	return fmt.Errorf("%s page ends before its %d values", what, n)
}

func errBadIndex(idx int32, n int) error {
	return fmt.Errorf("dictionary index %d out of range (dictionary has %d values)", idx, n)
}

// gatherFixed writes dict[idx[i]] for each index. The destination is Arrow
// memory, which is aligned; the dictionary is a Go slice, aligned too.
func (d *dictionary) gatherFixed(dst []byte, idx []int32, width int) error {
	if len(idx) == 0 {
		return nil
	}
	switch width {
	case 4:
		return gatherDict(viewAs[uint32](dst, len(idx)), viewAs[uint32](d.fixed, d.n), idx)
	case 8:
		return gatherDict(viewAs[uint64](dst, len(idx)), viewAs[uint64](d.fixed, d.n), idx)
	case 16:
		return gatherDict(viewAs[[2]uint64](dst, len(idx)), viewAs[[2]uint64](d.fixed, d.n), idx)
	}
	n := uint32(d.n)
	for i, k := range idx {
		if uint32(k) >= n {
			return errBadIndex(k, d.n)
		}
		copy(dst[i*width:(i+1)*width], d.fixed[int(k)*width:])
	}
	return nil
}

// gatherFixedKept is gatherFixed for the rows a selection keeps: dst[j] =
// dict[idx[sel[j]-base]], without cutting the indexes down first. false
// when the width has no such loop (the caller then cuts them down).
func (d *dictionary) gatherFixedKept(dst []byte, idx, sel []int32, base, width int) (bool, error) {
	if len(sel) == 0 {
		return true, nil
	}
	switch width {
	case 4:
		return true, gatherKept(viewAs[uint32](dst, len(sel)), viewAs[uint32](d.fixed, d.n), idx, sel, base)
	case 8:
		return true, gatherKept(viewAs[uint64](dst, len(sel)), viewAs[uint64](d.fixed, d.n), idx, sel, base)
	case 16:
		return true, gatherKept(viewAs[[2]uint64](dst, len(sel)), viewAs[[2]uint64](d.fixed, d.n), idx, sel, base)
	}
	return false, nil
}

// viewAs views the first n values of type T in b.
func viewAs[T any](b []byte, n int) []T {
	if n == 0 {
		// checkptr checks a conversion over sizeof(T) even for no values,
		// which an empty tail of a buffer does not have.
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func gatherDict[T any](out, vals []T, idx []int32) error {
	n := uint32(len(vals))
	for i, k := range idx {
		if uint32(k) >= n {
			return errBadIndex(k, len(vals))
		}
		out[i] = vals[k]
	}
	return nil
}

func gatherKept[T any](out, vals []T, idx, sel []int32, base int) error {
	n := uint32(len(vals))
	for j, s := range sel {
		k := idx[int(s)-base]
		if uint32(k) >= n {
			return errBadIndex(k, len(vals))
		}
		out[j] = vals[k]
	}
	return nil
}

func (d *dictionary) gatherBools(bits []byte, off int, idx []int32) error {
	n := uint32(d.n)
	for i, k := range idx {
		if uint32(k) >= n {
			return errBadIndex(k, d.n)
		}
		setBit(bits, off+i, d.bools[k] != 0)
	}
	return nil
}

// gatherBinary appends dict[idx[i]] to the output at slots start+1...,
// sizing the data buffer exactly first.
func (d *dictionary) gatherBinary(o *leafOutput, start int, idx []int32) error {
	n := uint32(d.n)
	total := 0
	for _, k := range idx {
		if uint32(k) >= n {
			return errBadIndex(k, d.n)
		}
		total += int(d.lens[k])
	}
	// shortCopy bytes of slack let short values move as one word or one
	// 32-byte block.
	if err := o.ensureData(total + shortCopy); err != nil {
		return err
	}
	data := o.data.b
	pos := o.dataLen
	// d.data is readable shortCopy bytes past every value (padded), and
	// the output has shortCopy bytes of slack: values move as one word or
	// one or two 32-byte blocks, whose bytes past the value are
	// overwritten by the next one or lie in the slack.
	if d.maxLen <= 8 && o.kind == targetBinary {
		offs := o.offsets.b[4*(start+1) : 4*(start+1+len(idx))]
		for i, k := range idx {
			s := int(d.starts[k])
			binary.LittleEndian.PutUint64(data[pos:], binary.LittleEndian.Uint64(d.data[s:]))
			pos += int(d.lens[k])
			binary.LittleEndian.PutUint32(offs[4*i:], uint32(pos))
		}
	} else if d.maxLen <= 2*shortCopy && o.kind == targetBinary {
		// Values up to 64 bytes (TPC-H's comments, ship instructions,
		// names) without a copy call each.
		offs := o.offsets.b[4*(start+1) : 4*(start+1+len(idx))]
		for i, k := range idx {
			s, l := int(d.starts[k]), int(d.lens[k])
			*(*[shortCopy]byte)(data[pos:]) = *(*[shortCopy]byte)(d.data[s:])
			if l > shortCopy {
				*(*[shortCopy]byte)(data[pos+shortCopy:]) = *(*[shortCopy]byte)(d.data[s+shortCopy:])
			}
			pos += l
			binary.LittleEndian.PutUint32(offs[4*i:], uint32(pos))
		}
	} else {
		for i, k := range idx {
			s, l := d.starts[k], d.lens[k]
			pos += copy(data[pos:], d.data[s:s+l])
			o.setOffset(start+1+i, pos)
		}
	}
	o.dataLen = pos
	return nil
}
