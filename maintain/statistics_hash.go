package maintain

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/puffin/theta"
)

// hashColumn adds a column's non-null values to s, each hashed as its
// Iceberg single-value binary form (spec Appendix D: little-endian
// numbers, UTF-8 strings, raw bytes, decimals as their unscaled value's
// minimal big-endian two's complement), as Iceberg's Spark action feeds
// Conversions.toByteBuffer to the sketch. Each Arrow type has its own
// loop over the array's buffers. valid, when not nil, masks rows whose
// enclosing struct is null.
func hashColumn(s *theta.Sketch, arr arrow.Array, valid []bool) error {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	keep := func(i int) bool { return arr.IsValid(i) && (valid == nil || valid[i]) }
	all := arr.NullN() == 0 && valid == nil
	switch a := arr.(type) {
	case *array.Null:
	case *array.Boolean:
		var b0, b1 [1]byte
		b1[0] = 1
		h := [2]int64{theta.Hash(b0[:]), theta.Hash(b1[:])}
		for i := 0; i < a.Len(); i++ {
			if all || keep(i) {
				v := 0
				if a.Value(i) {
					v = 1
				}
				s.UpdateHash(h[v])
			}
		}
	case *array.Int32:
		hash32(s, a.Int32Values(), all, keep)
	case *array.Date32:
		hash32(s, a.Date32Values(), all, keep)
	case *array.Float32:
		vals := a.Float32Values()
		for i, v := range vals {
			if all || keep(i) {
				s.UpdateHash(theta.HashUint32(math.Float32bits(v)))
			}
		}
	case *array.Int64:
		hash64(s, a.Int64Values(), all, keep)
	case *array.Time64:
		hash64(s, a.Time64Values(), all, keep)
	case *array.Timestamp:
		hash64(s, a.TimestampValues(), all, keep)
	case *array.Float64:
		vals := a.Float64Values()
		for i, v := range vals {
			if all || keep(i) {
				s.UpdateHash(theta.HashUint64(math.Float64bits(v)))
			}
		}
	case *array.Decimal128:
		vals := a.Values()
		var buf [16]byte
		for i, v := range vals {
			if all || keep(i) {
				binary.BigEndian.PutUint64(buf[:8], uint64(v.HighBits()))
				binary.BigEndian.PutUint64(buf[8:], v.LowBits())
				s.Update(minimalTwosComplement(buf[:]))
			}
		}
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			if all || keep(i) {
				s.UpdateString(a.Value(i))
			}
		}
	case *array.LargeString:
		for i := 0; i < a.Len(); i++ {
			if all || keep(i) {
				s.UpdateString(a.Value(i))
			}
		}
	case *array.Binary:
		for i := 0; i < a.Len(); i++ {
			if all || keep(i) {
				s.Update(a.Value(i))
			}
		}
	case *array.LargeBinary:
		for i := 0; i < a.Len(); i++ {
			if all || keep(i) {
				s.Update(a.Value(i))
			}
		}
	case *array.FixedSizeBinary:
		for i := 0; i < a.Len(); i++ {
			if all || keep(i) {
				s.Update(a.Value(i))
			}
		}
	default:
		return errkind.Errorf(errkind.Unsupported, "no NDV sketch for Arrow type %s", arr.DataType())
	}
	return nil
}

func hash32[T ~int32](s *theta.Sketch, vals []T, all bool, keep func(int) bool) {
	for i, v := range vals {
		if all || keep(i) {
			s.UpdateHash(theta.HashUint32(uint32(v)))
		}
	}
}

func hash64[T ~int64](s *theta.Sketch, vals []T, all bool, keep func(int) bool) {
	for i, v := range vals {
		if all || keep(i) {
			s.UpdateHash(theta.HashUint64(uint64(v)))
		}
	}
}

// minimalTwosComplement trims a big-endian two's complement number to
// its shortest form, at least one byte (Java's BigInteger.toByteArray,
// which Iceberg's decimal serialisation uses).
func minimalTwosComplement(b []byte) []byte {
	for len(b) > 1 && ((b[0] == 0 && b[1]&0x80 == 0) || (b[0] == 0xff && b[1]&0x80 != 0)) {
		b = b[1:]
	}
	return b
}
