package parquet

import (
	"encoding/binary"
	"unsafe"
)

// Parquet stores only non-null values; Arrow has a slot per row. We decode
// the dense values straight into the output and then move them out to
// their slots in place, walking backwards so nothing is overwritten early.

func bitIsSet(b []byte, i int) bool { return b[i>>3]>>(i&7)&1 != 0 }

func setBit(b []byte, i int, v bool) {
	if v {
		b[i>>3] |= 1 << (i & 7)
	} else {
		b[i>>3] &^= 1 << (i & 7)
	}
}

// setBits marks n bits from off as set.
func setBits(b []byte, off, n int) {
	for n > 0 && off&7 != 0 {
		b[off>>3] |= 1 << (off & 7)
		off++
		n--
	}
	full := n / 8
	fill(b[off>>3:off>>3+full], 0xff)
	off += full * 8
	n -= full * 8
	for ; n > 0; n-- {
		b[off>>3] |= 1 << (off & 7)
		off++
	}
}

// spreadFixed moves nv dense values of width w at the start of b out to the
// slots whose validity bit (valid, from bit vOff) is set; null slots become
// zero.
func spreadFixed(b []byte, w, nslots, nv int, valid []byte, vOff int) {
	j := nv - 1
	switch w {
	case 8:
		v := unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), nslots)
		for i := nslots - 1; i > j; i-- {
			if bitIsSet(valid, vOff+i) {
				v[i] = v[j]
				j--
			} else {
				v[i] = 0
			}
		}
	case 4:
		v := unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), nslots)
		for i := nslots - 1; i > j; i-- {
			if bitIsSet(valid, vOff+i) {
				v[i] = v[j]
				j--
			} else {
				v[i] = 0
			}
		}
	default:
		for i := nslots - 1; i > j; i-- {
			if bitIsSet(valid, vOff+i) {
				copy(b[i*w:(i+1)*w], b[j*w:(j+1)*w])
				j--
			} else {
				clear(b[i*w : (i+1)*w])
			}
		}
	}
}

// spreadBools does the same for bit-packed booleans starting at bit off.
func spreadBools(bits []byte, off, nslots, nv int, valid []byte, vOff int) {
	j := nv - 1
	for i := nslots - 1; i > j; i-- {
		if bitIsSet(valid, vOff+i) {
			setBit(bits, off+i, bitIsSet(bits, off+j))
			j--
		} else {
			setBit(bits, off+i, false)
		}
	}
}

// spreadOffsets rewrites the offsets of slots start+1..start+nslots, where
// the dense values wrote theirs at start+1..start+nv: a null slot repeats
// the end offset of the value before it.
func spreadOffsets(o *leafOutput, start, nslots, nv int, valid []byte, vOff int) {
	j := nv
	if o.kind == targetLargeBin {
		offs := o.offsets.b[start*8:]
		for s := nslots - 1; s >= 0; s-- {
			binary.LittleEndian.PutUint64(offs[(s+1)*8:], binary.LittleEndian.Uint64(offs[j*8:]))
			if bitIsSet(valid, vOff+s) {
				j--
			}
		}
		return
	}
	offs := o.offsets.b[start*4:]
	for s := nslots - 1; s >= 0; s-- {
		binary.LittleEndian.PutUint32(offs[(s+1)*4:], binary.LittleEndian.Uint32(offs[j*4:]))
		if bitIsSet(valid, vOff+s) {
			j--
		}
	}
}
