package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// keyClass is the canonical kind of a key value. Types that Iceberg may
// promote into one another share a class, so a key read before and after
// promotion matches: all signed integers, float and double, decimals of
// any precision at one scale, string and large_string.
type keyClass uint8

const (
	classNull keyClass = iota
	classBool
	classInt
	classUint
	classFloat
	classDate32
	classDate64
	classTime      // param: unit
	classTimestamp // param: unit; the zone label does not change the instant
	classDuration  // param: unit
	classDecimal   // param: scale
	classString
	classBinary
	classFixed // param: width
)

// keyColumn is one key column prepared for hashing, encoding and
// comparison: raw buffers and the canonical class.
type keyColumn struct {
	class     keyClass
	param     uint64
	code      uint64 // class and param, mixed into every value's hash
	offset    int
	valid     []byte // nil when the column has no nulls
	allNull   bool
	values    []byte
	width     int
	signed    bool
	float     bool
	offsets32 []int32
	offsets64 []int64
	data      []byte
}

// Keys is a set of equally long key columns (an equality delete's key)
// prepared once for hashing, encoding and comparing rows. Canonical
// values: null equals null and differs from every value; -0.0 equals 0.0;
// all NaNs are equal; int and long, float and double, decimal precisions,
// string and large_string compare by value. Keys reads the arrays'
// buffers in place: they must outlive it. Equal and Encode may be called
// concurrently; Hash reuses scratch space and may not.
type Keys struct {
	cols  []keyColumn
	rows  int
	words []uint64
}

var nullCode = mix(uint64(classNull), mixK2)

// NewKeys prepares cols, which must all have the same length and primitive
// types.
func NewKeys(cols []arrow.Array) (*Keys, error) {
	k := &Keys{cols: make([]keyColumn, len(cols))}
	for i, col := range cols {
		if i == 0 {
			k.rows = col.Len()
		} else if col.Len() != k.rows {
			return nil, fmt.Errorf("kernels: key column %d has %d rows, column 0 has %d", i, col.Len(), k.rows)
		}
		if err := k.cols[i].prepare(col.Data()); err != nil {
			return nil, fmt.Errorf("key column %d: %w", i, err)
		}
	}
	return k, nil
}

func (c *keyColumn) prepare(d arrow.ArrayData) error {
	dt := d.DataType()
	if ext, ok := dt.(arrow.ExtensionType); ok {
		dt = ext.StorageType()
	}
	c.offset = d.Offset()
	c.values = bufferBytes(d, 1)
	if dt.ID() == arrow.NULL {
		c.allNull = true
	} else if nullCount(d) > 0 {
		c.valid = bufferBytes(d, 0)
	}
	switch t := dt.(type) {
	case *arrow.NullType:
		c.class = classNull
	case *arrow.BooleanType:
		c.class = classBool
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		c.class, c.signed = classInt, true
	case *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		c.class = classUint
	case *arrow.Float32Type, *arrow.Float64Type:
		c.class, c.float = classFloat, true
	case *arrow.Date32Type:
		c.class, c.signed = classDate32, true
	case *arrow.Date64Type:
		c.class, c.signed = classDate64, true
	case *arrow.Time32Type:
		c.class, c.signed, c.param = classTime, true, uint64(t.Unit)
	case *arrow.Time64Type:
		c.class, c.signed, c.param = classTime, true, uint64(t.Unit)
	case *arrow.TimestampType:
		c.class, c.signed, c.param = classTimestamp, true, uint64(t.Unit)
	case *arrow.DurationType:
		c.class, c.signed, c.param = classDuration, true, uint64(t.Unit)
	case *arrow.Decimal128Type:
		c.class, c.param = classDecimal, uint64(t.Scale)
	case *arrow.FixedSizeBinaryType:
		c.class, c.param = classFixed, uint64(t.ByteWidth)
	case *arrow.StringType, *arrow.BinaryType:
		c.class = classBinary
		c.offsets32 = view[int32](c.values)
		c.data = bufferBytes(d, 2)
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		c.class = classBinary
		c.offsets64 = view[int64](c.values)
		c.data = bufferBytes(d, 2)
	default:
		return fmt.Errorf("kernels: %s cannot be an equality key", dt)
	}
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		c.class = classString
	}
	if w, ok := byteWidth(dt); ok {
		c.width = w
	}
	c.code = mix(uint64(c.class), c.param)
	return nil
}

func (c *keyColumn) isNull(row int) bool {
	return c.allNull || (c.valid != nil && !bitutil.BitIsSet(c.valid, c.offset+row))
}

// word returns the canonical 64-bit value of a class that fits one.
func (c *keyColumn) word(row int) uint64 {
	p := c.offset + row
	switch {
	case c.class == classBool:
		if bitutil.BitIsSet(c.values, p) {
			return 1
		}
		return 0
	case c.float && c.width == 4:
		return canonicalFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(c.values[4*p:]))))
	case c.float:
		return canonicalFloat(math.Float64frombits(binary.LittleEndian.Uint64(c.values[8*p:])))
	}
	switch c.width {
	case 1:
		if c.signed {
			return uint64(int64(int8(c.values[p])))
		}
		return uint64(c.values[p])
	case 2:
		v := binary.LittleEndian.Uint16(c.values[2*p:])
		if c.signed {
			return uint64(int64(int16(v)))
		}
		return uint64(v)
	case 4:
		v := binary.LittleEndian.Uint32(c.values[4*p:])
		if c.signed {
			return uint64(int64(int32(v)))
		}
		return uint64(v)
	default:
		return binary.LittleEndian.Uint64(c.values[8*p:])
	}
}

// bytesAt returns the raw bytes of a decimal, fixed or binary value.
func (c *keyColumn) bytesAt(row int) []byte {
	p := c.offset + row
	switch {
	case c.offsets32 != nil:
		return c.data[c.offsets32[p]:c.offsets32[p+1]]
	case c.offsets64 != nil:
		return c.data[c.offsets64[p]:c.offsets64[p+1]]
	default:
		return c.values[p*c.width : (p+1)*c.width]
	}
}

func (c *keyColumn) hasBytes() bool {
	switch c.class {
	case classDecimal, classFixed, classString, classBinary:
		return true
	}
	return false
}

// fillWords writes each row's 64-bit hash input: the canonical value, or
// a hash of it when it is wider than 64 bits. Typed loops per layout.
func (c *keyColumn) fillWords(dst []uint64) {
	n, p := len(dst), c.offset
	switch {
	case c.allNull:
		clear(dst)
	case c.class == classDecimal:
		vals := view[[2]uint64](c.values)[p : p+n]
		for i, v := range vals {
			dst[i] = mix(v[0], v[1])
		}
	case c.offsets32 != nil:
		offs := c.offsets32[p : p+n+1]
		for i := range dst {
			dst[i] = hashBytes(c.data[offs[i]:offs[i+1]])
		}
	case c.offsets64 != nil:
		offs := c.offsets64[p : p+n+1]
		for i := range dst {
			dst[i] = hashBytes(c.data[offs[i]:offs[i+1]])
		}
	case c.class == classFixed:
		for i := range dst {
			dst[i] = hashBytes(c.values[(p+i)*c.width : (p+i+1)*c.width])
		}
	case c.class == classBool:
		for i := range dst {
			dst[i] = uint64(c.values[(p+i)>>3] >> uint((p+i)&7) & 1)
		}
	case c.float && c.width == 4:
		for i, v := range view[float32](c.values)[p : p+n] {
			dst[i] = canonicalFloat(float64(v))
		}
	case c.float:
		for i, v := range view[float64](c.values)[p : p+n] {
			dst[i] = canonicalFloat(v)
		}
	case c.width == 1 && c.signed:
		for i, v := range view[int8](c.values)[p : p+n] {
			dst[i] = uint64(int64(v))
		}
	case c.width == 1:
		for i, v := range c.values[p : p+n] {
			dst[i] = uint64(v)
		}
	case c.width == 2 && c.signed:
		for i, v := range view[int16](c.values)[p : p+n] {
			dst[i] = uint64(int64(v))
		}
	case c.width == 2:
		for i, v := range view[uint16](c.values)[p : p+n] {
			dst[i] = uint64(v)
		}
	case c.width == 4 && c.signed:
		for i, v := range view[int32](c.values)[p : p+n] {
			dst[i] = uint64(int64(v))
		}
	case c.width == 4:
		for i, v := range view[uint32](c.values)[p : p+n] {
			dst[i] = uint64(v)
		}
	default:
		copy(dst, view[uint64](c.values)[p:p+n])
	}
}

// Len is the number of rows.
func (k *Keys) Len() int { return k.rows }

// Hash returns one hash per row, combining every key column's canonical
// value (null as a value of its own), in dst's storage when large enough.
// Rows that are Equal hash equally, across Keys built from different
// arrays too.
func (k *Keys) Hash(seed uint64, dst []uint64) []uint64 {
	n := k.rows
	if cap(dst) < n {
		dst = make([]uint64, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = seed
	}
	if cap(k.words) < n {
		k.words = make([]uint64, n)
	}
	words := k.words[:n]
	for ci := range k.cols {
		c := &k.cols[ci]
		c.fillWords(words)
		switch {
		case c.allNull:
			for i := range dst {
				dst[i] = mix(dst[i]^nullCode, 0)
			}
		case c.valid == nil:
			for i, w := range words {
				dst[i] = mix(dst[i]^c.code, w)
			}
		default:
			// Branch-free null substitution: mask is all ones for a null.
			for i, w := range words {
				p := c.offset + i
				mask := uint64(c.valid[p>>3]>>uint(p&7)&1) - 1
				code := c.code ^ (mask & (c.code ^ nullCode))
				dst[i] = mix(dst[i]^code, w&^mask)
			}
		}
	}
	return dst
}

// Equal reports whether row i of k and row j of other hold equal keys.
func (k *Keys) Equal(i int, other *Keys, j int) bool {
	if len(k.cols) != len(other.cols) {
		return false
	}
	for ci := range k.cols {
		a, b := &k.cols[ci], &other.cols[ci]
		an, bn := a.isNull(i), b.isNull(j)
		if an || bn {
			if an != bn {
				return false
			}
			continue
		}
		if a.class != b.class || a.param != b.param {
			return false
		}
		if a.hasBytes() {
			if !bytes.Equal(a.bytesAt(i), b.bytesAt(j)) {
				return false
			}
		} else if a.word(i) != b.word(j) {
			return false
		}
	}
	return true
}

// Encode appends the canonical bytes of row's keys to dst: equal rows
// encode identically and unequal rows differently, so the result can key
// a Go map. Each column is a class tag (0 for null), then its parameter
// and value; strings carry their length, so the encoding is prefix-free.
func (k *Keys) Encode(dst []byte, row int) []byte {
	for ci := range k.cols {
		c := &k.cols[ci]
		if c.isNull(row) {
			dst = append(dst, byte(classNull))
			continue
		}
		dst = append(dst, byte(c.class))
		switch c.class {
		case classTime, classTimestamp, classDuration, classDecimal, classFixed:
			dst = binary.AppendUvarint(dst, c.param)
		}
		switch c.class {
		case classBool:
			dst = append(dst, byte(c.word(row)))
		case classDecimal, classFixed:
			dst = append(dst, c.bytesAt(row)...)
		case classString, classBinary:
			b := c.bytesAt(row)
			dst = binary.AppendUvarint(dst, uint64(len(b)))
			dst = append(dst, b...)
		default:
			dst = binary.LittleEndian.AppendUint64(dst, c.word(row))
		}
	}
	return dst
}

// Int64 returns row's value in column col when the column holds signed
// integers, dates, times, timestamps or durations and the value is not
// null: the value keys of that column are equal by, so a range of it
// bounds which keys a set of rows can match.
func (k *Keys) Int64(col, row int) (int64, bool) {
	c := &k.cols[col]
	if !c.signed || c.isNull(row) {
		return 0, false
	}
	return int64(c.word(row)), true
}

// HashRows hashes every row of the key columns cols; see Keys.
func HashRows(cols []arrow.Array, seed uint64) ([]uint64, error) {
	k, err := NewKeys(cols)
	if err != nil {
		return nil, err
	}
	return k.Hash(seed, nil), nil
}

// EncodeKeys appends the canonical encoding of row of cols to dst; see
// Keys.Encode. For many rows, build Keys once instead.
func EncodeKeys(dst []byte, cols []arrow.Array, row int) ([]byte, error) {
	k, err := NewKeys(cols)
	if err != nil {
		return nil, err
	}
	if row < 0 || row >= k.rows {
		return nil, fmt.Errorf("kernels: row %d out of range for %d rows", row, k.rows)
	}
	return k.Encode(dst, row), nil
}

// RowsEqual reports whether row i of a equals row j of b as keys; see
// Keys.Equal. For many rows, build Keys once instead.
func RowsEqual(a []arrow.Array, i int, b []arrow.Array, j int) (bool, error) {
	ka, err := NewKeys(a)
	if err != nil {
		return false, err
	}
	kb, err := NewKeys(b)
	if err != nil {
		return false, err
	}
	if i < 0 || i >= ka.rows || j < 0 || j >= kb.rows {
		return false, fmt.Errorf("kernels: rows %d, %d out of range for %d and %d rows", i, j, ka.rows, kb.rows)
	}
	return ka.Equal(i, kb, j), nil
}

// Words returns column col's canonical 64-bit values (0 where null), in
// dst's storage when large enough, when the column's class fits a word
// (not decimals, strings, binary or fixed). Two such columns compare by
// value (SameClass) and hold equal non-null keys exactly where their words
// are equal: a one-column key can then be matched on its words alone,
// without a hash and a row comparison.
func (k *Keys) Words(col int, dst []uint64) ([]uint64, bool) {
	c := &k.cols[col]
	if c.hasBytes() || c.class == classNull {
		return dst, false
	}
	if cap(dst) < k.rows {
		dst = make([]uint64, k.rows)
	}
	dst = dst[:k.rows]
	c.fillWords(dst)
	return dst, true
}

// SameClass reports whether column col of k and column ocol of other
// compare by value: Equal finds no non-null values of the two equal
// otherwise.
func (k *Keys) SameClass(col int, other *Keys, ocol int) bool {
	a, b := &k.cols[col], &other.cols[ocol]
	return a.class == b.class && a.param == b.param
}

// HasNulls reports whether column col may hold a null; Null which rows do.
func (k *Keys) HasNulls(col int) bool {
	c := &k.cols[col]
	return c.allNull || c.valid != nil
}

// Null reports whether row of column col is null.
func (k *Keys) Null(col, row int) bool { return k.cols[col].isNull(row) }
