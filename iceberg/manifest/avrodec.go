package manifest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/floedb/floe/errkind"
	"github.com/twmb/avro"
)

// reader decodes Avro binary values; every read checks the bytes left.
// It keeps its place as an offset rather than reslicing buf: a reader
// lives on the heap (the compiled decoders take it by pointer), and
// storing a slice there is a GC write barrier per value while a
// collection runs, which was a tenth of planning's CPU with a million
// files; an int is stored without one.
type reader struct {
	buf []byte
	pos int
}

var errTruncated = errors.New("truncated Avro data")

// left is how many bytes remain.
func (r *reader) left() int { return len(r.buf) - r.pos }

// rest is the bytes not read yet.
func (r *reader) rest() []byte { return r.buf[r.pos:] }

// long reads a zig-zag varint, Avro's int and long encoding (and Go's).
func (r *reader) long() (int64, error) {
	if p := r.pos; p < len(r.buf) {
		if b := int64(r.buf[p]); b < 0x80 {
			// One byte, as most ids, counts and lengths in manifests are.
			r.pos = p + 1
			return b>>1 ^ -(b & 1), nil
		}
	}
	v, n := binary.Varint(r.buf[r.pos:])
	if n <= 0 {
		if n == 0 {
			return 0, errTruncated
		}
		return 0, errors.New("Avro varint overflows 64 bits")
	}
	r.pos += n
	return v, nil
}

// length reads a byte count and checks that many bytes remain.
func (r *reader) length() (int, error) {
	n, err := r.long()
	if err != nil {
		return 0, err
	}
	if n < 0 || n > int64(r.left()) {
		return 0, fmt.Errorf("Avro length %d with %d bytes left", n, r.left())
	}
	return int(n), nil
}

// bytes returns the next bytes value; it shares the block's memory.
func (r *reader) bytes() ([]byte, error) {
	n, err := r.length()
	if err != nil {
		return nil, err
	}
	b := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *reader) fixed(n int) ([]byte, error) {
	if n > r.left() {
		return nil, errTruncated
	}
	b := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *reader) boolean() (bool, error) {
	b, err := r.fixed(1)
	if err != nil {
		return false, err
	}
	return b[0] != 0, nil
}

// blockCount reads the item count of an array or map block; a negative
// count is followed by the block's byte size, which we do not need.
func (r *reader) blockCount() (int64, error) {
	n, err := r.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, errors.New("corrupt Avro block count")
		}
		n = -n
		if _, err := r.long(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// itemCount is blockCount for items of at least one byte: a count the
// remaining bytes cannot hold is corrupt, which also bounds allocations.
func (r *reader) itemCount() (int, error) {
	n, err := r.blockCount()
	if err != nil {
		return 0, err
	}
	if n > int64(r.left()) {
		return 0, fmt.Errorf("Avro block of %d items with %d bytes left", n, r.left())
	}
	return int(n), nil
}

// The writer's schema is compiled into closures. A schema tree from the
// Avro library has named types expanded, so the only node kinds are
// primitives, "fixed", "enum", "record", "array", "map" and "union".

type valueFn func(r *reader) (any, error)
type skipFn func(r *reader) error

// maxSchemaDepth bounds recursion over hostile schemas; manifests nest five
// levels.
const maxSchemaDepth = 32

func checkDepth(depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("Avro schema nests deeper than %d levels", maxSchemaDepth)
	}
	return nil
}

// compileSkip builds a function that steps over one value of type n.
func compileSkip(n *avro.SchemaNode, depth int) (skipFn, error) {
	if err := checkDepth(depth); err != nil {
		return nil, err
	}
	switch n.Type {
	case "null":
		return func(*reader) error { return nil }, nil
	case "boolean":
		return func(r *reader) error { _, err := r.fixed(1); return err }, nil
	case "int", "long", "enum":
		return func(r *reader) error { _, err := r.long(); return err }, nil
	case "float":
		return func(r *reader) error { _, err := r.fixed(4); return err }, nil
	case "double":
		return func(r *reader) error { _, err := r.fixed(8); return err }, nil
	case "bytes", "string":
		return func(r *reader) error { _, err := r.bytes(); return err }, nil
	case "fixed":
		size := n.Size
		return func(r *reader) error { _, err := r.fixed(size); return err }, nil
	case "record", "error":
		fields := make([]skipFn, len(n.Fields))
		for i := range n.Fields {
			var err error
			if fields[i], err = compileSkip(&n.Fields[i].Type, depth+1); err != nil {
				return nil, err
			}
		}
		return func(r *reader) error {
			for _, f := range fields {
				if err := f(r); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case "array", "map":
		isMap := n.Type == "map"
		elem := n.Items
		if isMap {
			elem = n.Values
		}
		if elem == nil {
			return nil, fmt.Errorf("Avro %s without an element type", n.Type)
		}
		item, err := compileSkip(elem, depth+1)
		if err != nil {
			return nil, err
		}
		return func(r *reader) error {
			for {
				// Items may take no bytes (null), so the count is bounded by a
				// budget rather than by the bytes left.
				count, err := r.blockCount()
				if err != nil {
					return err
				}
				if count == 0 {
					return nil
				}
				if count > maxBlockBytes {
					return fmt.Errorf("Avro %s block of %d items", n.Type, count)
				}
				for range count {
					if isMap {
						if _, err := r.bytes(); err != nil {
							return err
						}
					}
					if err := item(r); err != nil {
						return err
					}
				}
			}
		}, nil
	case "union":
		branches := make([]skipFn, len(n.Branches))
		for i := range n.Branches {
			var err error
			if branches[i], err = compileSkip(&n.Branches[i], depth+1); err != nil {
				return nil, err
			}
		}
		return func(r *reader) error {
			i, err := r.long()
			if err != nil {
				return err
			}
			if i < 0 || i >= int64(len(branches)) {
				return fmt.Errorf("Avro union branch %d of %d", i, len(branches))
			}
			return branches[i](r)
		}, nil
	}
	return nil, errkind.Errorf(errkind.Unsupported, "unsupported Avro type %q (recursive types are not supported)", n.Type)
}

// compileValue builds a decoder of an optional primitive at path into its
// raw Go form: nil, bool, int32, int64, float32, float64, string or []byte.
// Partition values go through it.
func compileValue(n *avro.SchemaNode, path string) (valueFn, error) {
	inner, p, err := resolveNull(n, path, false)
	if err != nil {
		return nil, err
	}
	var read valueFn
	switch inner.Type {
	case "boolean":
		read = func(r *reader) (any, error) { return r.boolean() }
	case "int":
		read = func(r *reader) (any, error) {
			v, err := r.long()
			if err != nil {
				return nil, err
			}
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, fmt.Errorf("Avro int %d out of range", v)
			}
			return int32(v), nil
		}
	case "long":
		read = func(r *reader) (any, error) { return r.long() }
	case "float":
		read = func(r *reader) (any, error) {
			b, err := r.fixed(4)
			if err != nil {
				return nil, err
			}
			return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
		}
	case "double":
		read = func(r *reader) (any, error) {
			b, err := r.fixed(8)
			if err != nil {
				return nil, err
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
		}
	case "string":
		read = func(r *reader) (any, error) {
			b, err := r.bytes()
			return string(b), err
		}
	case "bytes":
		read = func(r *reader) (any, error) { return r.bytes() }
	case "fixed":
		size := inner.Size
		read = func(r *reader) (any, error) { return r.fixed(size) }
	case "null":
		return func(*reader) (any, error) { return nil, nil }, nil
	default:
		return nil, fmt.Errorf("Avro type %q cannot hold a partition value", inner.Type)
	}
	if !p.union {
		return read, nil
	}
	return func(r *reader) (any, error) {
		ok, err := p.present(r)
		if err != nil || !ok {
			return nil, err
		}
		return read(r)
	}, nil
}
