package kernels

import (
	"cmp"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// The fast path of CompareToBitmap: a column of a fixed-width ordered
// type (integers, dates, times, timestamps, decimals) against one
// literal, on the physical values, eight rows to a bitmap byte, with no
// call per row; nulls are then cleared with the validity bitmap, a byte
// at a time. The general path (a test closure per row) stays for the
// rest. On the foreign benchmark's TPC-H Q6 shape the closures were most
// of the filter's time (benchmarks/results/foreign/profiles.txt).

// compareFast fills dst and reports whether it could.
func compareFast(arr arrow.Array, op CmpOp, lits []any, dst []byte) bool {
	if op > CmpGtEq || len(lits) != 1 {
		return false
	}
	n := arr.Len()
	switch a := arr.(type) {
	case *array.Int32:
		lit, ok := lits[0].(int32)
		if !ok {
			return false
		}
		compareOrdered(a.Int32Values(), lit, op, dst)
	case *array.Int64:
		lit, ok := lits[0].(int64)
		if !ok {
			return false
		}
		compareOrdered(a.Int64Values(), lit, op, dst)
	case *array.Date32:
		lit, ok := lits[0].(int32)
		if !ok {
			return false
		}
		v := a.Date32Values()
		compareOrdered(unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), lit, op, dst)
	case *array.Timestamp:
		lit, ok := lits[0].(int64)
		if !ok {
			return false
		}
		v := a.TimestampValues()
		compareOrdered(unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), lit, op, dst)
	case *array.Time64:
		lit, ok := lits[0].(int64)
		if !ok {
			return false
		}
		v := a.Time64Values()
		compareOrdered(unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), lit, op, dst)
	case *array.Decimal128:
		lit, ok := lits[0].(decimal128.Num)
		if !ok {
			return false
		}
		compareDecimal(a.Values(), lit, op, dst)
	default:
		return false
	}
	if a := arr.Data(); arr.NullN() > 0 && len(a.Buffers()) > 0 && a.Buffers()[0] != nil {
		valid := a.Buffers()[0].Bytes()
		bitutil.BitmapAnd(dst, valid, 0, int64(a.Offset()), dst, 0, int64(n))
	}
	return true
}

// compareOrdered sets bit i of dst where vals[i] op lit: one loop per op,
// so the comparison is inline (a func value would be a call per row; it
// measured 6.6 ns a value against 0.5 here).
func compareOrdered[T cmp.Ordered](vals []T, lit T, op CmpOp, dst []byte) {
	n := len(vals)
	full := n &^ 7
	switch op {
	case CmpEq:
		for i := 0; i < full; i += 8 {
			v := vals[i : i+8 : i+8]
			dst[i>>3] = b2u(v[0] == lit) | b2u(v[1] == lit)<<1 | b2u(v[2] == lit)<<2 | b2u(v[3] == lit)<<3 |
				b2u(v[4] == lit)<<4 | b2u(v[5] == lit)<<5 | b2u(v[6] == lit)<<6 | b2u(v[7] == lit)<<7
		}
		for j := full; j < n; j++ {
			dst[j>>3] |= b2u(vals[j] == lit) << (j & 7)
		}
	case CmpNotEq:
		for i := 0; i < full; i += 8 {
			v := vals[i : i+8 : i+8]
			dst[i>>3] = b2u(v[0] != lit) | b2u(v[1] != lit)<<1 | b2u(v[2] != lit)<<2 | b2u(v[3] != lit)<<3 |
				b2u(v[4] != lit)<<4 | b2u(v[5] != lit)<<5 | b2u(v[6] != lit)<<6 | b2u(v[7] != lit)<<7
		}
		for j := full; j < n; j++ {
			dst[j>>3] |= b2u(vals[j] != lit) << (j & 7)
		}
	case CmpLt:
		for i := 0; i < full; i += 8 {
			v := vals[i : i+8 : i+8]
			dst[i>>3] = b2u(v[0] < lit) | b2u(v[1] < lit)<<1 | b2u(v[2] < lit)<<2 | b2u(v[3] < lit)<<3 |
				b2u(v[4] < lit)<<4 | b2u(v[5] < lit)<<5 | b2u(v[6] < lit)<<6 | b2u(v[7] < lit)<<7
		}
		for j := full; j < n; j++ {
			dst[j>>3] |= b2u(vals[j] < lit) << (j & 7)
		}
	case CmpLtEq:
		for i := 0; i < full; i += 8 {
			v := vals[i : i+8 : i+8]
			dst[i>>3] = b2u(v[0] <= lit) | b2u(v[1] <= lit)<<1 | b2u(v[2] <= lit)<<2 | b2u(v[3] <= lit)<<3 |
				b2u(v[4] <= lit)<<4 | b2u(v[5] <= lit)<<5 | b2u(v[6] <= lit)<<6 | b2u(v[7] <= lit)<<7
		}
		for j := full; j < n; j++ {
			dst[j>>3] |= b2u(vals[j] <= lit) << (j & 7)
		}
	case CmpGt:
		for i := 0; i < full; i += 8 {
			v := vals[i : i+8 : i+8]
			dst[i>>3] = b2u(v[0] > lit) | b2u(v[1] > lit)<<1 | b2u(v[2] > lit)<<2 | b2u(v[3] > lit)<<3 |
				b2u(v[4] > lit)<<4 | b2u(v[5] > lit)<<5 | b2u(v[6] > lit)<<6 | b2u(v[7] > lit)<<7
		}
		for j := full; j < n; j++ {
			dst[j>>3] |= b2u(vals[j] > lit) << (j & 7)
		}
	case CmpGtEq:
		for i := 0; i < full; i += 8 {
			v := vals[i : i+8 : i+8]
			dst[i>>3] = b2u(v[0] >= lit) | b2u(v[1] >= lit)<<1 | b2u(v[2] >= lit)<<2 | b2u(v[3] >= lit)<<3 |
				b2u(v[4] >= lit)<<4 | b2u(v[5] >= lit)<<5 | b2u(v[6] >= lit)<<6 | b2u(v[7] >= lit)<<7
		}
		for j := full; j < n; j++ {
			dst[j>>3] |= b2u(vals[j] >= lit) << (j & 7)
		}
	}
}

// b2u is 1 for true: the compiler makes it a SETcc, no branch.
func b2u(b bool) byte {
	var x byte
	if b {
		x = 1
	}
	return x
}

// compareDecimal compares 128-bit decimals: a chunk whose values and the
// literal all fit in 64 bits (the high word is the sign of the low), as
// every decimal of precision 18 or less does, by the low words as int64s
// through compareOrdered; else word by word.
func compareDecimal(vals []decimal128.Num, lit decimal128.Num, op CmpOp, dst []byte) {
	const chunk = 1024 // a multiple of 8: each chunk starts on a bitmap byte
	var lows [chunk]int64
	small := fits64(lit)
	for start := 0; start < len(vals); start += chunk {
		part := vals[start:min(start+chunk, len(vals))]
		out := dst[start>>3:]
		ok := small
		for i, v := range part {
			if !fits64(v) {
				ok = false
				break
			}
			lows[i] = int64(v.LowBits())
		}
		if ok {
			compareOrdered(lows[:len(part)], int64(lit.LowBits()), op, out)
			continue
		}
		compareWords(part, lit, op, out)
	}
}

// compareWords compares decimals word by word.
func compareWords(vals []decimal128.Num, lit decimal128.Num, op CmpOp, dst []byte) {
	hi, lo := lit.HighBits(), lit.LowBits()
	for i, v := range vals {
		c := 0
		switch vh := v.HighBits(); {
		case vh < hi:
			c = -1
		case vh > hi:
			c = 1
		default:
			c = cmp.Compare(v.LowBits(), lo)
		}
		var ok bool
		switch op {
		case CmpEq:
			ok = c == 0
		case CmpNotEq:
			ok = c != 0
		case CmpLt:
			ok = c < 0
		case CmpLtEq:
			ok = c <= 0
		case CmpGt:
			ok = c > 0
		case CmpGtEq:
			ok = c >= 0
		}
		dst[i>>3] |= b2u(ok) << (i & 7)
	}
}

// fits64 tells a decimal whose value is its low word as an int64.
func fits64(v decimal128.Num) bool { return v.HighBits() == int64(v.LowBits())>>63 }
