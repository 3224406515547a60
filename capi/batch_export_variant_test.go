package main

import (
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/apache/arrow-go/v18/parquet/variant"
)

// Variant columns (an extension over a struct of binaries) take the fast
// path and arrive as the same variants.
func TestExportBatchVariant(t *testing.T) {
	alloc := mallocator.NewMallocator()
	vt := extensions.NewDefaultVariantType()
	vb := extensions.NewVariantBuilder(alloc, vt)
	for i, s := range []string{`{"a": 1}`, ``, `[1, "x"]`, `"s"`, `null`} {
		if s == "" {
			vb.AppendNull()
			continue
		}
		v, err := variant.ParseJSON(s, false)
		if err != nil {
			t.Fatal(i, err)
		}
		vb.Append(v)
	}
	col := vb.NewArray()
	vb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: vt, Nullable: true}}, nil)
	full := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	col.Release()
	rec := full.NewSlice(1, 5)
	full.Release()
	out := new(cArrowArray)
	exportBatch(rec, out)
	if !fastPath(out) {
		t.Fatal("a variant batch took the general exporter")
	}
	// arrow-go imports arrays by storage type; the exported schema names
	// the extension.
	storageSchema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: vt.StorageType(), Nullable: true}}, nil)
	back, err := cdata.ImportCRecordBatchWithSchema((*cdata.CArrowArray)(unsafe.Pointer(out)), storageSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := rec.Column(0).(array.ExtensionArray).Storage()
	if !array.Equal(want, back.Column(0)) {
		t.Fatalf("round trip differs:\n%v\n%v", want, back.Column(0))
	}
	back.Release()
	rec.Release()
	if n := alloc.AllocatedBytes(); n != 0 {
		t.Fatalf("%d bytes still allocated", n)
	}
}
