package parquet

import (
	"errors"
	"fmt"
)

// The Parquet footer and page headers are Thrift compact-protocol structs.
// We parse them ourselves, bounded by the bytes at hand: a generic decoder
// that trusts list lengths would allocate whatever a corrupt file claims.

const (
	thriftStop   = 0
	thriftTrue   = 1
	thriftFalse  = 2
	thriftByte   = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
)

// maxThriftDepth bounds struct nesting so that garbage cannot recurse deeply.
const maxThriftDepth = 32

var errThriftTruncated = errors.New("thrift: truncated input")

type ThriftReader struct {
	Buf   []byte
	Pos   int
	depth int
}

func (r *ThriftReader) remaining() int { return len(r.Buf) - r.Pos }

func (r *ThriftReader) byte1() (byte, error) {
	if r.Pos >= len(r.Buf) {
		return 0, errThriftTruncated
	}
	b := r.Buf[r.Pos]
	r.Pos++
	return b, nil
}

func (r *ThriftReader) uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.Pos >= len(r.Buf) {
			return 0, errThriftTruncated
		}
		b := r.Buf[r.Pos]
		r.Pos++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("thrift: varint overflows 64 bits")
}

func (r *ThriftReader) varint() (int64, error) {
	u, err := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

func (r *ThriftReader) i32() (int32, error) {
	v, err := r.varint()
	if err != nil {
		return 0, err
	}
	if v != int64(int32(v)) {
		return 0, fmt.Errorf("thrift: i32 value %d out of range", v)
	}
	return int32(v), nil
}

func (r *ThriftReader) i64() (int64, error) { return r.varint() }

// binary returns a slice that aliases the input buffer.
func (r *ThriftReader) binary() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(r.remaining()) {
		return nil, errThriftTruncated
	}
	b := r.Buf[r.Pos : r.Pos+int(n) : r.Pos+int(n)]
	r.Pos += int(n)
	return b, nil
}

func (r *ThriftReader) str() (string, error) {
	b, err := r.binary()
	return string(b), err
}

// listHeader returns the element type and count. Every element takes at
// least one byte, so a count above the remaining input is corrupt.
func (r *ThriftReader) listHeader() (byte, int, error) {
	b, err := r.byte1()
	if err != nil {
		return 0, 0, err
	}
	n := uint64(b >> 4)
	if n == 15 {
		if n, err = r.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	if n > uint64(r.remaining()) {
		return 0, 0, fmt.Errorf("thrift: list of %d elements exceeds the %d bytes left", n, r.remaining())
	}
	return b & 0x0f, int(n), nil
}

// readStruct calls field for each field of the struct at the cursor. The
// callback must consume the field's value (or call skip).
func (r *ThriftReader) readStruct(field func(id int16, typ byte) error) error {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxThriftDepth {
		return errors.New("thrift: structs nested too deeply")
	}
	var last int16
	for {
		b, err := r.byte1()
		if err != nil {
			return err
		}
		typ := b & 0x0f
		if typ == thriftStop {
			return nil
		}
		id := last + int16(b>>4)
		if b>>4 == 0 {
			v, err := r.varint()
			if err != nil {
				return err
			}
			id = int16(v)
		}
		last = id
		if err := field(id, typ); err != nil {
			return err
		}
	}
}

// boolField reads a struct field of boolean type, whose value lives in the
// type nibble of the compact protocol.
func boolField(typ byte) bool { return typ == thriftTrue }

func (r *ThriftReader) skip(typ byte) error {
	switch typ {
	case thriftTrue, thriftFalse:
		return nil
	case thriftByte:
		_, err := r.byte1()
		return err
	case thriftI16, thriftI32, thriftI64:
		_, err := r.uvarint()
		return err
	case thriftDouble:
		if r.remaining() < 8 {
			return errThriftTruncated
		}
		r.Pos += 8
		return nil
	case thriftBinary:
		_, err := r.binary()
		return err
	case thriftList, thriftSet:
		et, n, err := r.listHeader()
		if err != nil {
			return err
		}
		for range n {
			if et == thriftTrue || et == thriftFalse {
				// booleans inside lists take a whole byte
				if _, err := r.byte1(); err != nil {
					return err
				}
				continue
			}
			if err := r.skip(et); err != nil {
				return err
			}
		}
		return nil
	case thriftMap:
		n, err := r.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n > uint64(r.remaining()) {
			return errThriftTruncated
		}
		kv, err := r.byte1()
		if err != nil {
			return err
		}
		for range n {
			if err := r.skip(kv >> 4); err != nil {
				return err
			}
			if err := r.skip(kv & 0x0f); err != nil {
				return err
			}
		}
		return nil
	case thriftStruct:
		return r.readStruct(func(_ int16, t byte) error { return r.skip(t) })
	default:
		return fmt.Errorf("thrift: unknown field type %d", typ)
	}
}

// expect checks a field's wire type; a field of an unexpected type is
// skipped by the caller rather than misread.
func expect(typ, want byte) bool {
	if want == thriftTrue {
		return typ == thriftTrue || typ == thriftFalse
	}
	return typ == want
}
