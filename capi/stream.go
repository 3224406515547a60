package main

// #include <errno.h>
// #include "capi.h"
import "C"

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/scan"
)

// Go names for the C structures, so tests (which cannot use cgo) can make
// them.
type (
	cArrowArray  = C.struct_ArrowArray
	cArrowSchema = C.struct_ArrowSchema
)

// cAllocator allocates every buffer that leaves through the C Data
// Interface: exported arrays point straight at these buffers (no copy), and
// C may hold them after the call returns, so they must not be Go memory.
// Released buffers are pooled (up to scan.ExportPoolBytes of idle C
// memory; floe_release_cached_memory hands it back) and reused: fresh C
// memory costs a page fault per page on every batch, which measured as a
// quarter of a full scan's CPU (benchmarks/).
var (
	cMalloc    = mallocator.NewMallocator()
	cAllocator = parquet.NewRecyclingAllocator(cMalloc, scan.ExportPoolBytes)
)

//export capiReleaseCachedMemory
func capiReleaseCachedMemory() {
	defer func() { _ = recover() }() // nothing to report: the pool is best effort
	cAllocator.Release()
}

// stream is the Go side of an exported struct ArrowArrayStream. arrow-go's
// cdata.ExportRecordReader would do, but its get_next lets a panic in the
// reader kill the host and reports every failure as EIO; this one turns a
// panic into a stream error and keeps the floe status in the errno.
type stream struct {
	// mu serialises callbacks: the C stream interface allows one thread at a
	// time, and a host that breaks the rule gets ordering, not corruption.
	mu     sync.Mutex
	rdr    array.RecordReader // nil once the stream ended or failed
	schema *arrow.Schema
	cancel context.CancelFunc
	errno  C.int   // nonzero once the stream failed: every later call repeats it
	errMsg *C.char // malloc'd message for get_last_error
}

// exportStream fills out (zeroed by the caller) with a stream reading rdr;
// the stream owns rdr and cancel from then on.
func exportStream(rdr array.RecordReader, schema *arrow.Schema, cancel context.CancelFunc, out *C.struct_ArrowArrayStream) {
	if schema == nil {
		schema = rdr.Schema()
	}
	s := &stream{rdr: rdr, schema: schema, cancel: cancel}
	C.capi_stream_init(out, C.uintptr_t(newHandle(s)))
}

// statusErrno is the errno a stream callback returns for a floe status.
func statusErrno(code status) C.int {
	switch code {
	case statusInvalidArgument:
		return C.EINVAL
	case statusNotFound:
		return C.ENOENT
	case statusUnsupported:
		return C.ENOSYS
	case statusCancelled:
		return C.ECANCELED
	case statusTimeout:
		return C.ETIMEDOUT
	}
	return C.EIO
}

// failWith makes the stream fail for good with err and frees its reader.
func (s *stream) failWith(err error, fallback status) C.int {
	s.errno = statusErrno(classify(err, fallback))
	if s.errMsg != nil {
		C.free(unsafe.Pointer(s.errMsg))
	}
	s.errMsg = cString([]byte(err.Error()))
	s.close()
	return s.errno
}

// close releases the reader and stops its background work.
func (s *stream) close() {
	if s.rdr != nil {
		s.rdr.Release()
		s.rdr = nil
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

func (s *stream) recoverInto(what string, rc *C.int) {
	if r := recover(); r != nil {
		*rc = s.failWith(fmt.Errorf("%s: internal error (recovered panic: %v)\n%s", what, r, debug.Stack()), statusInternal)
	}
}

func (s *stream) getSchema(out *cArrowSchema) (rc C.int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.recoverInto("get_schema", &rc)
	if s.errno != 0 {
		return s.errno
	}
	cdata.ExportArrowSchema(s.schema, (*cdata.CArrowSchema)(unsafe.Pointer(out)))
	return 0
}

// getNext exports the next batch, or marks out released at the end.
func (s *stream) getNext(out *cArrowArray) (rc C.int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.recoverInto("get_next", &rc)
	if s.errno != 0 {
		return s.errno
	}
	if s.rdr == nil {
		out.release = nil
		return 0
	}
	if s.rdr.Next() {
		exportBatch(s.rdr.RecordBatch(), out)
		return 0
	}
	if err := s.rdr.Err(); err != nil {
		return s.failWith(err, statusFormat)
	}
	s.close()
	out.release = nil
	return 0
}

func (s *stream) lastError() *C.char {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errMsg
}

func (s *stream) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { _ = recover() }() // a panicking Release must not kill the host
	s.close()
	if s.errMsg != nil {
		C.free(unsafe.Pointer(s.errMsg))
		s.errMsg = nil
	}
}

// The callbacks below are reached from stream.c's trampolines with the
// handle stored in private_data. A handle that fails the lookup (the
// stream was released) answers EINVAL.

//export capiStreamGetSchema
func capiStreamGetSchema(h C.uintptr_t, out *C.struct_ArrowSchema) C.int {
	s, err := lookup[*stream](uintptr(h), "Arrow stream")
	if err != nil {
		return C.EINVAL
	}
	return s.getSchema(out)
}

//export capiStreamGetNext
func capiStreamGetNext(h C.uintptr_t, out *C.struct_ArrowArray) C.int {
	s, err := lookup[*stream](uintptr(h), "Arrow stream")
	if err != nil {
		return C.EINVAL
	}
	return s.getNext(out)
}

//export capiStreamGetLastError
func capiStreamGetLastError(h C.uintptr_t) *C.char {
	s, err := lookup[*stream](uintptr(h), "Arrow stream")
	if err != nil {
		return nil
	}
	return s.lastError()
}

//export capiStreamRelease
func capiStreamRelease(h C.uintptr_t) {
	s, err := lookup[*stream](uintptr(h), "Arrow stream")
	if err != nil {
		return
	}
	s.release()
	_ = release[*stream](uintptr(h), "Arrow stream")
}
