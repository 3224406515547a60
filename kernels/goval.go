package kernels

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// MapValue is a map constant: its keys and values, in order. Any struct
// with exported fields Keys and Values of type []any is accepted in its
// place (the reader's own map value form), so callers need not convert.
type MapValue struct {
	Keys   []any
	Values []any
}

func asMap(v any) (MapValue, bool) {
	if m, ok := v.(MapValue); ok {
		return m, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return MapValue{}, false
	}
	keys, values := rv.FieldByName("Keys"), rv.FieldByName("Values")
	anySlice := reflect.TypeOf([]any(nil))
	if !keys.IsValid() || !values.IsValid() || keys.Type() != anySlice || values.Type() != anySlice {
		return MapValue{}, false
	}
	return MapValue{Keys: keys.Interface().([]any), Values: values.Interface().([]any)}, true
}

// asDecimal128 accepts arrow's decimal128.Num or any struct with fields
// Hi int64 and Lo uint64 (the two's complement halves), such as the
// reader's decimal form; when that struct has a Scale field it must match
// the column's scale, as rescaling is the caller's decision.
func asDecimal128(v any, scale int32) (decimal128.Num, error) {
	if n, ok := v.(decimal128.Num); ok {
		return n, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Struct {
		hi, lo := rv.FieldByName("Hi"), rv.FieldByName("Lo")
		if hi.IsValid() && lo.IsValid() && hi.Kind() == reflect.Int64 && lo.Kind() == reflect.Uint64 {
			if s := rv.FieldByName("Scale"); s.IsValid() && s.CanInt() && s.Int() != int64(scale) {
				return decimal128.Num{}, fmt.Errorf("kernels: decimal value has scale %d, column has scale %d", s.Int(), scale)
			}
			return decimal128.New(hi.Int(), lo.Uint()), nil
		}
	}
	return decimal128.Num{}, fmt.Errorf("kernels: %T is not a decimal value", v)
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		return int64(x), x <= math.MaxInt64
	case uint64:
		return int64(x), x <= math.MaxInt64
	}
	return 0, false
}

func asUint64(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint:
		return uint64(x), true
	case uint64:
		return x, true
	}
	i, ok := asInt64(v)
	return uint64(i), ok && i >= 0
}

func asFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// asBytes accepts []byte, string and byte arrays such as a UUID's
// [16]byte. A string's bytes are viewed, not copied: callers only read.
func asBytes(v any) ([]byte, bool) {
	switch x := v.(type) {
	case []byte:
		return x, true
	case string:
		return unsafe.Slice(unsafe.StringData(x), len(x)), true
	case [16]byte:
		return x[:], true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		b := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(b), rv)
		return b, true
	}
	return nil, false
}
