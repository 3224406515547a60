package main

// #include "capi.h"
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"syscall"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
)

// status mirrors enum floe_status in include/floe.h.
type status C.int

const (
	statusOK              status = 0
	statusInvalidArgument status = 1
	statusNotFound        status = 2
	statusIO              status = 3
	statusFormat          status = 4
	statusUnsupported     status = 5
	statusConflict        status = 6
	statusInternal        status = 7
	statusCommitUnknown   status = 8
	statusUnauthorized    status = 9
	statusCancelled       status = 10
	statusTimeout         status = 11
)

// floeError is an error whose status the code that made it knows.
type floeError struct {
	code status
	err  error
}

func (e *floeError) Error() string { return e.err.Error() }
func (e *floeError) Unwrap() error { return e.err }

// withStatus marks err with a status, overriding classification.
func withStatus(code status, err error) error {
	if err == nil {
		return nil
	}
	return &floeError{code: code, err: err}
}

func invalidArgument(format string, args ...any) error {
	return withStatus(statusInvalidArgument, fmt.Errorf(format, args...))
}

// classify picks the status for an error from the Go packages by its
// kind (errkind), which the code that made the error decided; errors of
// the standard library and arrow-go are recognised by their sentinels and
// types. What carries neither takes the caller's fallback (FORMAT where
// files were being parsed). Messages are never read.
func classify(err error, fallback status) status {
	var fe *floeError
	if errors.As(err, &fe) {
		return fe.code
	}
	// A commit whose outcome is unknown says so before anything its
	// cause says (a timeout, an I/O error): its files stay, a retry with
	// the token settles it.
	if errors.Is(err, errkind.CommitStateUnknown) {
		return statusCommitUnknown
	}
	// A cancelled or timed-out call says so before what its interrupted
	// I/O says of itself.
	switch {
	case errors.Is(err, context.Canceled):
		return statusCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return statusTimeout
	}
	switch errkind.Of(err) {
	case errkind.InvalidArgument:
		return statusInvalidArgument
	case errkind.NotFound:
		return statusNotFound
	case errkind.Conflict:
		return statusConflict
	case errkind.Unsupported:
		return statusUnsupported
	case errkind.Corrupt:
		return statusFormat
	case errkind.IO:
		return statusIO
	case errkind.Unauthorized:
		return statusUnauthorized
	}
	var errno syscall.Errno
	var pathErr *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return statusNotFound
	case errors.Is(err, fs.ErrExist):
		return statusConflict
	case errors.Is(err, fs.ErrPermission):
		return statusIO
	case errors.As(err, &errno), errors.As(err, &pathErr):
		return statusIO
	case errors.Is(err, arrow.ErrNotImplemented):
		return statusUnsupported
	case errors.Is(err, io.ErrUnexpectedEOF):
		return statusFormat
	}
	return fallback
}

// fail records err as the calling thread's last error and returns its
// status. fn names the C entry point, so messages say where they come from.
func fail(fn string, err error, fallback status) C.int {
	code := classify(err, fallback)
	setLastError(fn + ": " + err.Error())
	return C.int(code)
}

func setLastError(msg string) {
	if msg == "" {
		C.capi_clear_error()
		return
	}
	C.capi_set_error((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
}

// recoverStatus turns a panic in an entry point into FLOE_INTERNAL with the
// panic's message and stack, so a bug in floe never takes the host down.
// Use as: defer recoverStatus("floe_x", &rc).
func recoverStatus(fn string, rc *C.int) {
	if r := recover(); r != nil {
		*rc = fail(fn, fmt.Errorf("internal error (recovered panic: %v)\n%s", r, debug.Stack()), statusInternal)
	}
}

// lastError is floe_last_error() of the calling OS thread (for tests, which
// must lock their goroutine to its thread).
func lastError() string { return C.GoString(C.floe_last_error()) }

// cStatus is the C type entry points return, named for tests.
type cStatus = C.int
