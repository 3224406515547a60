package manifest

import (
	"encoding/binary"
	"math"
)

// encoder appends Avro binary encodings. Records are encoded by hand
// instead of through reflection: the manifest schemas are fixed, and a
// commit may write thousands of entries. Reading back with the Avro
// library checks the encodings in the tests.
type encoder struct {
	buf []byte
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

// optMetrics writes one kind of a file's metrics as its map (an array of
// {key, value} records, ascending by key, so equal inputs give equal
// files), or null when the file has none of that kind.
func (e *encoder) optMetrics(m Metrics, kind metricKind) {
	n := m.kindLen(kind)
	if n == 0 {
		e.null()
		return
	}
	e.present()
	e.arrayStart(n)
	if kind.isBound() {
		m.eachBound(kind, func(id int64, v []byte) { e.long(id); e.bytes(v) })
	} else {
		m.eachCount(kind, func(id, v int64) { e.long(id); e.long(v) })
	}
	e.arrayEnd()
}
