package parquet

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/parquet-go/parquet-go"
)

func smallTable(t *testing.T, rows int, opts ...parquet.WriterOption) []byte {
	specs := []colSpec{
		optional("id", parquet.Int(64), genSeq64),
		optional("name", enc(parquet.String(), &parquet.RLEDictionary), genWord),
		optional("score", parquet.Leaf(parquet.DoubleType), genDouble),
		optional("tags", parquet.List(parquet.String()), func(r *rand.Rand, i int) any { return listOf(r.IntN(3), r, genWord) }),
	}
	return writeSpecs(t, specs, rows, 9, append([]parquet.WriterOption{parquet.PageBufferSize(1024), parquet.Compression(&parquet.Snappy)}, opts...)...)
}

// firstPageBody locates the body of the first data page of column 0.
func firstPageBody(t *testing.T, data []byte) (start, end int) {
	f := openBytes(t, data)
	c := &f.RowGroups[0].Columns[0]
	pos := int(c.Start())
	for {
		r := ThriftReader{Buf: data[pos:]}
		var h PageHeader
		if err := ParsePageHeader(&r, &h); err != nil {
			t.Fatal(err)
		}
		body := pos + r.Pos
		if h.Typ == PageData || h.Typ == PageDataV2 {
			if !h.hasCRC {
				t.Fatal("writer stored no page CRC")
			}
			return body, body + int(h.CompressedSize)
		}
		pos = body + int(h.CompressedSize)
	}
}

func TestPageChecksums(t *testing.T) {
	for _, version := range []int{1, 2} {
		data := smallTable(t, 500, parquet.DataPageVersion(version))
		start, end := firstPageBody(t, data)
		bad := bytes.Clone(data)
		bad[(start+end)/2] ^= 0x55
		f := openBytes(t, bad)
		read := func(verify bool) error {
			br, err := f.NewBatchReader(ReadRequest{Columns: []Column{{Node: f.Lookup("id")}}, VerifyCRC: verify})
			if err != nil {
				t.Fatal(err)
			}
			defer br.Close()
			for {
				b, err := br.Next()
				if err != nil {
					if err == io.EOF {
						return nil
					}
					return err
				}
				b.Release()
			}
		}
		err := read(true)
		if err == nil || !strings.Contains(err.Error(), "CRC") || !strings.Contains(err.Error(), "column id") {
			t.Errorf("v%d: corrupted page read with verification: %v", version, err)
		}
		// Unverified, the flipped byte goes unnoticed or fails to decode;
		// either way no panic.
		if err := read(false); err != nil && strings.Contains(err.Error(), "CRC") {
			t.Errorf("v%d: CRC checked although not asked: %v", version, err)
		}
		if err := readAllColumns(t, openBytes(t, data), true); err != nil {
			t.Errorf("v%d: intact file fails verification: %v", version, err)
		}
	}
}

func readAllColumns(t *testing.T, f *File, verify bool) error {
	var cols []Column
	for _, n := range f.Root.Children {
		cols = append(cols, Column{Node: n})
	}
	for rg := range f.RowGroups {
		b, err := f.ReadAll(ReadRequest{Columns: cols, RowGroup: rg, VerifyCRC: verify})
		if err != nil {
			return err
		}
		b.Release()
	}
	return nil
}

func TestEarlyStopDecodesOnlyWhatItReturns(t *testing.T) {
	data := smallTable(t, 20000)
	f := openBytes(t, data)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	br, err := f.NewBatchReader(ReadRequest{Columns: []Column{{Node: f.Lookup("id")}, {Node: f.Lookup("tags")}}, BatchSize: 100, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	b, err := br.Next()
	if err != nil || b.NumRows != 100 {
		t.Fatalf("first batch: %v", err)
	}
	b.Release()
	for _, l := range br.Leaves {
		if l.pagesDecoded > 3 {
			t.Errorf("column %s decoded %d pages for 100 rows", l.Node.DottedPath(), l.pagesDecoded)
		}
	}
	br.Close()
	mem.AssertSize(t, 0)
	if _, err := br.Next(); err == nil {
		t.Error("Next after Close succeeded")
	}
}

func TestParallelDecodeMatchesSerial(t *testing.T) {
	data := smallTable(t, 5000)
	f := openBytes(t, data)
	var cols []Column
	for _, n := range f.Root.Children {
		cols = append(cols, Column{Node: n})
	}
	serial, err := f.ReadAll(ReadRequest{Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	defer serial.Release()
	parallel, err := f.ReadAll(ReadRequest{Columns: cols, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer parallel.Release()
	for i := range cols {
		if !array.Equal(serial.Columns[i], parallel.Columns[i]) {
			t.Errorf("column %s differs", cols[i].Node.Name)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	data := smallTable(t, 10)
	f := openBytes(t, data)
	other := openBytes(t, data)
	tags := f.Lookup("tags")
	for name, req := range map[string]ReadRequest{
		"row group":      {Columns: []Column{{Node: f.Lookup("id")}}, RowGroup: 5},
		"row range":      {Columns: []Column{{Node: f.Lookup("id")}}, RowStart: 11},
		"foreign node":   {Columns: []Column{{Node: other.Lookup("id")}}},
		"wrapper":        {Columns: []Column{{Node: tags.RepeatedNode()}}},
		"wrong child":    {Columns: []Column{{Node: tags, Children: []Column{{Node: f.Lookup("id")}}}}},
		"leaf children":  {Columns: []Column{{Node: f.Lookup("id"), Children: []Column{{Node: f.Lookup("id")}}}}},
		"shape mismatch": {Columns: []Column{{Node: tags, Type: arrow.BinaryTypes.String}}},
	} {
		if _, err := f.NewBatchReader(req); err == nil {
			t.Errorf("%s: request accepted", name)
		}
	}
}

// A list element can be read as another type, and a caller's nested type
// with other field names is kept as given.
func TestNestedTypeOverrides(t *testing.T) {
	specs := []colSpec{
		optional("l", parquet.List(parquet.Optional(parquet.Int(32))), func(r *rand.Rand, i int) any {
			return listOf(r.IntN(3), r, maybeNull(r, genSmall32))
		}),
	}
	data := writeSpecs(t, specs, 300, 4)
	f := openBytes(t, data)
	l := f.Lookup("l")
	want := arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"7"})})
	b, err := f.ReadAll(ReadRequest{Columns: []Column{{Node: l, Type: want, Children: []Column{{Node: l.ListElement(), Type: arrow.PrimitiveTypes.Int64}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if !arrow.TypeEqual(b.Columns[0].DataType(), want, arrow.CheckMetadata()) {
		t.Errorf("type %s, want %s", b.Columns[0].DataType(), want)
	}
	_, ref := pqarrowColumns(t, data)
	defer releaseAll(ref)
	refList, got := ref[0].(*array.List), b.Columns[0].(*array.List)
	refVals, gotVals := refList.ListValues().(*array.Int32), got.ListValues().(*array.Int64)
	if refVals.Len() != gotVals.Len() || refList.Len() != got.Len() {
		t.Fatalf("lengths differ")
	}
	for i := range refVals.Len() {
		if refVals.IsNull(i) != gotVals.IsNull(i) || refVals.IsValid(i) && int64(refVals.Value(i)) != gotVals.Value(i) {
			t.Fatalf("element %d: %v vs %v", i, refVals.GetOneForMarshal(i), gotVals.GetOneForMarshal(i))
		}
	}
}

func TestOpenFileErrors(t *testing.T) {
	good := smallTable(t, 10)
	cases := map[string][]byte{
		"empty":       nil,
		"tiny":        []byte("PAR1"),
		"no magic":    append(bytes.Clone(good[:len(good)-4]), 'X', 'X', 'X', 'X'),
		"encrypted":   append(bytes.Clone(good[:len(good)-4]), 'P', 'A', 'R', 'E'),
		"long footer": append(append(bytes.Clone(good[:len(good)-8]), 0xff, 0xff, 0xff, 0x7f), 'P', 'A', 'R', '1'),
	}
	for name, data := range cases {
		_, err := OpenFile(bytes.NewReader(data), int64(len(data)), nil)
		want := errkind.Corrupt
		if name == "encrypted" {
			want = errkind.Unsupported
		}
		if err == nil || errkind.Of(err) != want {
			t.Errorf("%s: error %v of kind %v, want kind %v", name, err, errkind.Of(err), want)
		}
	}
	// A footer bigger than the first tail read costs a second read.
	f, err := OpenFile(bytes.NewReader(good), int64(len(good)), &OpenOptions{FooterReadSize: 16})
	if err != nil || f.NumRows != 10 {
		t.Errorf("small tail read: %v", err)
	}
}

type countingReaderAt struct {
	r     io.ReaderAt
	bytes int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.bytes += int64(len(p))
	return c.r.ReadAt(p, off)
}

// With an offset index, a row range fetches only the pages it needs.
func TestRowRangeReadsOnlyItsPages(t *testing.T) {
	data := smallTable(t, 20000)
	_, ref := pqarrowColumns(t, data)
	defer releaseAll(ref)
	for _, rng := range [][2]int64{{0, 50}, {19900, 19950}, {7000, 7100}} {
		cr := &countingReaderAt{r: bytes.NewReader(data)}
		// A small footer read, so the file is not read whole with it.
		f, err := OpenFile(cr, int64(len(data)), &OpenOptions{FooterReadSize: 4096})
		if err != nil {
			t.Fatal(err)
		}
		footer := cr.bytes
		var cols []Column
		for _, n := range f.Root.Children {
			cols = append(cols, Column{Node: n})
		}
		b, err := f.ReadAll(ReadRequest{Columns: cols, RowStart: rng[0], RowEnd: rng[1]})
		if err != nil {
			t.Fatal(err)
		}
		var chunks int64
		for _, c := range f.RowGroups[0].Columns {
			chunks += c.TotalCompressedSize
		}
		if read := cr.bytes - footer; read*4 > chunks {
			t.Errorf("rows %v: read %d bytes of %d in the column chunks", rng, read, chunks)
		}
		for i, c := range b.Columns {
			want := array.NewSlice(ref[i], rng[0], rng[1])
			assertSameArrays(t, "range", want, c)
			want.Release()
		}
		b.Release()
	}
}

func TestMultipleRowRanges(t *testing.T) {
	data := smallTable(t, 20000)
	_, ref := pqarrowColumns(t, data)
	defer releaseAll(ref)
	f := openBytes(t, data)
	var cols []Column
	for _, n := range f.Root.Children {
		cols = append(cols, Column{Node: n})
	}
	ranges := []RowRange{{10, 20}, {500, 700}, {700, 701}, {1500, 1500}, {15000, 16234}, {19999, 20000}}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	br, err := f.NewBatchReader(ReadRequest{Columns: cols, Ranges: ranges, BatchSize: 150, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	var got []RowRange
	for {
		b, err := br.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, RowRange{b.FirstRow, b.FirstRow + int64(b.NumRows)})
		for i, c := range b.Columns {
			want := array.NewSlice(ref[i], b.FirstRow, b.FirstRow+int64(b.NumRows))
			assertSameArrays(t, "ranges", want, c)
			want.Release()
		}
		b.Release()
	}
	want := []RowRange{{10, 20}, {500, 650}, {650, 700}, {700, 701}, {15000, 15150}}
	if len(got) < len(want) {
		t.Fatalf("batches %v", got)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("batch %d covers %v, want %v", i, got[i], w)
		}
	}
	if last := got[len(got)-1]; last != (RowRange{19999, 20000}) {
		t.Errorf("last batch %v", last)
	}
	if _, err := f.NewBatchReader(ReadRequest{Columns: cols, Ranges: []RowRange{{5, 10}, {7, 12}}}); err == nil {
		t.Error("overlapping ranges accepted")
	}
}

// The page index as parquet-go (the writer) reads it back.
func TestPageIndexMatchesParquetGo(t *testing.T) {
	data := smallTable(t, 5000)
	f := openBytes(t, data)
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for i, chunk := range pf.RowGroups()[0].ColumnChunks() {
		meta := &f.RowGroups[0].Columns[i]
		locs, err := f.OffsetIndex(meta)
		if err != nil {
			t.Fatal(err)
		}
		oi, err := chunk.OffsetIndex()
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != oi.NumPages() || len(locs) < 2 {
			t.Fatalf("column %d: %d pages, parquet-go has %d", i, len(locs), oi.NumPages())
		}
		for p, l := range locs {
			if l.Offset != oi.Offset(p) || int64(l.CompressedPageSize) != oi.CompressedPageSize(p) || l.FirstRowIndex != oi.FirstRowIndex(p) {
				t.Errorf("column %d page %d: %+v", i, p, l)
			}
		}
		ci, err := f.ColumnIndex(meta)
		if err != nil {
			t.Fatal(err)
		}
		pci, err := chunk.ColumnIndex()
		if err != nil {
			t.Fatal(err)
		}
		if len(ci.NullPages) != pci.NumPages() {
			t.Fatalf("column %d: column index has %d pages, parquet-go %d", i, len(ci.NullPages), pci.NumPages())
		}
		for p := range ci.NullPages {
			if ci.NullPages[p] != pci.NullPage(p) || ci.NullCounts[p] != pci.NullCount(p) {
				t.Errorf("column %d page %d: nulls differ", i, p)
			}
			if !ci.NullPages[p] && (!bytes.Equal(ci.MinValues[p], pci.MinValue(p).Bytes()) || !bytes.Equal(ci.MaxValues[p], pci.MaxValue(p).Bytes())) {
				t.Errorf("column %d page %d: min/max %x..%x, parquet-go %x..%x", i, p, ci.MinValues[p], ci.MaxValues[p], pci.MinValue(p).Bytes(), pci.MaxValue(p).Bytes())
			}
		}
	}
}
