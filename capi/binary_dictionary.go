package main

// #include "capi.h"
import "C"

import (
	"math"
	"unsafe"

	"github.com/floedb/floe/kernels"
)

// capiBinaryDictionary is floe_binary_dictionary: kernels.DictionaryEncode
// over the caller's buffers, read and written in place (no copy).
//
//export capiBinaryDictionary
func capiBinaryDictionary(offsets *C.int64_t, n C.int64_t, data *C.uint8_t, dataLen C.int64_t, maxDistinct C.int64_t,
	codes *C.int32_t, firsts *C.int64_t, distinct *C.int64_t) (rc C.int) {
	const fn = "floe_binary_dictionary"
	defer recoverStatus(fn, &rc)
	*distinct = -1
	for _, v := range []struct {
		name  string
		value C.int64_t
	}{{"n", n}, {"data_len", dataLen}, {"max_distinct", maxDistinct}} {
		if v.value < 0 {
			return fail(fn, invalidArgument("%s %d must not be negative", v.name, v.value), statusInvalidArgument)
		}
	}
	if n > math.MaxInt32 {
		return fail(fn, invalidArgument("n %d: codes are int32", n), statusInvalidArgument)
	}
	if n > 0 && (codes == nil || (firsts == nil && maxDistinct > 0)) || dataLen > 0 && data == nil {
		return fail(fn, invalidArgument("codes, firsts or data is NULL"), statusInvalidArgument)
	}
	rows := int(n)
	bound := min(rows, int(maxDistinct))
	encoded, ok, err := kernels.DictionaryEncode(
		unsafe.Slice((*int64)(unsafe.Pointer(offsets)), rows+1),
		unsafe.Slice((*byte)(unsafe.Pointer(data)), int(dataLen)),
		bound,
		unsafe.Slice((*int32)(unsafe.Pointer(codes)), rows),
		unsafe.Slice((*int64)(unsafe.Pointer(firsts)), bound))
	if err != nil {
		return fail(fn, invalidArgument("%v", err), statusInvalidArgument)
	}
	if ok {
		*distinct = C.int64_t(encoded)
	}
	return C.int(statusOK)
}
