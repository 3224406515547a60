package manifest

import (
	"encoding/binary"
	"math"
	"slices"
)

// encoder appends Avro binary encodings. Records are encoded by hand
// instead of through reflection: the manifest schemas are fixed, and a
// commit may write thousands of entries. Reading back with the Avro
// library checks the encodings in the tests.
type encoder struct {
	buf  []byte
	keys []int // scratch for sorting map keys
}

// long and int share Avro's zig-zag varint, which is Go's varint.
func (e *encoder) long(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }
func (e *encoder) int(v int)      { e.long(int64(v)) }
func (e *encoder) str(s string)   { e.long(int64(len(s))); e.buf = append(e.buf, s...) }
func (e *encoder) bytes(b []byte) { e.long(int64(len(b))); e.buf = append(e.buf, b...) }
func (e *encoder) fixed(b []byte) { e.buf = append(e.buf, b...) }
func (e *encoder) float(f float32) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(f))
}
func (e *encoder) double(f float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(f))
}

func (e *encoder) boolean(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Optional values are ["null", T] unions: branch 0 is null, 1 the value.
func (e *encoder) null()    { e.buf = append(e.buf, 0) }
func (e *encoder) present() { e.buf = append(e.buf, 2) } // zig-zag of 1

func (e *encoder) optLong(p *int64) {
	if p == nil {
		e.null()
		return
	}
	e.present()
	e.long(*p)
}

func (e *encoder) optInt(p *int) {
	if p == nil {
		e.null()
		return
	}
	e.present()
	e.int(*p)
}

func (e *encoder) optBool(p *bool) {
	if p == nil {
		e.null()
		return
	}
	e.present()
	e.boolean(*p)
}

func (e *encoder) optBytes(b []byte) {
	if b == nil {
		e.null()
		return
	}
	e.present()
	e.bytes(b)
}

func (e *encoder) optString(s string) {
	if s == "" {
		e.null()
		return
	}
	e.present()
	e.str(s)
}

// An Avro array is blocks of (count, items) closed by a zero count.
func (e *encoder) arrayStart(n int) {
	if n > 0 {
		e.long(int64(n))
	}
}
func (e *encoder) arrayEnd() { e.long(0) }

func (e *encoder) optLongs(xs []int64) {
	if xs == nil {
		e.null()
		return
	}
	e.present()
	e.arrayStart(len(xs))
	for _, x := range xs {
		e.long(x)
	}
	e.arrayEnd()
}

func (e *encoder) optInts(xs []int) {
	if xs == nil {
		e.null()
		return
	}
	e.present()
	e.arrayStart(len(xs))
	for _, x := range xs {
		e.int(x)
	}
	e.arrayEnd()
}

// sortedKeys gives a map's keys in order, so equal inputs give equal files.
func sortedKeys[V any](scratch []int, m map[int]V) []int {
	scratch = scratch[:0]
	for k := range m {
		scratch = append(scratch, k)
	}
	slices.Sort(scratch)
	return scratch
}

// Maps keyed by column id are arrays of {key, value} records.
func (e *encoder) optLongMap(m map[int]int64) {
	if m == nil {
		e.null()
		return
	}
	e.present()
	e.keys = sortedKeys(e.keys, m)
	keys := e.keys
	e.arrayStart(len(keys))
	for _, k := range keys {
		e.int(k)
		e.long(m[k])
	}
	e.arrayEnd()
}

func (e *encoder) optBytesMap(m map[int][]byte) {
	if m == nil {
		e.null()
		return
	}
	e.present()
	e.keys = sortedKeys(e.keys, m)
	keys := e.keys
	e.arrayStart(len(keys))
	for _, k := range keys {
		e.int(k)
		e.bytes(m[k])
	}
	e.arrayEnd()
}
