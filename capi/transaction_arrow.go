package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/floedb/floe/iceberg/arrowschema"
)

// floe_schema_from_arrow: the Iceberg schema JSON of an Arrow schema, for
// an action list's union-by-name given Arrow data's schema (pyiceberg's
// update_schema().union_by_name(df.schema)).

//export capiSchemaFromArrow
func capiSchemaFromArrow(schema *C.struct_ArrowSchema, out **C.char) (rc C.int) {
	const fn = "floe_schema_from_arrow"
	defer recoverStatus(fn, &rc)
	// ImportCArrowSchema releases the caller's schema, as floe.h says.
	s, err := cdata.ImportCArrowSchema((*cdata.CArrowSchema)(unsafe.Pointer(schema)))
	if err != nil {
		return fail(fn, invalidArgument("import the Arrow schema: %v", err), statusInvalidArgument)
	}
	is, err := arrowschema.IcebergSchema(s)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	data, err := is.MarshalJSON()
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*out = cString(data)
	return C.int(statusOK)
}
