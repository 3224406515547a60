package writer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/writer/parquetfile"
)

// valueBuffers are a leaf writer's typed scratch slices, which
// parquetfile.Values point into: the non-null values of one write, in
// their physical type, and their bounds plain-encoded.
type valueBuffers struct {
	i32      []int32
	i64      []int64
	f32      []float32
	f64      []float64
	bools    []bool
	bytes    [][]byte
	fixed    []byte // wide decimals, big-endian
	min, max []byte
}

// setBounds makes lower and upper (appended to b.min[:0] and b.max[:0])
// the values' bounds, keeping the grown buffers for the next write.
func (b *valueBuffers) setBounds(v *parquetfile.Values, lower, upper []byte) {
	b.min, b.max = lower, upper
	v.Min, v.Max = lower, upper
}

// release drops the pointers into the batch's buffers.
func (b *valueBuffers) release() { clear(b.bytes[:cap(b.bytes)]) }

// encodeLeaf gathers the non-null values of level entries [from, to) of
// lb into v, in the column's physical type, with their bounds, and adds
// them to the leaf's Iceberg metrics. Byte-array values point into d's
// Arrow buffers (or into b.fixed for wide decimals), so they must be
// written before those change.
func encodeLeaf(v *parquetfile.Values, b *valueBuffers, lb *levelBuffer, from, to int, d *leafData, leaf *leafColumn, st *leafStats) error {
	defs, idx := lb.defs[from:to], lb.idx[from:to]
	*v = parquetfile.Values{}
	// Nulls first: they need no data, and counting them here keeps the
	// typed loops below free of level bookkeeping.
	elemDef := byte(leaf.elemDef)
	nonNull := 0
	for k, i := range idx {
		if i < 0 {
			if defs[k] >= elemDef {
				st.values++
				st.nulls++
			}
			continue
		}
		nonNull++
	}
	st.values += int64(nonNull)
	if nonNull == 0 {
		return nil
	}
	switch d.conv {
	case convBool:
		out := b.bools[:0]
		lo, hi := true, false
		for _, i := range idx {
			if i < 0 {
				continue
			}
			x := bitutil.BitIsSet(d.bits, d.bitsOff+int(i))
			out = append(out, x)
			lo, hi = lo && x, hi || x
		}
		b.bools, v.Bool = out, out
		st.addInt(boolInt(lo), boolInt(hi))
		b.setBounds(v, append(b.min[:0], byte(boolInt(lo))), append(b.max[:0], byte(boolInt(hi))))
	case convInt32:
		out := b.i32[:0]
		lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
		for _, i := range idx {
			if i < 0 {
				continue
			}
			x := d.i32[i]
			out = append(out, x)
			lo, hi = min(lo, x), max(hi, x)
		}
		b.i32, v.I32 = out, out
		st.addInt(int64(lo), int64(hi))
		b.setBounds(v, binary.LittleEndian.AppendUint32(b.min[:0], uint32(lo)), binary.LittleEndian.AppendUint32(b.max[:0], uint32(hi)))
	case convInt64:
		out := b.i64[:0]
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		scale := d.scale
		for _, i := range idx {
			if i < 0 {
				continue
			}
			x := d.i64[i]
			if scale != 1 {
				if x > math.MaxInt64/scale || x < math.MinInt64/scale {
					return fmt.Errorf("column %q (id %d): timestamp %d overflows when converted to %s", leaf.field.Name, leaf.field.ID, x, leaf.field.Type)
				}
				x *= scale
			}
			out = append(out, x)
			lo, hi = min(lo, x), max(hi, x)
		}
		b.i64, v.I64 = out, out
		st.addInt(lo, hi)
		b.setBounds(v, binary.LittleEndian.AppendUint64(b.min[:0], uint64(lo)), binary.LittleEndian.AppendUint64(b.max[:0], uint64(hi)))
	case convFloat:
		out := b.f32[:0]
		lo, hi, seen := float32(0), float32(0), false
		for _, i := range idx {
			if i < 0 {
				continue
			}
			x := d.f32[i]
			out = append(out, x)
			if x != x {
				st.nans++
				continue
			}
			if !seen {
				lo, hi, seen = x, x, true
				continue
			}
			if floatLess(float64(x), float64(lo)) {
				lo = x
			}
			if floatLess(float64(hi), float64(x)) {
				hi = x
			}
		}
		b.f32, v.F32, v.Unbounded = out, out, !seen
		if seen {
			st.addFloat(float64(lo), float64(hi))
			b.setBounds(v, binary.LittleEndian.AppendUint32(b.min[:0], math.Float32bits(lo)), binary.LittleEndian.AppendUint32(b.max[:0], math.Float32bits(hi)))
		}
	case convDouble:
		out := b.f64[:0]
		lo, hi, seen := 0.0, 0.0, false
		for _, i := range idx {
			if i < 0 {
				continue
			}
			x := d.f64[i]
			out = append(out, x)
			if x != x {
				st.nans++
				continue
			}
			if !seen {
				lo, hi, seen = x, x, true
				continue
			}
			if floatLess(x, lo) {
				lo = x
			}
			if floatLess(hi, x) {
				hi = x
			}
		}
		b.f64, v.F64, v.Unbounded = out, out, !seen
		if seen {
			st.addFloat(lo, hi)
			b.setBounds(v, binary.LittleEndian.AppendUint64(b.min[:0], math.Float64bits(lo)), binary.LittleEndian.AppendUint64(b.max[:0], math.Float64bits(hi)))
		}
	case convBinary, convLargeBinary, convFixed:
		if iceberg.IsGeo(leaf.field.Type) {
			if err := encodeGeo(v, b, idx, d, leaf, st); err != nil {
				return err
			}
			break
		}
		out := b.bytes[:0]
		var lo, hi, prev []byte
		seen := false
		for _, i := range idx {
			if i < 0 {
				continue
			}
			x := d.bytesAt(int(i))
			out = append(out, x)
			if !seen {
				lo, hi, prev, seen = x, x, x, true
				continue
			}
			// A value equal to the one before cannot move the bounds:
			// runs of one value (a position delete file's path) cost one
			// equality test instead of two full comparisons.
			if bytes.Equal(x, prev) {
				continue
			}
			prev = x
			// A first byte strictly between the bounds' decides both
			// comparisons: most values of a text column once its bounds
			// are wide. The two calls took 0.6 s of 9.7 in the write
			// section's one-thread snappy profile (benchmarks, -writes).
			if len(x) > 0 && len(lo) > 0 && len(hi) > 0 && x[0] > lo[0] && x[0] < hi[0] {
				continue
			}
			if bytes.Compare(x, lo) < 0 {
				lo = x
			} else if bytes.Compare(x, hi) > 0 {
				hi = x
			}
		}
		b.bytes, v.Bytes = out, out
		st.addBytes(lo, hi)
		v.Min, v.Max = lo, hi
	case convDecimalInt32, convDecimalInt64, convDecimalFixed:
		if err := encodeDecimals(v, b, idx, d, leaf, st); err != nil {
			return err
		}
	}
	return nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// encodeDecimals is encodeLeaf for decimals: INT32 and INT64 for narrow
// precisions, big-endian FIXED of the precision's width otherwise.
func encodeDecimals(v *parquetfile.Values, b *valueBuffers, idx []int32, d *leafData, leaf *leafColumn, st *leafStats) error {
	var lo, hi decimal128.Num
	seen := false
	width := d.decBytes
	i32, i64, fixed := b.i32[:0], b.i64[:0], b.fixed[:0]
	for _, i := range idx {
		if i < 0 {
			continue
		}
		x := d.dec[i]
		h, l := x.HighBits(), x.LowBits()
		fits64 := h == int64(l)>>63
		switch d.conv {
		case convDecimalInt32:
			if !fits64 || int64(l) < math.MinInt32 || int64(l) > math.MaxInt32 {
				return decimalTooWide(leaf, x)
			}
			i32 = append(i32, int32(l))
		case convDecimalInt64:
			if !fits64 {
				return decimalTooWide(leaf, x)
			}
			i64 = append(i64, int64(l))
		default:
			var err error
			if fixed, err = appendDecimalFixed(fixed, x, width, leaf); err != nil {
				return err
			}
		}
		if !seen {
			lo, hi, seen = x, x, true
			continue
		}
		if x.Less(lo) {
			lo = x
		} else if hi.Less(x) {
			hi = x
		}
	}
	b.i32, b.i64, b.fixed = i32, i64, fixed
	if !seen {
		return nil
	}
	st.addDecimal(lo, hi)
	switch d.conv {
	case convDecimalInt32:
		v.I32 = i32
		b.setBounds(v, binary.LittleEndian.AppendUint32(b.min[:0], uint32(lo.LowBits())), binary.LittleEndian.AppendUint32(b.max[:0], uint32(hi.LowBits())))
	case convDecimalInt64:
		v.I64 = i64
		b.setBounds(v, binary.LittleEndian.AppendUint64(b.min[:0], lo.LowBits()), binary.LittleEndian.AppendUint64(b.max[:0], hi.LowBits()))
	default:
		// The values' slices point into fixed only now that it has
		// stopped growing.
		out := b.bytes[:0]
		for k := 0; k < len(fixed); k += width {
			out = append(out, fixed[k:k+width:k+width])
		}
		b.bytes, v.Bytes = out, out
		// lo and hi are values that fitted above.
		lower, _ := appendDecimalFixed(b.min[:0], lo, width, leaf)
		upper, _ := appendDecimalFixed(b.max[:0], hi, width, leaf)
		b.setBounds(v, lower, upper)
	}
	return nil
}

// appendDecimalFixed appends x as width big-endian two's complement bytes.
func appendDecimalFixed(dst []byte, x decimal128.Num, width int, leaf *leafColumn) ([]byte, error) {
	var full [16]byte
	h := x.HighBits()
	binary.BigEndian.PutUint64(full[:8], uint64(h))
	binary.BigEndian.PutUint64(full[8:], x.LowBits())
	sign := byte(0)
	if h < 0 {
		sign = 0xff
	}
	for _, c := range full[:16-width] {
		if c != sign {
			return dst, decimalTooWide(leaf, x)
		}
	}
	if full[16-width]&0x80 != sign&0x80 {
		return dst, decimalTooWide(leaf, x)
	}
	return append(dst, full[16-width:]...), nil
}

func decimalTooWide(leaf *leafColumn, v decimal128.Num) error {
	return fmt.Errorf("column %q (id %d): decimal unscaled value %s does not fit %s", leaf.field.Name, leaf.field.ID, v.BigInt(), leaf.field.Type)
}
