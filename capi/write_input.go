package main

// #include "capi.h"
import "C"

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/internal/jsonlines"
)

// Producers of Arrow streams for hosts that have no Arrow library: JSON
// rows in the table's schema, and a single exported array (the Arrow
// PyCapsule Interface's __arrow_c_array__) as a one-batch stream.

// jsonRowsBatch is how many rows go into each batch of a JSON rows stream.
const jsonRowsBatch = 64 << 10

//export capiJSONRowsStream
func capiJSONRowsStream(h C.uintptr_t, rows *C.char, n C.size_t, out *C.struct_ArrowArrayStream) (rc C.int) {
	const fn = "floe_json_rows_stream"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	md := th.current().Metadata
	schema := md.CurrentSchema()
	if schema == nil {
		return fail(fn, fmt.Errorf("table %s has no current schema", md.Location), statusFormat)
	}
	arrowSchema, err := arrowschema.ArrowSchema(schema.Fields)
	if err != nil {
		return fail(fn, err, statusUnsupported)
	}
	// The rows are decoded here, before the call returns, so the caller's
	// buffer may go away; errors in them are reported now, not mid-stream.
	data := C.GoBytes(unsafe.Pointer(rows), C.int(n))
	batches, err := decodeJSONRows(data, arrowSchema)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	rdr, err := array.NewRecordReader(arrowSchema, batches)
	for _, b := range batches {
		b.Release()
	}
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	exportStream(rdr, arrowSchema, nil, out)
	return C.int(statusOK)
}

// decodeJSONRows reads newline-delimited JSON objects into batches of
// schema, allocated in C memory (they leave through the C interface).
// Keys bind to columns by name; a key the table lacks, or a value that
// does not fit its column, is refused naming the line and the column
// (jsonlines.Reader, the CLI's reader too).
func decodeJSONRows(data []byte, schema *arrow.Schema) (batches []arrow.RecordBatch, err error) {
	jr := jsonlines.NewReader(bytes.NewReader(data), schema, jsonRowsBatch, cAllocator)
	defer jr.Release()
	for jr.Next() {
		b := jr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	if err := jr.Err(); err != nil {
		for _, b := range batches {
			b.Release()
		}
		return nil, withStatus(statusInvalidArgument, fmt.Errorf("JSON rows: %w", err))
	}
	return batches, nil
}

//export capiArrayStream
func capiArrayStream(schema *C.struct_ArrowSchema, arr *C.struct_ArrowArray, out *C.struct_ArrowArrayStream) (rc C.int) {
	const fn = "floe_array_stream"
	defer recoverStatus(fn, &rc)
	rec, err := cdata.ImportCRecordBatch((*cdata.CArrowArray)(unsafe.Pointer(arr)), (*cdata.CArrowSchema)(unsafe.Pointer(schema)))
	if err != nil {
		return fail(fn, invalidArgument("import the Arrow array: %v (it must be a struct array, as __arrow_c_array__ of a record batch gives)", err), statusInvalidArgument)
	}
	defer rec.Release()
	rdr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	exportStream(rdr, rec.Schema(), nil, out)
	return C.int(statusOK)
}
