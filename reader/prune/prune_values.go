package prune

import (
	"encoding/binary"
	"math"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
)

// Pruning compares statistics, dictionary entries and page bounds with a
// predicate's literals in the domain of the predicate's Iceberg type
// (bounds.Domain); this file decodes the file's side, a column's PLAIN
// bytes, into bounds.Value, following the reader's conversions.

// decodeKind is how a file column's PLAIN bytes become a bounds.Value.
type decodeKind uint8

const (
	decBool decodeKind = iota
	decInt32
	decUint32
	decInt64
	decFloat32
	decFloat64
	decDecimalInt32 // unscaled int32 × decMul
	decDecimalInt64
	decDecimalBytes // big-endian two's complement
	decBytes
)

// valueDecoder turns a column's PLAIN-encoded values (as statistics, page
// indexes and dictionaries store them) into values of a predicate's type,
// the way the reader converts them: a promotion (int to long, float to
// double, a wider decimal, date to timestamp) or a change of time unit,
// rounded down as the reader rounds.
type valueDecoder struct {
	domain bounds.Domain
	kind   decodeKind
	// width is the byte length of a fixed-size value (0 for BYTE_ARRAY).
	width int
	// mul and div rescale integers (time units, days to timestamps).
	mul, div int64
	// decMul rescales an integer-backed decimal.
	decMul int64
	// legacyStats: the deprecated min/max fields, which old writers filled
	// in signed order, are in this column's order.
	legacyStats bool
	// invertible: each read value comes from exactly one stored value, and
	// a literal can be turned back into it (for bloom filters).
	invertible bool
}

// newValueDecoder plans the conversion from node's values to t, or says
// that values of node cannot be compared as t (ok false: never prune).
func newValueDecoder(n *parquet.Node, t iceberg.Type) (d valueDecoder, ok bool) {
	d = valueDecoder{domain: bounds.DomainOf(t), mul: 1, div: 1, decMul: 1, invertible: true}
	if d.domain == bounds.DomainNone || !n.IsLeaf() {
		return d, false
	}
	lg := n.Logical
	switch lg.Kind {
	case parquet.LogicalInterval, parquet.LogicalFloat16, parquet.LogicalVariant, parquet.LogicalGeometry, parquet.LogicalGeography, parquet.LogicalUnrecognized, parquet.LogicalUnknown:
		// no order, an order the statistics do not follow, or no values
		return d, false
	}
	unsigned := lg.Kind == parquet.LogicalInteger && !lg.Signed
	signedInt := !unsigned
	switch t := t.(type) {
	case iceberg.BooleanType:
		if n.Physical != parquet.Boolean {
			return d, false
		}
		d.kind, d.width, d.legacyStats = decBool, 1, true
		return d, true
	case iceberg.IntType, iceberg.DateType:
		if n.Physical != parquet.Int32 || lg.Kind == parquet.LogicalDecimal || (unsigned && lg.BitWidth >= 32) {
			return d, false
		}
		d.kind, d.width, d.legacyStats = decInt32, 4, signedInt
		return d, true
	case iceberg.LongType:
		switch {
		case lg.Kind == parquet.LogicalDecimal:
			return d, false
		case n.Physical == parquet.Int32:
			d.kind, d.width, d.legacyStats = decInt32, 4, signedInt
			if unsigned {
				d.kind = decUint32
			}
			return d, true
		case n.Physical == parquet.Int64 && !unsigned:
			d.kind, d.width, d.legacyStats = decInt64, 8, true
			return d, true
		}
		return d, false
	case iceberg.TimeType:
		switch {
		case n.Physical == parquet.Int32 && (lg.Kind == parquet.LogicalNone || lg.Kind == parquet.LogicalTime && lg.Unit == parquet.Millis):
			d.kind, d.width, d.legacyStats, d.mul = decInt32, 4, true, 1000
			return d, true
		case n.Physical == parquet.Int64 && (lg.Kind == parquet.LogicalNone || lg.Kind == parquet.LogicalTime):
			d.kind, d.width, d.legacyStats = decInt64, 8, true
			d.setUnits(lg.Unit, parquet.Micros)
			return d, true
		}
		return d, false
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		want := parquet.Micros
		if t == (iceberg.TimestampNsType{}) || t == (iceberg.TimestamptzNsType{}) {
			want = parquet.Nanos
		}
		switch {
		case n.Physical == parquet.Int32 && lg.Kind == parquet.LogicalDate:
			d.kind, d.width, d.legacyStats = decInt32, 4, true
			d.mul = 86400 * 1_000_000
			if want == parquet.Nanos {
				d.mul *= 1000
			}
			return d, true
		case n.Physical == parquet.Int64 && (lg.Kind == parquet.LogicalTimestamp || lg.Kind == parquet.LogicalNone || lg.Kind == parquet.LogicalInteger && lg.Signed):
			d.kind, d.width, d.legacyStats = decInt64, 8, true
			d.setUnits(lg.Unit, want)
			return d, true
		}
		return d, false
	case iceberg.FloatType:
		if n.Physical != parquet.Float {
			return d, false
		}
		d.kind, d.width, d.legacyStats = decFloat32, 4, true
		return d, true
	case iceberg.DoubleType:
		switch n.Physical {
		case parquet.Float:
			d.kind, d.width, d.legacyStats = decFloat32, 4, true
			return d, true
		case parquet.Double:
			d.kind, d.width, d.legacyStats = decFloat64, 8, true
			return d, true
		}
		return d, false
	case iceberg.DecimalType:
		shift := 0
		if lg.Kind == parquet.LogicalDecimal {
			shift = t.Scale - int(lg.Scale)
		} else if lg.Kind != parquet.LogicalNone {
			return d, false
		}
		if shift < 0 || shift > 18 {
			return d, false
		}
		for range shift {
			d.decMul *= 10
		}
		switch n.Physical {
		case parquet.Int32:
			d.kind, d.width, d.legacyStats = decDecimalInt32, 4, true
			return d, true
		case parquet.Int64:
			d.kind, d.width, d.legacyStats = decDecimalInt64, 8, true
			return d, true
		case parquet.FixedLenByteArray, parquet.ByteArray:
			// Byte decimals are only read at their own scale here; the
			// deprecated min/max compared them as unsigned bytes.
			if shift != 0 {
				return d, false
			}
			d.kind = decDecimalBytes
			if n.Physical == parquet.FixedLenByteArray {
				d.width = n.TypeLength
			} else {
				d.invertible = false // writers differ in how many sign bytes they keep
			}
			return d, true
		}
		return d, false
	case iceberg.StringType, iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType:
		if lg.Kind == parquet.LogicalDecimal {
			return d, false
		}
		switch n.Physical {
		case parquet.ByteArray:
			if _, fixed := t.(iceberg.FixedType); fixed {
				return d, false
			}
			if _, isUUID := t.(iceberg.UUIDType); isUUID {
				return d, false
			}
			d.kind = decBytes
			return d, true
		case parquet.FixedLenByteArray:
			if ft, fixed := t.(iceberg.FixedType); fixed && ft.Length != n.TypeLength {
				return d, false
			}
			if _, isUUID := t.(iceberg.UUIDType); isUUID && n.TypeLength != 16 {
				return d, false
			}
			d.kind, d.width = decBytes, n.TypeLength
			return d, true
		}
		return d, false
	}
	return d, false
}

// setUnits rescales from a stored time unit (none: the wanted one, as the
// reader takes it) to the wanted unit.
func (d *valueDecoder) setUnits(from, want parquet.TimeUnit) {
	if from == parquet.UnitNone {
		return
	}
	per := func(u parquet.TimeUnit) int64 {
		switch u {
		case parquet.Millis:
			return 1e3
		case parquet.Micros:
			return 1e6
		}
		return 1e9
	}
	if f, w := per(from), per(want); w > f {
		d.mul = w / f
	} else if f > w {
		d.div = f / w
		d.invertible = false
	}
}

// decode converts one PLAIN value (a BYTE_ARRAY value without its length
// prefix). It fails on a value of the wrong size or one whose conversion
// overflows; the caller then learns nothing from it.
func (d *valueDecoder) decode(raw []byte) (bounds.Value, bool) {
	var v bounds.Value
	if d.width > 0 && len(raw) != d.width {
		return v, false
	}
	switch d.kind {
	case decBool:
		v.Int = int64(raw[0] & 1)
		return v, true
	case decInt32:
		return d.scaleInt(int64(int32(binary.LittleEndian.Uint32(raw))))
	case decUint32:
		return d.scaleInt(int64(binary.LittleEndian.Uint32(raw)))
	case decInt64:
		return d.scaleInt(int64(binary.LittleEndian.Uint64(raw)))
	case decFloat32:
		v.Float = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw)))
		return v, true
	case decFloat64:
		v.Float = math.Float64frombits(binary.LittleEndian.Uint64(raw))
		return v, true
	case decDecimalInt32, decDecimalInt64:
		x := int64(int32(binary.LittleEndian.Uint32(raw[:4])))
		if d.kind == decDecimalInt64 {
			x = int64(binary.LittleEndian.Uint64(raw))
		}
		var buf [16]byte
		parquet.PutDecimal128(buf[:], x, d.decMul)
		v.Lo, v.Hi = binary.LittleEndian.Uint64(buf[:8]), int64(binary.LittleEndian.Uint64(buf[8:]))
		return v, true
	case decDecimalBytes:
		var buf [16]byte
		if err := parquet.BigEndianToDecimal128(buf[:], raw, 0); err != nil {
			return v, false
		}
		v.Lo, v.Hi = binary.LittleEndian.Uint64(buf[:8]), int64(binary.LittleEndian.Uint64(buf[8:]))
		return v, true
	case decBytes:
		v.Bytes = raw
		return v, true
	}
	return v, false
}

func (d *valueDecoder) scaleInt(x int64) (bounds.Value, bool) {
	if d.mul != 1 {
		if x > math.MaxInt64/d.mul || x < math.MinInt64/d.mul {
			return bounds.Value{}, false
		}
		x *= d.mul
	}
	if d.div != 1 {
		x = parquet.FloorDiv(x, d.div)
	}
	return bounds.Value{Int: x}, true
}

// plainLiteral gives the PLAIN bytes a stored value equal to lit would
// have, for hashing into a bloom filter. absent is true when no stored
// value can read as lit (it is out of the column's range, or between two
// of its steps); ok is false when the answer is not known.
func (d *valueDecoder) plainLiteral(dst []byte, lit *bounds.Value) (out []byte, absent, ok bool) {
	if !d.invertible {
		return nil, false, false
	}
	unscale := func() (int64, bool) {
		x := lit.Int
		if d.mul != 1 {
			if x%d.mul != 0 {
				return 0, false
			}
			x /= d.mul
		}
		return x, true
	}
	switch d.kind {
	case decInt32, decUint32:
		x, exact := unscale()
		lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
		if d.kind == decUint32 {
			lo, hi = 0, math.MaxUint32
		}
		if !exact || x < lo || x > hi {
			return nil, true, true
		}
		return binary.LittleEndian.AppendUint32(dst, uint32(x)), false, true
	case decInt64:
		x, exact := unscale()
		if !exact {
			return nil, true, true
		}
		return binary.LittleEndian.AppendUint64(dst, uint64(x)), false, true
	case decFloat32:
		f := float32(lit.Float)
		if float64(f) != lit.Float {
			return nil, true, true
		}
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(f)), false, true
	case decFloat64:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(lit.Float)), false, true
	case decDecimalInt32, decDecimalInt64:
		if d.decMul != 1 {
			return nil, false, false
		}
		x := int64(lit.Lo)
		if (lit.Hi != 0 || x < 0) && (lit.Hi != -1 || x >= 0) {
			return nil, true, true // beyond 64 bits
		}
		if d.kind == decDecimalInt32 {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return nil, true, true
			}
			return binary.LittleEndian.AppendUint32(dst, uint32(x)), false, true
		}
		return binary.LittleEndian.AppendUint64(dst, uint64(x)), false, true
	case decDecimalBytes:
		// big-endian two's complement, sign-extended to the fixed width
		var be [16]byte
		binary.BigEndian.PutUint64(be[:8], uint64(lit.Hi))
		binary.BigEndian.PutUint64(be[8:], lit.Lo)
		sign := byte(0)
		if lit.Hi < 0 {
			sign = 0xff
		}
		w := d.width
		if w < 16 {
			for _, b := range be[:16-w] {
				if b != sign {
					return nil, true, true
				}
			}
			if (be[16-w]&0x80 != 0) != (sign != 0) {
				return nil, true, true
			}
			return append(dst, be[16-w:]...), false, true
		}
		for range w - 16 {
			dst = append(dst, sign)
		}
		return append(dst, be[:]...), false, true
	case decBytes:
		if d.width > 0 && len(lit.Bytes) != d.width {
			return nil, true, true
		}
		return append(dst, lit.Bytes...), false, true
	}
	return nil, false, false
}
