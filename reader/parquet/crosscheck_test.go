package parquet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/internal/fixtures"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The independent reference is arrow-go's pqarrow: a different Parquet
// implementation (its own Thrift, decoders and nesting logic). Our arrays
// are retagged with its Arrow types (only field names differ between the
// two: list element and map entry names) and compared value by value.

// fixtureParquetFiles lists every Parquet data file among the fixtures.
func fixtureParquetFiles(t testing.TB) []string {
	out, err := fixtures.ParquetFiles()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func openBytes(t testing.TB, data []byte) *File {
	t.Helper()
	return openBytesWith(t, data, nil)
}

func openBytesWith(t testing.TB, data []byte, opts *OpenOptions) *File {
	t.Helper()
	f, err := OpenFile(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("OpenFile: %v", err)
	}
	return f
}

// pqarrowColumns reads every top-level column of the file with pqarrow,
// one concatenated array per column; nil where pqarrow cannot read the
// column (it lacks DELTA_BYTE_ARRAY on fixed-length columns, and fails on a
// brotli page whose values section is empty).
func pqarrowColumns(t testing.TB, data []byte) (*arrow.Schema, []arrow.Array) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("pqarrow open: %v", err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 20}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("pqarrow reader: %v", err)
	}
	schema, err := fr.Schema()
	if err != nil {
		t.Fatalf("pqarrow schema: %v", err)
	}
	cols := make([]arrow.Array, schema.NumFields())
	for i := range cols {
		cols[i] = pqarrowColumn(fr, i, pf.NumRows())
	}
	return schema, cols
}

func pqarrowColumn(fr *pqarrow.FileReader, i int, rows int64) (out arrow.Array) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	cr, err := fr.GetColumn(context.Background(), i)
	if err != nil {
		return nil
	}
	chunked, err := cr.NextBatch(rows)
	if err != nil {
		return nil
	}
	defer chunked.Release()
	if len(chunked.Chunks()) == 0 {
		return array.MakeArrayOfNull(memory.DefaultAllocator, chunked.DataType(), 0)
	}
	c, err := array.Concatenate(chunked.Chunks(), memory.DefaultAllocator)
	if err != nil {
		return nil
	}
	return c
}

// floeColumns reads every top-level column (as the given types, or the
// defaults when types is nil) of every row group, concatenated.
func floeColumns(t testing.TB, f *File, types []arrow.DataType, mem memory.Allocator, batchSize int) []arrow.Array {
	t.Helper()
	cols := make([]Column, len(f.Root.Children))
	for i, n := range f.Root.Children {
		cols[i] = Column{Node: n}
		if types != nil {
			cols[i].Type = types[i]
		}
	}
	parts := make([][]arrow.Array, len(cols))
	for rg := range f.RowGroups {
		br, err := f.NewBatchReader(ReadRequest{Columns: cols, RowGroup: rg, Allocator: mem, BatchSize: batchSize, VerifyCRC: true})
		if err != nil {
			t.Fatalf("NewBatchReader: %v", err)
		}
		for {
			b, err := br.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("row group %d: %v", rg, err)
			}
			for i, c := range b.Columns {
				parts[i] = append(parts[i], c)
			}
		}
		br.Close()
	}
	out := make([]arrow.Array, len(cols))
	for i := range cols {
		if len(parts[i]) == 0 {
			typ := types
			var dt arrow.DataType
			if typ != nil {
				dt = typ[i]
			} else {
				var err error
				if dt, err = DefaultArrowType(cols[i].Node); err != nil {
					t.Fatal(err)
				}
			}
			out[i] = array.MakeArrayOfNull(memory.DefaultAllocator, dt, 0)
			continue
		}
		c, err := array.Concatenate(parts[i], memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts[i] {
			p.Release()
		}
		out[i] = c
	}
	return out
}

// retag gives our data the reference's type, recursively, so that
// array.Equal compares values and not field names.
func retag(d arrow.ArrayData, typ arrow.DataType) (arrow.ArrayData, error) {
	var childTypes []arrow.DataType
	switch t := typ.(type) {
	case *arrow.StructType:
		for i := range t.NumFields() {
			childTypes = append(childTypes, t.Field(i).Type)
		}
	case *arrow.MapType:
		childTypes = []arrow.DataType{t.Elem()}
	case *arrow.ListType:
		childTypes = []arrow.DataType{t.Elem()}
	case *arrow.LargeListType:
		childTypes = []arrow.DataType{t.Elem()}
	}
	if len(childTypes) != len(d.Children()) {
		return nil, fmt.Errorf("type %s has %d children, data of %s has %d", typ, len(childTypes), d.DataType(), len(d.Children()))
	}
	if len(childTypes) == 0 && d.DataType().ID() != typ.ID() {
		return nil, fmt.Errorf("leaf type %s vs reference %s", d.DataType(), typ)
	}
	children := make([]arrow.ArrayData, len(childTypes))
	for i, ct := range childTypes {
		c, err := retag(d.Children()[i], ct)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		children[i] = c
	}
	return array.NewData(typ, d.Len(), d.Buffers(), children, d.NullN(), d.Offset()), nil
}

func assertSameArrays(t testing.TB, what string, ref, got arrow.Array) {
	t.Helper()
	if ext, ok := ref.(array.ExtensionArray); ok {
		ref = ext.Storage()
	}
	if ref.Len() != got.Len() {
		t.Errorf("%s: %d rows, reference has %d", what, got.Len(), ref.Len())
		return
	}
	d, err := retag(got.Data(), ref.DataType())
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	defer d.Release()
	g := array.MakeFromData(d)
	defer g.Release()
	if !array.Equal(ref, g) {
		for i := 0; i < ref.Len(); i++ {
			if !array.SliceEqual(ref, int64(i), int64(i+1), g, int64(i), int64(i+1)) {
				t.Errorf("%s differs first at row %d: reference %v, got %v", what, i, ref.GetOneForMarshal(i), g.GetOneForMarshal(i))
				return
			}
		}
		t.Errorf("%s differs (row-wise equal?)", what)
	}
}

// twins names, for a column pqarrow cannot read, a column written with the
// same values in a way it can.
var twins = map[string]string{
	"fixed_delta": "fixed_delta_twin",
	"all_null":    "all_null_twin",
}

// referenceColumns is pqarrow's reading, with twins standing in for the
// columns it cannot read.
func referenceColumns(t testing.TB, name string, data []byte) (*arrow.Schema, []arrow.Array) {
	t.Helper()
	schema, ref := pqarrowColumns(t, data)
	for i, a := range ref {
		if a != nil {
			continue
		}
		twin := schema.FieldIndices(twins[schema.Field(i).Name])
		if len(twin) != 1 || ref[twin[0]] == nil {
			t.Fatalf("%s: pqarrow cannot read column %s and it has no twin", name, schema.Field(i).Name)
		}
		ref[i] = ref[twin[0]]
		ref[i].Retain()
	}
	return schema, ref
}

// crossCheck reads the whole file with both readers and compares every
// top-level column, asking for pqarrow's types.
func crossCheck(t testing.TB, name string, data []byte, batchSize int) {
	t.Helper()
	crossCheckWith(t, name, data, batchSize, nil)
}

func crossCheckWith(t testing.TB, name string, data []byte, batchSize int, opts *OpenOptions) {
	t.Helper()
	schema, ref := referenceColumns(t, name, data)
	defer releaseAll(ref)
	f := openBytesWith(t, data, opts)
	if len(f.Root.Children) != len(ref) {
		t.Fatalf("%s: %d top-level columns, pqarrow has %d", name, len(f.Root.Children), len(ref))
	}
	types := make([]arrow.DataType, len(ref))
	for i, fld := range schema.Fields() {
		types[i] = floeTypeFor(fld.Type)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	got := floeColumns(t, f, types, garbageAllocator{mem}, batchSize)
	defer mem.AssertSize(t, 0)
	defer releaseAll(got)
	for i := range ref {
		assertSameArrays(t, fmt.Sprintf("%s column %s", name, schema.Field(i).Name), ref[i], got[i])
	}
}

// floeTypeFor maps pqarrow's type to the one we request: the same, with
// extension types (uuid) unwrapped to their storage.
func floeTypeFor(t arrow.DataType) arrow.DataType {
	switch t := t.(type) {
	case arrow.ExtensionType:
		return t.StorageType()
	}
	return t
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

func TestFixturesMatchPqarrow(t *testing.T) {
	for _, path := range fixtureParquetFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(fixtures.Path(), path)
		if filepath.Base(path) == "000000_0" {
			continue // pqarrow rejects its footer; see TestMigratedComplexFixture
		}
		t.Run(rel, func(t *testing.T) {
			crossCheck(t, rel, data, 0)
			small := 7
			if openBytes(t, data).NumRows > 2000 {
				small = 4099
			}
			crossCheck(t, fmt.Sprintf("%s (batches of %d)", rel, small), data, small)
			// Column chunks streamed through small windows (a memory
			// limit's reads): the same values. 100 bytes is less than
			// some page headers, so those are read on as they parse.
			for _, window := range []int64{100, 4096} {
				crossCheckWith(t, fmt.Sprintf("%s (chunk windows of %d)", rel, window), data, small,
					&OpenOptions{Fetch: FetchOptions{ChunkWindow: window}})
			}
		})
	}
}

func bytesReaderAt(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// garbageAllocator hands out uncleared memory as a pool of recycled
// buffers does (RecyclingAllocator.AllocateUninitialized), filled with a
// pattern, so a decoder that relied on zeroed buffers reads it back.
type garbageAllocator struct{ memory.Allocator }

func (g garbageAllocator) AllocateUninitialized(size int) []byte {
	b := g.Allocate(size)
	for i := range b {
		b[i] = 0xa5
	}
	return b
}
