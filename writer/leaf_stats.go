package writer

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/writer/parquetfile"
)

// leafStats gathers one leaf's Iceberg metrics over one data file. Bounds
// follow iceberg.Compare: floats with -0 below +0 and NaN left out,
// strings and binary as unsigned bytes, decimals by value.
type leafStats struct {
	values, nulls, nans int64
	has                 bool // a bound has been seen
	minI, maxI          int64
	minF, maxF          float64
	minB, maxB          []byte // owned copies
	minD, maxD          decimal128.Num
	geo                 *iceberg.GeoBox // geometry and geography: the values' box
}

func (s *leafStats) addInt(lo, hi int64) {
	if !s.has {
		s.minI, s.maxI, s.has = lo, hi, true
		return
	}
	s.minI, s.maxI = min(s.minI, lo), max(s.maxI, hi)
}

func (s *leafStats) addFloat(lo, hi float64) {
	if !s.has {
		s.minF, s.maxF, s.has = lo, hi, true
		return
	}
	if floatLess(lo, s.minF) {
		s.minF = lo
	}
	if floatLess(s.maxF, hi) {
		s.maxF = hi
	}
}

// addBytes merges a chunk's bounds, copying them since they point into
// Arrow buffers the caller may release.
func (s *leafStats) addBytes(lo, hi []byte) {
	if !s.has || bytes.Compare(lo, s.minB) < 0 {
		s.minB = append(s.minB[:0], lo...)
	}
	if !s.has || bytes.Compare(hi, s.maxB) > 0 {
		s.maxB = append(s.maxB[:0], hi...)
	}
	s.has = true
}

func (s *leafStats) addDecimal(lo, hi decimal128.Num) {
	if !s.has {
		s.minD, s.maxD, s.has = lo, hi, true
		return
	}
	if lo.Less(s.minD) {
		s.minD = lo
	}
	if s.maxD.Less(hi) {
		s.maxD = hi
	}
}

// floatLess is Java's Float.compare(a, b) < 0 for non-NaN values: -0 < +0,
// the order of Parquet's bounds too.
var floatLess = parquetfile.FloatLess

// bounds gives the leaf's lower and upper bounds as canonical values, nil
// when there are none.
func (s *leafStats) bounds(t iceberg.Type) (lower, upper any) {
	if !s.has {
		return nil, nil
	}
	switch t := t.(type) {
	case iceberg.BooleanType:
		return s.minI != 0, s.maxI != 0
	case iceberg.IntType, iceberg.DateType:
		return int32(s.minI), int32(s.maxI)
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
		iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return s.minI, s.maxI
	case iceberg.FloatType:
		return float32(s.minF), float32(s.maxF)
	case iceberg.DoubleType:
		return s.minF, s.maxF
	case iceberg.StringType:
		return string(s.minB), string(s.maxB)
	case iceberg.UUIDType:
		return [16]byte(s.minB), [16]byte(s.maxB)
	case iceberg.FixedType, iceberg.BinaryType:
		return s.minB, s.maxB
	case iceberg.DecimalType:
		return iceberg.Decimal{Hi: s.minD.HighBits(), Lo: s.minD.LowBits(), Scale: t.Scale},
			iceberg.Decimal{Hi: s.maxD.HighBits(), Lo: s.maxD.LowBits(), Scale: t.Scale}
	}
	return nil, nil
}
