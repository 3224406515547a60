// Command capi is libfloe.so, floe's C ABI, and the only cgo code in floe.
// Build it with
//
//	go build -buildmode=c-shared -o build/libfloe.so \
//	  -ldflags=-extldflags='-Wl,--version-script=capi/floe.map -Wl,-soname,libfloe.so' ./capi
//
// (the Makefile's lib target does). The interface is include/floe.h,
// written by hand; floe.c implements it by checking arguments and calling
// the Go functions exported here, which turn Go values into opaque handles
// (runtime/cgo.Handle ids, never Go pointers), Go errors into floe_status
// codes by their kind (package errkind, status.go; never by their message)
// and thread-local messages, and Go panics into FLOE_INTERNAL. Arrow
// batches leave through the Arrow C stream interface, their buffers
// allocated in C memory so that no Go pointer is ever held by C; batches to
// write come in the same way (write*.go: package writer makes the data
// files, iceberg/table commits them).
package main

// #cgo CFLAGS: -I${SRCDIR}/../include -D_GNU_SOURCE -Wall
// #cgo LDFLAGS: -ldl -lpthread
import "C"

func main() {}
