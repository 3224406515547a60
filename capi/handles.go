package main

import (
	"fmt"
	"runtime/cgo"
	"sync/atomic"
)

// C holds floe objects as runtime/cgo.Handle ids: integers that the Go
// runtime never reuses, so a freed or made-up handle fails the lookup
// (cgo.Handle.Value panics on it, which lookup turns into an error) instead
// of reaching freed memory.

// liveHandles counts the handles C holds (tables, scans, streams,
// catalogs, task reads) and liveBatches the exported batches not yet
// released: a host that runs for hours reads them (floe_runtime_stats) to
// see that nothing accumulates.
var liveHandles, liveBatches atomic.Int64

// newHandle registers v and returns the id C will hold.
func newHandle(v any) uintptr {
	liveHandles.Add(1)
	return uintptr(cgo.NewHandle(v))
}

// lookup returns the object behind handle h if it is a live handle to a T.
func lookup[T any](h uintptr, what string) (v T, err error) {
	defer func() {
		if recover() != nil {
			err = invalidArgument("%s handle %#x is not valid (freed, or not from floe)", what, h)
		}
	}()
	obj := cgo.Handle(h).Value()
	v, ok := obj.(T)
	if !ok {
		return v, invalidArgument("handle %#x is a %s, not a %s", h, describe(obj), what)
	}
	return v, nil
}

// release frees handle h if it is a live handle to a T. Of two threads
// freeing the same handle at once, one gets an error (Delete panics on a
// missing id), never a double free.
func release[T any](h uintptr, what string) (err error) {
	if _, err := lookup[T](h, what); err != nil {
		return err
	}
	defer func() {
		if recover() != nil {
			err = invalidArgument("%s handle %#x was freed twice", what, h)
		}
	}()
	cgo.Handle(h).Delete()
	liveHandles.Add(-1)
	return nil
}

func describe(obj any) string {
	switch obj.(type) {
	case *tableHandle:
		return "floe_table"
	case *scanHandle:
		return "floe_scan"
	case *stream:
		return "Arrow stream"
	case *taskIOHandle:
		return "floe_task_io"
	case *catalogHandle:
		return "floe_catalog"
	}
	return fmt.Sprintf("%T", obj)
}
