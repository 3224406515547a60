package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/floedb/floe/errkind"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// makeBatches builds n batches of rows rows each in alloc.
func makeBatches(t testing.TB, alloc *mallocator.Mallocator, n, rows int) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	for b := 0; b < n; b++ {
		bld := array.NewRecordBuilder(alloc, testSchema)
		for r := 0; r < rows; r++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(b*rows + r))
			if r%3 == 0 {
				bld.Field(1).(*array.StringBuilder).AppendNull()
			} else {
				bld.Field(1).(*array.StringBuilder).Append(fmt.Sprint("row ", r))
			}
		}
		out = append(out, bld.NewRecordBatch())
		bld.Release()
	}
	return out
}

func newTestReader(t testing.TB, batches []arrow.RecordBatch) array.RecordReader {
	t.Helper()
	rdr, err := array.NewRecordReader(testSchema, batches)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		b.Release() // the reader holds its own references
	}
	return rdr
}

func releaseArray(a *cArrowArray) { cdata.ReleaseCArrowArray((*cdata.CArrowArray)(unsafe.Pointer(a))) }

func TestStreamExportsBatchesWithoutCopying(t *testing.T) {
	alloc := mallocator.NewMallocator()
	batches := makeBatches(t, alloc, 3, 100)
	// The address of each batch's id buffer: the exported array must point
	// at the same memory.
	var idBuffers []uintptr
	for _, b := range batches {
		idBuffers = append(idBuffers, uintptr(unsafe.Pointer(&b.Column(0).Data().Buffers()[1].Bytes()[0])))
	}
	s := &stream{rdr: newTestReader(t, batches), schema: testSchema}

	var sch cArrowSchema
	if rc := s.getSchema(&sch); rc != 0 {
		t.Fatalf("getSchema: %d", rc)
	}
	imported, err := cdata.ImportCArrowSchema((*cdata.CArrowSchema)(unsafe.Pointer(&sch)))
	if err != nil || !imported.Equal(testSchema) {
		t.Fatalf("schema round trip: %v %v", imported, err)
	}

	var exported []*cArrowArray
	for i := 0; ; i++ {
		out := new(cArrowArray)
		if rc := s.getNext(out); rc != 0 {
			t.Fatalf("getNext: %d", rc)
		}
		if out.release == nil {
			if i != 3 {
				t.Fatalf("stream ended after %d batches, want 3", i)
			}
			break
		}
		if out.length != 100 || out.n_children != 2 {
			t.Fatalf("batch %d: length %d, %d children", i, out.length, out.n_children)
		}
		children := unsafe.Slice(out.children, out.n_children)
		idBufs := unsafe.Slice(children[0].buffers, children[0].n_buffers)
		if got := uintptr(idBufs[1]); got != idBuffers[i] {
			t.Errorf("batch %d: exported id buffer at %#x, the batch's is at %#x: copied", i, got, idBuffers[i])
		}
		if children[1].null_count != 34 {
			t.Errorf("batch %d: %d nulls in name, want 34", i, children[1].null_count)
		}
		exported = append(exported, out)
	}
	// The end repeats, and the stream can go before its batches.
	if rc := s.getNext(new(cArrowArray)); rc != 0 {
		t.Fatalf("getNext after the end: %d", rc)
	}
	s.release()
	if alloc.AllocatedBytes() == 0 {
		t.Fatal("batches were freed while exported arrays still point at them")
	}
	for _, a := range exported {
		releaseArray(a)
	}
	if n := alloc.AllocatedBytes(); n != 0 {
		t.Fatalf("%d bytes still allocated after every array was released", n)
	}
}

// panicReader panics in Next, as a reader bug would.
type panicReader struct {
	array.RecordReader
}

func (panicReader) Next() bool { panic("decoder exploded") }

func TestStreamPanicBecomesStreamError(t *testing.T) {
	alloc := mallocator.NewMallocator()
	s := &stream{rdr: panicReader{newTestReader(t, makeBatches(t, alloc, 1, 10))}, schema: testSchema}
	out := new(cArrowArray)
	rc := s.getNext(out)
	if syscall.Errno(rc) != syscall.EIO {
		t.Fatalf("getNext after a panic returned %d, want EIO", rc)
	}
	msg := goString(s.lastError())
	if !strings.Contains(msg, "decoder exploded") || !strings.Contains(msg, "recovered panic") {
		t.Fatalf("last error %q does not carry the panic", msg)
	}
	if out.release != nil {
		t.Fatal("a failed getNext left an array to release")
	}
	if rc := s.getNext(new(cArrowArray)); syscall.Errno(rc) != syscall.EIO {
		t.Fatalf("a failed stream answered %d on the next call, want EIO again", rc)
	}
	s.release()
	if n := alloc.AllocatedBytes(); n != 0 {
		t.Fatalf("%d bytes leaked by a failed stream", n)
	}
}

// errReader fails after its batches with err.
type errReader struct {
	array.RecordReader
	err error
}

func (r errReader) Err() error { return r.err }

func TestStreamErrorsKeepTheirKind(t *testing.T) {
	cases := []struct {
		err  error
		want syscall.Errno
	}{
		{fmt.Errorf("open data file: %w", fs.ErrNotExist), syscall.ENOENT},
		{errors.New("parquet: page header is corrupt"), syscall.EIO},
		{errkind.Errorf(errkind.Unsupported, "codec LZO is not supported"), syscall.ENOSYS},
		{errors.New("codec LZO is not supported"), syscall.EIO}, // no kind: the wording decides nothing
	}
	for _, c := range cases {
		alloc := mallocator.NewMallocator()
		s := &stream{rdr: errReader{newTestReader(t, makeBatches(t, alloc, 1, 5)), c.err}, schema: testSchema}
		first := new(cArrowArray)
		if rc := s.getNext(first); rc != 0 {
			t.Fatalf("first batch: %d", rc)
		}
		releaseArray(first)
		rc := s.getNext(new(cArrowArray))
		if syscall.Errno(rc) != c.want {
			t.Errorf("%v: errno %d, want %d", c.err, rc, c.want)
		}
		if msg := goString(s.lastError()); msg != c.err.Error() {
			t.Errorf("last error %q, want %q", msg, c.err.Error())
		}
		s.release()
	}
}

// goString copies a C string the stream returned.
func goString[T any](cp *T) string {
	p := (*byte)(unsafe.Pointer(cp))
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
