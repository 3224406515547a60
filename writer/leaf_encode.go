package writer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/floedb/floe/iceberg"
	"github.com/parquet-go/parquet-go"
)

// encodeLeaf turns level entries [from, to) of lb into Parquet values of
// column col, appended to vals, and adds them to the leaf's metrics. The
// values point into d's Arrow buffers (or into *scratch for wide
// decimals), so they must be written before those change.
func encodeLeaf(vals []parquet.Value, scratch *[]byte, lb *levelBuffer, from, to int, d *leafData, leaf *leafColumn, col int, st *leafStats) ([]parquet.Value, error) {
	reps, defs, idx := lb.reps[from:to], lb.defs[from:to], lb.idx[from:to]
	base := len(vals)
	vals = grow(vals, base+len(idx))
	out := vals[base:]
	// Nulls first: they need no data, and counting them here keeps the
	// typed loops below free of level bookkeeping.
	elemDef := byte(leaf.elemDef)
	nonNull := 0
	for k, i := range idx {
		if i < 0 {
			out[k] = parquet.Value{}.Level(int(reps[k]), int(defs[k]), col)
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
		return vals, nil
	}
	switch d.conv {
	case convBool:
		lo, hi := int64(1), int64(0)
		for k, i := range idx {
			if i < 0 {
				continue
			}
			v := bitutil.BitIsSet(d.bits, d.bitsOff+int(i))
			out[k] = parquet.BooleanValue(v)
			b := int64(0)
			if v {
				b = 1
			}
			lo, hi = min(lo, b), max(hi, b)
		}
		st.addInt(lo, hi)
	case convInt32:
		lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
		for k, i := range idx {
			if i < 0 {
				continue
			}
			v := d.i32[i]
			out[k] = parquet.Int32Value(v)
			lo, hi = min(lo, v), max(hi, v)
		}
		st.addInt(int64(lo), int64(hi))
	case convInt64:
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		scale := d.scale
		for k, i := range idx {
			if i < 0 {
				continue
			}
			v := d.i64[i]
			if scale != 1 {
				if v > math.MaxInt64/scale || v < math.MinInt64/scale {
					return vals, fmt.Errorf("column %q (id %d): timestamp %d overflows when converted to %s", leaf.field.Name, leaf.field.ID, v, leaf.field.Type)
				}
				v *= scale
			}
			out[k] = parquet.Int64Value(v)
			lo, hi = min(lo, v), max(hi, v)
		}
		st.addInt(lo, hi)
	case convFloat:
		lo, hi, seen := float32(0), float32(0), false
		for k, i := range idx {
			if i < 0 {
				continue
			}
			v := d.f32[i]
			out[k] = parquet.FloatValue(v)
			if v != v {
				st.nans++
				continue
			}
			if !seen {
				lo, hi, seen = v, v, true
				continue
			}
			if floatLess(float64(v), float64(lo)) {
				lo = v
			}
			if floatLess(float64(hi), float64(v)) {
				hi = v
			}
		}
		if seen {
			st.addFloat(float64(lo), float64(hi))
		}
	case convDouble:
		lo, hi, seen := 0.0, 0.0, false
		for k, i := range idx {
			if i < 0 {
				continue
			}
			v := d.f64[i]
			out[k] = parquet.DoubleValue(v)
			if v != v {
				st.nans++
				continue
			}
			if !seen {
				lo, hi, seen = v, v, true
				continue
			}
			if floatLess(v, lo) {
				lo = v
			}
			if floatLess(hi, v) {
				hi = v
			}
		}
		if seen {
			st.addFloat(lo, hi)
		}
	case convBinary, convLargeBinary, convFixed:
		if iceberg.IsGeo(leaf.field.Type) {
			if err := encodeGeo(out, idx, d, leaf, st); err != nil {
				return vals, err
			}
			break
		}
		var lo, hi []byte
		seen := false
		for k, i := range idx {
			if i < 0 {
				continue
			}
			v := d.bytesAt(int(i))
			if d.conv == convFixed {
				out[k] = parquet.FixedLenByteArrayValue(v)
			} else {
				out[k] = parquet.ByteArrayValue(v)
			}
			if !seen {
				lo, hi, seen = v, v, true
				continue
			}
			// A first byte strictly between the bounds' decides both
			// comparisons: most values of a text column once its bounds
			// are wide. The two calls took 0.6 s of 9.7 in the write
			// section's one-thread snappy profile (benchmarks, -writes).
			if len(v) > 0 && len(lo) > 0 && len(hi) > 0 && v[0] > lo[0] && v[0] < hi[0] {
				continue
			}
			if bytes.Compare(v, lo) < 0 {
				lo = v
			} else if bytes.Compare(v, hi) > 0 {
				hi = v
			}
		}
		st.addBytes(lo, hi)
	case convDecimalInt32, convDecimalInt64, convDecimalFixed:
		if err := encodeDecimals(out, scratch, idx, d, leaf, st); err != nil {
			return vals, err
		}
	}
	// Values of a required top-level column keep the zero levels they were
	// made with (parquet-go's column buffers do not read the column index);
	// the others get theirs here, set in place: Value.Level, which copies
	// the value and checks the column index too, is not inlined and took
	// 0.9 s of 9.7 in a profile of the write section (benchmarks, -writes,
	// snappy, one thread), where every column is optional.
	switch {
	case leaf.maxRep > 0:
		for k, i := range idx {
			if i >= 0 {
				out[k].SetRepetitionLevel(int(reps[k]))
				out[k].SetDefinitionLevel(int(defs[k]))
			}
		}
	case leaf.maxDef > 0:
		for k, i := range idx {
			if i >= 0 {
				out[k].SetDefinitionLevel(int(defs[k]))
			}
		}
	}
	return vals, nil
}

// encodeDecimals is encodeLeaf for decimals: INT32 and INT64 for narrow
// precisions, big-endian FIXED of the precision's width otherwise.
func encodeDecimals(out []parquet.Value, scratch *[]byte, idx []int32, d *leafData, leaf *leafColumn, st *leafStats) error {
	var lo, hi decimal128.Num
	seen := false
	width := d.decBytes
	if d.conv == convDecimalFixed {
		*scratch = grow(*scratch, width*len(idx))
	}
	for k, i := range idx {
		if i < 0 {
			continue
		}
		v := d.dec[i]
		h, l := v.HighBits(), v.LowBits()
		fits64 := h == int64(l)>>63
		switch d.conv {
		case convDecimalInt32:
			if !fits64 || int64(l) < math.MinInt32 || int64(l) > math.MaxInt32 {
				return decimalTooWide(leaf, v)
			}
			out[k] = parquet.Int32Value(int32(l))
		case convDecimalInt64:
			if !fits64 {
				return decimalTooWide(leaf, v)
			}
			out[k] = parquet.Int64Value(int64(l))
		default:
			var full [16]byte
			binary.BigEndian.PutUint64(full[:8], uint64(h))
			binary.BigEndian.PutUint64(full[8:], l)
			sign := byte(0)
			if h < 0 {
				sign = 0xff
			}
			for _, b := range full[:16-width] {
				if b != sign {
					return decimalTooWide(leaf, v)
				}
			}
			if full[16-width]&0x80 != sign&0x80 {
				return decimalTooWide(leaf, v)
			}
			dst := (*scratch)[k*width : (k+1)*width]
			copy(dst, full[16-width:])
			out[k] = parquet.FixedLenByteArrayValue(dst)
		}
		if !seen {
			lo, hi, seen = v, v, true
			continue
		}
		if v.Less(lo) {
			lo = v
		} else if hi.Less(v) {
			hi = v
		}
	}
	if seen {
		st.addDecimal(lo, hi)
	}
	return nil
}

func decimalTooWide(leaf *leafColumn, v decimal128.Num) error {
	return fmt.Errorf("column %q (id %d): decimal unscaled value %s does not fit %s", leaf.field.Name, leaf.field.ID, v.BigInt(), leaf.field.Type)
}
