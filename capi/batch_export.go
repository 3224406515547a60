package main

// #include "capi.h"
import "C"

import (
	"runtime/cgo"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/cdata"
)

// exportBatch fills out with rec, sharing its buffers (no copy). Batches
// of the types floe produces go into one C block (one allocation, one
// handle, one call back into Go when the consumer is done: a few
// microseconds a batch); anything else takes arrow-go's general exporter,
// which costs an allocation, a handle and a Go callback per array.
func exportBatch(rec arrow.RecordBatch, out *cArrowArray) {
	arrays, pointers := 1, 1+int(rec.NumCols()) // the root: a validity slot and its children
	for _, col := range rec.Columns() {
		a, p, ok := countArrays(col.Data())
		if !ok {
			cdata.ExportArrowRecordBatch(rec, (*cdata.CArrowArray)(unsafe.Pointer(out)), nil)
			return
		}
		arrays += a
		pointers += p
	}
	rec.Retain()
	h := cgo.NewHandle(rec)
	liveBatches.Add(1)
	b := C.capi_batch_new(C.int64_t(arrays), C.int64_t(pointers), C.uintptr_t(h))
	if b == nil {
		liveBatches.Add(-1)
		h.Delete()
		rec.Release()
		panic("out of memory exporting a record batch")
	}
	f := batchFiller{
		arrays:   unsafe.Slice(b.arrays, arrays),
		pointers: unsafe.Slice(b.pointers, pointers),
		batch:    b,
	}
	root := f.take()
	root.length = C.int64_t(rec.NumRows())
	root.n_buffers = 1
	root.buffers = f.pointerList(1) // no validity bitmap: every row is valid
	root.n_children = C.int64_t(rec.NumCols())
	children := f.pointerList(int(rec.NumCols()))
	if children != nil {
		slots := unsafe.Slice(children, rec.NumCols())
		for i, col := range rec.Columns() {
			slots[i] = unsafe.Pointer(f.fill(col.Data()))
		}
	}
	root.children = (**C.struct_ArrowArray)(unsafe.Pointer(children))
	root.release = (*[0]byte)(C.capi_batch_release_array)
	root.private_data = unsafe.Pointer(b)
	// The caller's structure takes the root's place; the block's first slot
	// stays unused.
	*out = *root
}

// bufferCount is how many buffers the C data interface gives a type, for
// the types exportBatch handles (-1 for the others). arrow-go's ArrayData
// holds the same buffers in the same order, validity first.
func bufferCount(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.NULL:
		return 0
	case arrow.EXTENSION:
		// The C interface carries the storage (the schema names the
		// extension): variant columns, for one.
		return bufferCount(dt.(arrow.ExtensionType).StorageType())
	case arrow.STRUCT, arrow.FIXED_SIZE_LIST:
		return 1
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION,
		arrow.FIXED_SIZE_BINARY, arrow.LIST, arrow.LARGE_LIST, arrow.MAP:
		return 2
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return 3
	}
	return -1
}

// countArrays sizes d's tree: arrays, and pointer slots for buffers and
// children. ok is false if some array needs the general exporter.
func countArrays(d arrow.ArrayData) (arrays, pointers int, ok bool) {
	nb := bufferCount(d.DataType())
	// A NULL array carries a placeholder validity slot that C does not
	// see; every other type must hold exactly its C buffers. (Dictionary
	// types are not in bufferCount: they take the general exporter.)
	if nb < 0 || (nb > 0 && len(d.Buffers()) != nb) {
		return 0, 0, false
	}
	arrays, pointers = 1, nb+len(d.Children())
	for _, c := range d.Children() {
		a, p, ok := countArrays(c)
		if !ok {
			return 0, 0, false
		}
		arrays += a
		pointers += p
	}
	return arrays, pointers, true
}

type batchFiller struct {
	arrays   []C.struct_ArrowArray
	pointers []unsafe.Pointer
	batch    *C.struct_capi_batch
}

func (f *batchFiller) take() *C.struct_ArrowArray {
	a := &f.arrays[0]
	f.arrays = f.arrays[1:]
	return a
}

func (f *batchFiller) pointerList(n int) *unsafe.Pointer {
	if n == 0 {
		return nil
	}
	p := &f.pointers[0]
	f.pointers = f.pointers[n:]
	return p
}

// fill exports d (and its children) into the next slots of the block.
func (f *batchFiller) fill(d arrow.ArrayData) *C.struct_ArrowArray {
	a := f.take()
	a.length = C.int64_t(d.Len())
	a.offset = C.int64_t(d.Offset())
	a.null_count = C.int64_t(nullCount(d))
	nb := bufferCount(d.DataType())
	a.n_buffers = C.int64_t(nb)
	if nb > 0 {
		list := f.pointerList(nb)
		bufs := unsafe.Slice(list, nb)
		for i, buf := range d.Buffers() {
			switch {
			case buf != nil && buf.Len() > 0:
				bufs[i] = unsafe.Pointer(&buf.Bytes()[0])
			case i == 0:
				bufs[i] = nil // no validity bitmap
			default:
				bufs[i] = unsafe.Pointer(&C.capi_zero_region)
			}
		}
		a.buffers = (*unsafe.Pointer)(unsafe.Pointer(list))
	}
	kids := d.Children()
	a.n_children = C.int64_t(len(kids))
	if len(kids) > 0 {
		list := f.pointerList(len(kids))
		slots := unsafe.Slice(list, len(kids))
		for i, c := range kids {
			slots[i] = unsafe.Pointer(f.fill(c))
		}
		a.children = (**C.struct_ArrowArray)(unsafe.Pointer(list))
	}
	a.release = (*[0]byte)(C.capi_batch_release_array)
	a.private_data = unsafe.Pointer(f.batch)
	return a
}

// nullCount is d's null count, counted from the validity bitmap when a
// slice left it unknown (C consumers may not accept -1).
func nullCount(d arrow.ArrayData) int {
	if n := d.NullN(); n >= 0 {
		return n
	}
	if d.DataType().ID() == arrow.NULL {
		return d.Len()
	}
	bufs := d.Buffers()
	if len(bufs) == 0 || bufs[0] == nil || bufs[0].Len() == 0 {
		return 0
	}
	return d.Len() - bitutil.CountSetBits(bufs[0].Bytes(), d.Offset(), d.Len())
}

//export capiBatchRelease
func capiBatchRelease(h C.uintptr_t) {
	defer func() { _ = recover() }() // a panicking Release must not kill the host
	handle := cgo.Handle(h)
	rec := handle.Value().(arrow.RecordBatch)
	handle.Delete()
	liveBatches.Add(-1)
	rec.Release()
}

// fastPath reports whether a was exported by exportBatch's own layout (for
// tests).
func fastPath(a *cArrowArray) bool {
	return a.release == (*[0]byte)(C.capi_batch_release_array)
}
