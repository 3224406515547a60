package parquet

import (
	"fmt"
	"runtime/debug"
)

// RecoverAsError is the safety net at the API boundary: parsers check their
// input, but the delta and codec decoders we call belong to other packages,
// and a panic there must reach the caller as an error, not kill a host
// process that loaded us through the C ABI.
func RecoverAsError(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: internal error (recovered panic: %v)\n%s", what, r, debug.Stack())
	}
}
