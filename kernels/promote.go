package kernels

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Promote converts arr to the type to along the widenings Iceberg schema
// evolution allows, keeping nulls:
//
//   - int8/int16/int32 → a wider signed integer, float32 → float64;
//   - decimal128(p1, s) → decimal128(p2, s) with p2 ≥ p1: zero-copy;
//   - date32 → timestamp of any unit and zone (days × units per day),
//     failing when a non-null date does not fit the unit's range;
//   - timestamp → timestamp of the same unit with another zone: zero-copy;
//   - null (Iceberg's unknown) → any type, as an all-null array.
//
// An arr already of type to is returned retained. The validity bitmap is
// always shared with arr, never copied.
func Promote(arr arrow.Array, to arrow.DataType, alloc memory.Allocator) (arrow.Array, error) {
	from := arr.DataType()
	if arrow.TypeEqual(from, to) {
		arr.Retain()
		return arr, nil
	}
	d := arr.Data()
	fail := func() (arrow.Array, error) {
		return nil, fmt.Errorf("kernels: cannot promote %s to %s", from, to)
	}
	switch from.ID() {
	case arrow.NULL:
		return Nulls(to, arr.Len(), alloc)
	case arrow.INT8:
		switch to.ID() {
		case arrow.INT16:
			return widen[int8, int16](d, to, alloc)
		case arrow.INT32:
			return widen[int8, int32](d, to, alloc)
		case arrow.INT64:
			return widen[int8, int64](d, to, alloc)
		}
	case arrow.INT16:
		switch to.ID() {
		case arrow.INT32:
			return widen[int16, int32](d, to, alloc)
		case arrow.INT64:
			return widen[int16, int64](d, to, alloc)
		}
	case arrow.INT32:
		if to.ID() == arrow.INT64 {
			return widen[int32, int64](d, to, alloc)
		}
	case arrow.FLOAT32:
		if to.ID() == arrow.FLOAT64 {
			return widen[float32, float64](d, to, alloc)
		}
	case arrow.DECIMAL128:
		if to.ID() == arrow.DECIMAL128 {
			f, t := from.(*arrow.Decimal128Type), to.(*arrow.Decimal128Type)
			if f.Scale == t.Scale && t.Precision >= f.Precision {
				return makeArray(relabel(d, to)), nil
			}
		}
	case arrow.DATE32:
		if to.ID() == arrow.TIMESTAMP {
			return dateToTimestamp(d, to.(*arrow.TimestampType), alloc)
		}
	case arrow.TIMESTAMP:
		if to.ID() == arrow.TIMESTAMP && from.(*arrow.TimestampType).Unit == to.(*arrow.TimestampType).Unit {
			return makeArray(relabel(d, to)), nil
		}
	}
	return fail()
}

type widenable interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// shareValidity returns d's validity bitmap as a slice of the same memory
// and the offset the output must use with it: the bitmap is cut at the
// byte holding d's first bit, so the output offset is d.Offset() mod 8.
func shareValidity(d arrow.ArrayData) (*memory.Buffer, int, error) {
	if nullCount(d) == 0 {
		return nil, 0, nil
	}
	bitmap := d.Buffers()[0]
	start, outOffset := d.Offset()/8, d.Offset()%8
	size := int(bitutil.BytesForBits(int64(outOffset + d.Len())))
	if start+size > bitmap.Len() {
		return nil, 0, fmt.Errorf("kernels: validity bitmap of %d bytes is too short for %d rows at offset %d", bitmap.Len(), d.Len(), d.Offset())
	}
	return memory.SliceBuffer(bitmap, start, size), outOffset, nil
}

// convertValues allocates the output values of d, sharing d's validity,
// and returns them as a slice starting at d's first row.
func convertValues[D any](d arrow.ArrayData, alloc memory.Allocator) (validity, values *memory.Buffer, dst []D, offset int, err error) {
	validity, offset, err = shareValidity(d)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	var zero D
	values = newBuffer(alloc, (offset+d.Len())*int(unsafe.Sizeof(zero)))
	all := view[D](values.Bytes())[:offset+d.Len()]
	clear(all[:offset])
	return validity, values, all[offset:], offset, nil
}

func widen[S, D widenable](d arrow.ArrayData, to arrow.DataType, alloc memory.Allocator) (arrow.Array, error) {
	validity, values, dst, offset, err := convertValues[D](d, alloc)
	if err != nil {
		return nil, err
	}
	src := view[S](bufferBytes(d, 1))[d.Offset() : d.Offset()+d.Len()]
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
	return makeArray(newData(to, d.Len(), []*memory.Buffer{validity, values}, nil, nullCount(d), offset)), nil
}

// unitsPerDay is the number of timestamp units in a day.
func unitsPerDay(unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return 86_400
	case arrow.Millisecond:
		return 86_400_000
	case arrow.Microsecond:
		return 86_400_000_000
	default:
		return 86_400_000_000_000
	}
}

func dateToTimestamp(d arrow.ArrayData, to *arrow.TimestampType, alloc memory.Allocator) (arrow.Array, error) {
	factor := unitsPerDay(to.Unit)
	src := view[int32](bufferBytes(d, 1))[d.Offset() : d.Offset()+d.Len()]
	if err := checkDateRange(d, src, factor, to); err != nil {
		return nil, err
	}
	validity, values, dst, offset, err := convertValues[int64](d, alloc)
	if err != nil {
		return nil, err
	}
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = int64(v) * factor
	}
	return makeArray(newData(to, d.Len(), []*memory.Buffer{validity, values}, nil, nullCount(d), offset)), nil
}

// checkDateRange fails when a non-null day count overflows int64 once
// scaled. A min/max pass decides for whole arrays; only when it finds a
// suspect are the slots checked one by one, as null slots may hold
// anything.
func checkDateRange(d arrow.ArrayData, src []int32, factor int64, to arrow.DataType) error {
	if len(src) == 0 {
		return nil
	}
	lo, hi := src[0], src[0]
	for _, v := range src {
		lo, hi = min(lo, v), max(hi, v)
	}
	limit := math.MaxInt64 / factor
	if int64(lo) >= -limit && int64(hi) <= limit {
		return nil
	}
	validBits := bufferBytes(d, 0)
	hasNulls := nullCount(d) > 0
	for i, v := range src {
		if (int64(v) < -limit || int64(v) > limit) && (!hasNulls || bitutil.BitIsSet(validBits, d.Offset()+i)) {
			return fmt.Errorf("kernels: date %d days is outside the range of %s", v, to)
		}
	}
	return nil
}
