package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"unsafe"

	"github.com/floedb/floe/kernels"
)

// Decoding a selection of many short runs: every page of the window is
// walked once and only the kept values are copied out, so the rows a
// delete or filter drops are never written to the output and the batch
// needs no compaction pass afterwards. Dictionary indexes are cut down to
// the kept rows before the gather; PLAIN values are gathered straight from
// the page. Pages without a kept row stay compressed. Spans this cannot
// decode selectively (nulls, the rarer encodings) are decoded whole and
// compacted in place.

// keptDecodable reports whether the leaf can decode a selection value by
// value: a top-level primitive column. A leaf inside a struct is decoded
// like its siblings, which the struct is assembled from.
func (l *LeafReader) keptDecodable() bool {
	n := l.Node
	return l.maxRep == 0 && !l.keepLevels && l.slotDef == 0 && n.Parent != nil && n.Parent.Parent == nil
}

// readKept decodes the n rows of the window that sel keeps (idx: their
// indices, ascending).
func (l *LeafReader) readKept(idx []int32, n int) error {
	l.defs, l.reps = l.defs[:0], l.reps[:0]
	l.out.begin(len(idx))
	return l.walkPages(idx, false, n, func(seg []int32, _, base, k int) error {
		return l.consumeKept(seg, base, k)
	})
}

// walkPages steps the page cursor through the window's next n rows. At
// each stretch of a page it calls each with that stretch's k level
// entries (window rows base..base+k-1) and seg, the rows of idx (kept
// rows, ascending) among them, the first of which is kept row ord of the
// window; with all, every row is kept (seg is nil, ord is base). Pages
// holding no kept row are passed over still compressed.
func (l *LeafReader) walkPages(idx []int32, all bool, n int, each func(seg []int32, ord, base, k int) error) error {
	if err := l.chunk.ensureLoaded(); err != nil {
		return err
	}
	if l.rowPos < l.chunk.skippedRows {
		return l.errorf("rows %d..%d were left out of the read", l.rowPos, l.chunk.skippedRows)
	}
	base, next := 0, 0 // window row of the page cursor; first index at or past it
	// Rows past the last kept one need not be decompressed (page_prefix.go).
	need := 0
	if !all && len(idx) > 0 {
		if last := int(idx[len(idx)-1]) + 1; n-last >= max(n/prefixTailShare, 1) {
			need = last
		}
	}
	for base < n {
		if rest := l.pg.rest; l.pg.pos >= l.pg.numValues && rest != nil {
			if next == len(idx) && !all {
				// no kept row left: pass over the part never decompressed
				k := min(n-base, int(rest.h.NumValues)-l.pg.pos)
				l.pg.pos += k
				base += k
				if l.pg.pos >= int(rest.h.NumValues) {
					l.pg.rest = nil
				}
				continue
			}
			if err := l.completePage(); err != nil {
				return err
			}
		}
		if l.pg.pos >= l.pg.numValues {
			h, body, err := l.nextDataPage()
			if err == io.EOF {
				return l.errorf("column chunk ends %d rows before its row group", n-base)
			}
			if err != nil {
				return err
			}
			if rows := int(h.NumValues); !all && rows <= n-base && (next == len(idx) || int(idx[next]) >= base+rows) {
				base += rows // no kept row on this page
				continue
			}
			want := 0
			if need > 0 {
				want = max(need-base, 1)
			}
			if err := l.preparePageWant(h, body, want); err != nil {
				return err
			}
			continue
		}
		k := min(n-base, l.pg.numValues-l.pg.pos)
		var err error
		if all {
			err = each(nil, base, base, k)
		} else {
			end := next + sort.Search(len(idx)-next, func(j int) bool { return int(idx[next+j]) >= base+k })
			err = each(idx[next:end], next, base, k)
			next = end
		}
		if err != nil {
			return l.wrap(err)
		}
		l.pg.pos += k
		base += k
	}
	l.rowPos += int64(n)
	return nil
}

// consumeKept turns the k level entries at the page cursor (window rows
// base..base+k-1) into the slots of the rows idx keeps.
func (l *LeafReader) consumeKept(idx []int32, base, k int) error {
	var defs []uint8
	if l.pg.defs != nil {
		defs = l.pg.defs[l.pg.pos : l.pg.pos+k]
	}
	switch {
	case len(idx) == 0:
		return l.skipValues(l.valuesIn(l.pg.pos, l.pg.pos+k))
	case len(idx) == k:
		return l.consume(defs, k)
	case defs == nil:
		done, err := l.denseKept(idx, base, k)
		if done || err != nil {
			return err
		}
	}
	start := l.out.length
	if err := l.consume(defs, k); err != nil {
		return err
	}
	l.out.compact(start, k, idx, base, &l.keptScratch)
	return nil
}

// denseKept decodes the k non-null values at the page cursor, writing
// only those of the rows idx keeps; false (nothing consumed) when the
// page's encoding or the conversion has no selective form.
func (l *LeafReader) denseKept(idx []int32, base, k int) (bool, error) {
	o := &l.out
	pv := &l.pg.values
	c := l.conv
	start, kk := o.length, len(idx)
	switch o.kind {
	case targetFixed:
		dst := o.values.b[start*o.width : (start+kk)*o.width]
		switch {
		case pv.kind == formDict:
			i, err := pv.take(k)
			if err != nil {
				return true, err
			}
			done, err := l.dict.gatherFixedKept(dst, l.idx[i:i+k], idx, base, c.width)
			if err != nil {
				return true, err
			}
			if !done {
				if err := l.dict.gatherFixed(dst, l.cutIndexes(l.idx[i:i+k], idx, base), c.width); err != nil {
					return true, err
				}
			}
		case pv.kind == formPlain && c.fromBytes == nil:
			src, err := l.fixedValues(k)
			if err != nil {
				return true, err
			}
			if c.fixed == nil {
				kernels.GatherFixed(dst, src, c.width, idx, base)
			} else {
				phys := l.keptScratch.take(kk * c.physWidth)
				kernels.GatherFixed(phys, src, c.physWidth, idx, base)
				c.fixed(dst, phys, kk)
			}
		default:
			return false, nil
		}
	case targetBool:
		if pv.kind != formDict {
			return false, nil
		}
		sub, err := l.keptIndexes(idx, base, k)
		if err != nil {
			return true, err
		}
		if err := l.dict.gatherBools(o.values.b, start, sub); err != nil {
			return true, err
		}
	default:
		if pv.kind != formDict && (pv.kind != formPlain || c.fixedAsBinary) {
			return false, nil
		}
		if o.data.b == nil {
			l.reserveData()
		}
		if pv.kind == formDict {
			sub, err := l.keptIndexes(idx, base, k)
			if err != nil {
				return true, err
			}
			if err := l.dict.gatherBinary(o, start, sub); err != nil {
				return true, err
			}
		} else if err := l.plainBinaryKept(idx, base, k); err != nil {
			return true, err
		}
	}
	if o.validity.b != nil {
		setBits(o.validity.b, start, kk)
	}
	o.length += kk
	return true, nil
}

// keptIndexes takes the page's next k dictionary indexes and returns
// those of the kept rows.
func (l *LeafReader) keptIndexes(idx []int32, base, k int) ([]int32, error) {
	i, err := l.pg.values.take(k)
	if err != nil {
		return nil, err
	}
	return l.cutIndexes(l.idx[i:i+k], idx, base), nil
}

// cutIndexes returns src[idx[j]-base] for every j, in scratch.
func (l *LeafReader) cutIndexes(src, idx []int32, base int) []int32 {
	b := l.keptScratch.take(4 * max(len(idx), 1))
	kernels.GatherFixed(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), 4*len(src)), 4, idx, base)
	return viewAs[int32](b, len(idx))
}

// plainBinaryKept copies the kept ones of the page's next k PLAIN byte
// arrays into the output, in one walk over them: they are length-prefixed,
// so every value must be stepped over anyway.
func (l *LeafReader) plainBinaryKept(idx []int32, base, k int) error {
	pv := &l.pg.values
	o := &l.out
	data, pos := pv.data, pv.pos
	first, dpos := o.length, o.dataLen
	out := o.data.b
	j, next := 0, int(idx[0])-base
	for v := range k {
		if len(data)-pos < 4 {
			return fmt.Errorf("page has fewer values than its levels promise")
		}
		size := int(binary.LittleEndian.Uint32(data[pos:]))
		if size < 0 || size > len(data)-pos-4 {
			return fmt.Errorf("byte array of %d bytes overruns its page", size)
		}
		if v == next {
			// slack past the value lets a short one move as one block
			if dpos+size+shortCopy > len(out) {
				o.dataLen = dpos
				if err := o.ensureData(size + shortCopy); err != nil {
					return err
				}
				out = o.data.b
			}
			from := pos + 4
			if size <= shortCopy && len(data)-from >= shortCopy {
				*(*[shortCopy]byte)(out[dpos:]) = *(*[shortCopy]byte)(data[from:])
				dpos += size
			} else {
				dpos += copy(out[dpos:], data[from:from+size])
			}
			o.setOffset(first+1+j, dpos)
			if j++; j < len(idx) {
				next = int(idx[j]) - base
			}
		}
		pos += 4 + size
	}
	pv.pos = pos
	o.dataLen = dpos
	return nil
}

// compact keeps, of the k slots written from start (window rows base...),
// those of the rows idx keeps, moving them down in place.
func (o *leafOutput) compact(start, k int, idx []int32, base int, s *scratch) {
	kk := len(idx)
	if v := o.validity.b; v != nil {
		before := k - kernels.CountBits(v, start, k)
		kernels.CompactBits(v, start, idx, base)
		o.nulls += kk - kernels.CountBits(v, start, kk) - before
	}
	switch o.kind {
	case targetFixed:
		w := o.width
		b := o.values.b[start*w : (start+k)*w]
		kernels.GatherFixed(b, b, w, idx, base)
	case targetBool:
		kernels.CompactBits(o.values.b, start, idx, base)
	default:
		// The old offsets are read while new ones are written over them,
		// so they are copied out first.
		ob := s.take(8 * (k + 1))
		old := viewAs[int64](ob, k+1)
		for r := range old {
			old[r] = int64(o.offset(start + r))
		}
		data, dpos := o.data.b, int(old[0])
		for j, i := range idx {
			r := int(i) - base
			dpos += copy(data[dpos:], data[old[r]:old[r+1]])
			o.setOffset(start+1+j, dpos)
		}
		o.dataLen = dpos
	}
	o.length = start + kk
}
