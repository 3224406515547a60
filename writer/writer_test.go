package writer

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pqtypes "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
)

func newWriter(t *testing.T, dir string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, opts Options) *Writer {
	t.Helper()
	w, err := New(context.Background(), fileio.Local{}, filepath.Join(dir, "data"), schema, spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// simpleSchema: id long required, name string, tags list<string>.
func simpleSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}},
		{ID: 3, Name: "tags", Type: &iceberg.ListType{ElementID: 4, Element: iceberg.StringType{}}},
	})
}

// recordOf builds a batch from Arrow fields and arrays.
func recordOf(fields []arrow.Field, cols ...arrow.Array) arrow.RecordBatch {
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(cols[0].Len()))
}

func int64s(vals ...int64) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues(vals, nil)
	return b.NewArray()
}

func stringsArr(vals ...string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for _, v := range vals {
		if v == "<null>" {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	return b.NewArray()
}

func TestMatchColumnsByName(t *testing.T) {
	schema := simpleSchema()
	dir := t.TempDir()
	opts := DefaultOptions()
	opts.SortOrderID = ptr(2)
	w := newWriter(t, dir, schema, nil, opts)
	// By name, in another order, tags missing (optional: written as nulls).
	rec := recordOf([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "id", Type: arrow.PrimitiveTypes.Int64}},
		stringsArr("a", "<null>"), int64s(1, 2))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	// By name, with field ids that say otherwise (another table's): the
	// name wins.
	md := func(id string) arrow.Metadata { return arrow.NewMetadata([]string{FieldIDKey}, []string{id}) }
	rec = recordOf([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: md("2")},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md("1")},
	}, int64s(3), stringsArr("c"))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if files[0].SortOrderID == nil || *files[0].SortOrderID != 2 {
		t.Errorf("sort order id %v, want 2", files[0].SortOrderID)
	}
	got := readFloe(t, files[0].FilePath, schema)
	want := [][]any{{int64(1), "a", nil}, {int64(2), nil, nil}, {int64(3), "c", nil}}
	compareRows(t, "matched columns", schema, want, got)
}

func TestBatchSchemaErrors(t *testing.T) {
	schema := simpleSchema()
	cases := []struct {
		name   string
		rec    arrow.RecordBatch
		expect string
	}{
		{"extra column", recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "extra", Type: arrow.PrimitiveTypes.Int64}}, int64s(1), int64s(2)), "not in the table schema"},
		{"missing required", recordOf([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String}}, stringsArr("x")), "required column \"id\""},
		{"wrong type", recordOf([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, stringsArr("x")), "cannot be written as Iceberg long"},
		{"renamed, with the column's id", recordOf([]arrow.Field{{Name: "ident", Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{FieldIDKey}, []string{"1"})}}, int64s(1)), `"ident" is not in the table schema; did you mean "id"?`},
		{"twice", recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "id", Type: arrow.PrimitiveTypes.Int64}}, int64s(1), int64s(2)), `column "id" twice`},
		{"null in required", recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, func() arrow.Array {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			b.Append(1)
			b.AppendNull()
			return b.NewArray()
		}()), "is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w := newWriter(t, dir, schema, nil, DefaultOptions())
			// A good batch first, so a file is open when the bad one fails.
			if err := w.Write(recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, int64s(7))); err != nil {
				t.Fatal(err)
			}
			err := w.Write(c.rec)
			if err == nil || !strings.Contains(err.Error(), c.expect) {
				t.Fatalf("error %v, want one saying %q", err, c.expect)
			}
			if err2 := w.Write(c.rec); err2 == nil {
				t.Error("writer accepts batches after an error")
			}
			if _, err := w.Close(); err == nil {
				t.Error("Close after an error succeeded")
			}
			if left := filesUnder(t, dir); len(left) > 0 {
				t.Errorf("a failed write left %v", left)
			}
			if err := w.Abort(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestAbortDeletesEverything(t *testing.T) {
	schema := partitionSchema()
	rows := genClustered(rand.New(rand.NewPCG(17, 18)), schema, 200)
	spec := &iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
		{SourceID: 3, FieldID: 1000, Name: "b", Transform: iceberg.BucketTransform{N: 3}},
	}}
	dir := t.TempDir()
	opts := DefaultOptions()
	opts.TargetFileSize = 1 // every piece closes its file: finished files exist mid-stream
	w := newWriter(t, dir, schema, spec, opts)
	rec := buildRecord(t, schema, rows)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if len(filesUnder(t, dir)) == 0 {
		t.Fatal("no finished files before Abort")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if left := filesUnder(t, dir); len(left) > 0 {
		t.Fatalf("Abort left %v", left)
	}
	// After Close, Abort still removes the files (a commit that failed).
	w = newWriter(t, dir, schema, spec, DefaultOptions())
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if left := filesUnder(t, dir); len(left) > 0 {
		t.Fatalf("Abort after Close left %v", left)
	}
}

// TestNoPartialFileVisible fails a write mid-file and checks that the
// data directory never shows the unfinished file under its final name.
func TestNoPartialFileVisible(t *testing.T) {
	schema := simpleSchema()
	dir := t.TempDir()
	w := newWriter(t, dir, schema, nil, DefaultOptions())
	if err := w.Write(recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, int64s(1, 2, 3))); err != nil {
		t.Fatal(err)
	}
	for _, p := range filesUnder(t, dir) {
		if strings.HasSuffix(p, ".parquet") {
			t.Fatalf("%s is visible before the file is finished", p)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	w2, err := New(ctx, fileio.Local{}, filepath.Join(dir, "data2"), schema, nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Write(recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, int64s(1))); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := w2.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close after cancel: %v", err)
	}
	if left := filesUnder(t, filepath.Join(dir, "data2")); len(left) > 0 {
		t.Fatalf("a cancelled file left %v", left)
	}
	w.Abort()
}

func TestEmptyWrites(t *testing.T) {
	schema := simpleSchema()
	dir := t.TempDir()
	w := newWriter(t, dir, schema, nil, DefaultOptions())
	if err := w.Write(recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, int64s())); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil || len(files) != 0 {
		t.Fatalf("files %v, err %v: want none", files, err)
	}
	if left := filesUnder(t, dir); len(left) > 0 {
		t.Fatalf("empty writer left %v", left)
	}
}

// TestSlicedBatches writes slices of nested batches: offsets into every
// buffer must be honoured.
func TestSlicedBatches(t *testing.T) {
	schema := allTypesSchema()
	rows := genRows(rand.New(rand.NewPCG(19, 20)), schema, 500)
	rec := buildRecord(t, schema, rows)
	defer rec.Release()
	dir := t.TempDir()
	w := newWriter(t, dir, schema, nil, DefaultOptions())
	var want [][]any
	for _, r := range [][2]int{{3, 50}, {100, 101}, {250, 499}, {7, 7}} {
		s := rec.NewSlice(int64(r[0]), int64(r[1]))
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		s.Release()
		want = append(want, rows[r[0]:r[1]]...)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	compareRows(t, "sliced", schema, want, readFloe(t, files[0].FilePath, schema))
	checkMetrics(t, schema, want, files[0], func(int) MetricsMode { return DefaultMetricsMode })
}

// TestOtherArrowTypes writes Arrow types a host may hand over that differ
// from the reader's: large strings and lists, coarser timestamps, the
// arrow.uuid extension.
func TestOtherArrowTypes(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "s", Type: iceberg.StringType{}},
		{ID: 2, Name: "b", Type: iceberg.BinaryType{}},
		{ID: 3, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 4, Name: "tsns", Type: iceberg.TimestamptzNsType{}},
		{ID: 5, Name: "u", Type: iceberg.UUIDType{}},
		{ID: 6, Name: "l", Type: &iceberg.ListType{ElementID: 7, Element: iceberg.IntType{}}},
		{ID: 8, Name: "gone", Type: iceberg.UnknownType{}},
	})
	mem := memory.DefaultAllocator
	sb := array.NewLargeStringBuilder(mem)
	sb.AppendValues([]string{"x", "日本"}, nil)
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.LargeBinary)
	bb.AppendValues([][]byte{{1}, nil}, []bool{true, false})
	tsb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Millisecond})
	tsb.AppendValues([]arrow.Timestamp{1700000000123, -1}, nil)
	nsb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"})
	nsb.AppendValues([]arrow.Timestamp{1700000000, 0}, nil)
	u1, u2 := uuid.New(), uuid.New()
	ub := extensions.NewUUIDBuilder(mem)
	ub.Append(u1)
	ub.Append(u2)
	lb := array.NewLargeListBuilder(mem, arrow.PrimitiveTypes.Int32)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	lb.AppendNull()
	nb := array.NewNullBuilder(mem)
	nb.AppendNulls(2)
	rec := recordOf([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "tsns", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"}, Nullable: true},
		{Name: "u", Type: extensions.NewUUIDType(), Nullable: true},
		{Name: "l", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "gone", Type: arrow.Null, Nullable: true},
	}, sb.NewArray(), bb.NewArray(), tsb.NewArray(), nsb.NewArray(), ub.NewArray(), lb.NewArray(), nb.NewArray())
	dir := t.TempDir()
	w := newWriter(t, dir, schema, nil, DefaultOptions())
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	written := iceberg.NewSchema(0, schema.Fields[:6])
	want := [][]any{
		{"x", []byte{1}, int64(1700000000123000), int64(1700000000 * 1e9), [16]byte(u1), []any{int32(1), int32(2)}},
		{"日本", nil, int64(-1000), int64(0), [16]byte(u2), nil},
	}
	compareRows(t, "other arrow types", written, want, readFloe(t, files[0].FilePath, written))
	pf := openParquetGo(t, files[0].FilePath)
	if _, ok := pf.Schema().Lookup("gone"); ok {
		t.Error("the unknown-typed column was written")
	}
	// A timestamp finer than the column is refused, not silently cut.
	fine := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
	fine.Append(1)
	w = newWriter(t, t.TempDir(), schema, nil, DefaultOptions())
	err = w.Write(recordOf([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true}}, fine.NewArray()))
	if err == nil || !strings.Contains(err.Error(), "finer") {
		t.Errorf("nanoseconds into a microsecond column: %v", err)
	}
	w.Abort()
}

func openParquetGo(t testing.TB, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	info, _ := f.Stat()
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// TestParquetLayout inspects the written footer with arrow-go's reader:
// physical types, annotations, repetition, 3-level lists and maps, field
// ids in schema order, codec and the iceberg.schema key.
func TestParquetLayout(t *testing.T) {
	schema := allTypesSchema()
	rows := genRows(rand.New(rand.NewPCG(21, 22)), schema, 50)
	files := writeRows(t, t.TempDir(), schema, nil, DefaultOptions(), rows, 50)
	pr, err := file.OpenParquetFile(files[0].FilePath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	root := pr.MetaData().Schema.Root()
	var check func(n pqschema.Node, f iceberg.NestedField, name string)
	check = func(n pqschema.Node, f iceberg.NestedField, name string) {
		if n.Name() != name {
			t.Fatalf("node %q, want %q", n.Name(), name)
		}
		if int(n.FieldID()) != f.ID {
			t.Errorf("%s: field id %d, want %d", name, n.FieldID(), f.ID)
		}
		wantRep := pqtypes.Repetitions.Optional
		if f.Required {
			wantRep = pqtypes.Repetitions.Required
		}
		if n.RepetitionType() != wantRep {
			t.Errorf("%s: repetition %v, want %v", name, n.RepetitionType(), wantRep)
		}
		phys := func(want pqtypes.Type) *pqschema.PrimitiveNode {
			p, ok := n.(*pqschema.PrimitiveNode)
			if !ok || p.PhysicalType() != want {
				t.Errorf("%s (%s): %v, want physical %v", name, f.Type, n, want)
				return &pqschema.PrimitiveNode{}
			}
			return p
		}
		wrapper := func(wantName string) pqschema.Node {
			g := n.(*pqschema.GroupNode)
			if g.NumFields() != 1 {
				t.Fatalf("%s: %d children", name, g.NumFields())
			}
			rep := g.Field(0)
			if rep.Name() != wantName || rep.RepetitionType() != pqtypes.Repetitions.Repeated {
				t.Errorf("%s: repeated group %q %v, want %q", name, rep.Name(), rep.RepetitionType(), wantName)
			}
			return rep
		}
		switch ft := f.Type.(type) {
		case *iceberg.StructType:
			g := n.(*pqschema.GroupNode)
			if g.NumFields() != len(ft.Fields) {
				t.Fatalf("%s: %d fields, want %d", name, g.NumFields(), len(ft.Fields))
			}
			for i, c := range ft.Fields {
				check(g.Field(i), c, c.Name)
			}
		case *iceberg.ListType:
			if _, ok := n.LogicalType().(pqschema.ListLogicalType); !ok {
				t.Errorf("%s: annotated %v, want LIST", name, n.LogicalType())
			}
			rep := wrapper("list").(*pqschema.GroupNode)
			check(rep.Field(0), iceberg.NestedField{ID: ft.ElementID, Type: ft.Element, Required: ft.ElementRequired}, "element")
		case *iceberg.MapType:
			if _, ok := n.LogicalType().(pqschema.MapLogicalType); !ok {
				t.Errorf("%s: annotated %v, want MAP", name, n.LogicalType())
			}
			rep := wrapper("key_value").(*pqschema.GroupNode)
			check(rep.Field(0), iceberg.NestedField{ID: ft.KeyID, Type: ft.Key, Required: true}, "key")
			check(rep.Field(1), iceberg.NestedField{ID: ft.ValueID, Type: ft.Value, Required: ft.ValueRequired}, "value")
		case iceberg.DecimalType:
			var p *pqschema.PrimitiveNode
			switch {
			case ft.Precision <= 9:
				p = phys(pqtypes.Types.Int32)
			case ft.Precision <= 18:
				p = phys(pqtypes.Types.Int64)
			default:
				p = phys(pqtypes.Types.FixedLenByteArray)
				if want := minDecimalBytes(ft.Precision); p.TypeLength() != want {
					t.Errorf("%s: FIXED[%d], want %d bytes", name, p.TypeLength(), want)
				}
			}
			if d, ok := n.LogicalType().(pqschema.DecimalLogicalType); !ok || int(d.Precision()) != ft.Precision || int(d.Scale()) != ft.Scale {
				t.Errorf("%s: annotated %v", name, n.LogicalType())
			}
		case iceberg.UUIDType:
			if p := phys(pqtypes.Types.FixedLenByteArray); p.TypeLength() != 16 {
				t.Errorf("%s: FIXED[%d]", name, p.TypeLength())
			}
			if _, ok := n.LogicalType().(pqschema.UUIDLogicalType); !ok {
				t.Errorf("%s: annotated %v, want UUID", name, n.LogicalType())
			}
		case iceberg.FixedType:
			if p := phys(pqtypes.Types.FixedLenByteArray); p.TypeLength() != ft.Length {
				t.Errorf("%s: FIXED[%d]", name, p.TypeLength())
			}
		case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
			phys(pqtypes.Types.Int64)
			zoned := ft == (iceberg.TimestamptzType{}) || ft == (iceberg.TimestamptzNsType{})
			unit := pqschema.TimeUnitMicros
			if ft == (iceberg.TimestampNsType{}) || ft == (iceberg.TimestamptzNsType{}) {
				unit = pqschema.TimeUnitNanos
			}
			if ts, ok := n.LogicalType().(pqschema.TimestampLogicalType); !ok || ts.IsAdjustedToUTC() != zoned || ts.TimeUnit() != unit {
				t.Errorf("%s: annotated %v", name, n.LogicalType())
			}
		case iceberg.TimeType:
			phys(pqtypes.Types.Int64)
			if tm, ok := n.LogicalType().(pqschema.TimeLogicalType); !ok || tm.IsAdjustedToUTC() || tm.TimeUnit() != pqschema.TimeUnitMicros {
				t.Errorf("%s: annotated %v", name, n.LogicalType())
			}
		case iceberg.DateType:
			phys(pqtypes.Types.Int32)
			if _, ok := n.LogicalType().(pqschema.DateLogicalType); !ok {
				t.Errorf("%s: annotated %v, want DATE", name, n.LogicalType())
			}
		case iceberg.StringType:
			phys(pqtypes.Types.ByteArray)
			if _, ok := n.LogicalType().(pqschema.StringLogicalType); !ok {
				t.Errorf("%s: annotated %v, want STRING", name, n.LogicalType())
			}
		case iceberg.BinaryType:
			phys(pqtypes.Types.ByteArray)
		case iceberg.BooleanType:
			phys(pqtypes.Types.Boolean)
		case iceberg.IntType:
			phys(pqtypes.Types.Int32)
		case iceberg.LongType:
			phys(pqtypes.Types.Int64)
		case iceberg.FloatType:
			phys(pqtypes.Types.Float)
		case iceberg.DoubleType:
			phys(pqtypes.Types.Double)
		}
	}
	if root.NumFields() != len(schema.Fields) {
		t.Fatalf("%d top-level columns, want %d", root.NumFields(), len(schema.Fields))
	}
	for i, f := range schema.Fields {
		check(root.Field(i), f, f.Name)
	}
	md := pr.MetaData()
	for c := 0; c < md.Schema.NumColumns(); c++ {
		cc, err := md.RowGroup(0).ColumnChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		if cc.Compression() != compress.Codecs.Zstd {
			t.Fatalf("column %d: codec %v, want ZSTD", c, cc.Compression())
		}
	}
	js := md.KeyValueMetadata().FindValue("iceberg.schema")
	if js == nil {
		t.Fatal("no iceberg.schema key")
	}
	var back iceberg.Schema
	if err := back.UnmarshalJSON([]byte(*js)); err != nil || back.String() != schema.String() {
		t.Errorf("iceberg.schema %s (%v)", *js, err)
	}
}

// minDecimalBytes is the smallest n with 2^(8n-1) > 10^p - 1, by big
// integers.
func minDecimalBytes(p int) int {
	limit := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil), big.NewInt(1))
	for n := 1; ; n++ {
		if new(big.Int).Lsh(big.NewInt(1), uint(8*n-1)).Cmp(limit) > 0 {
			return n
		}
	}
}

func TestPageRowLimitAndCodecs(t *testing.T) {
	schema := simpleSchema()
	n := 10000
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	for _, codec := range []string{"gzip", "brotli", "lz4", "snappy", "zstd"} {
		opts, err := OptionsFromProperties(map[string]string{PropCodec: codec, PropPageRowLimit: "1000", PropCompressionLevel: "1"}, schema)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		w := newWriter(t, dir, schema, nil, opts)
		if err := w.Write(recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, int64s(ids...))); err != nil {
			t.Fatal(err)
		}
		files, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		pf := openParquetGo(t, files[0].FilePath)
		chunk := pf.RowGroups()[0].ColumnChunks()[0]
		oi, err := chunk.OffsetIndex()
		if err != nil {
			t.Fatal(err)
		}
		if oi.NumPages() < 10 {
			t.Errorf("%s: %d pages for %d rows at 1000 rows a page", codec, oi.NumPages(), n)
		}
		got := readFloe(t, files[0].FilePath, schema)
		if len(got) != n || got[n-1][0] != int64(n-1) {
			t.Errorf("%s: read back %d rows", codec, len(got))
		}
	}
}

func TestOptionsFromProperties(t *testing.T) {
	schema := simpleSchema()
	o, err := OptionsFromProperties(map[string]string{
		PropCodec: "SNAPPY", PropRowGroupSize: "1048576", PropTargetFileSize: "2097152", PropPageSize: "4096",
	}, schema)
	if err != nil {
		t.Fatal(err)
	}
	if o.Codec != "snappy" || o.RowGroupSize != 1<<20 || o.TargetFileSize != 2<<20 || o.PageSize != 4096 {
		t.Errorf("options %+v", o)
	}
	d, _ := OptionsFromProperties(nil, schema)
	if d.Codec != "zstd" || d.RowGroupSize != 128<<20 || d.TargetFileSize != 512<<20 || d.metricsFor(2) != DefaultMetricsMode {
		t.Errorf("defaults %+v", d)
	}
	for _, bad := range []map[string]string{
		{PropCodec: "lzo"}, {PropRowGroupSize: "big"}, {PropTargetFileSize: "-1"}, {PropPageSize: "0"},
	} {
		if _, err := OptionsFromProperties(bad, schema); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := New(context.Background(), fileio.Local{}, t.TempDir(), schema, nil, Options{Metrics: MetricsMode{Kind: MetricsTruncate}}); err == nil {
		t.Error("truncate(0) accepted")
	}
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 4, FieldID: 1000, Name: "e", Transform: iceberg.IdentityTransform{}}}}
	if _, err := New(context.Background(), fileio.Local{}, t.TempDir(), schema, spec, DefaultOptions()); err == nil {
		t.Error("partitioning by a list element accepted")
	}
	spec = &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "x", Transform: iceberg.UnknownTransform{Name: "zorder"}}}}
	if _, err := New(context.Background(), fileio.Local{}, t.TempDir(), schema, spec, DefaultOptions()); err == nil {
		t.Error("an unknown transform accepted")
	}
}

// TestMalformedArrays hands the writer arrays whose offsets lie, as a
// broken producer could through the C Data Interface: an error, no panic.
func TestMalformedArrays(t *testing.T) {
	schema := simpleSchema()
	i32 := func(v ...int32) *memory.Buffer { return memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(v)) }
	ids := int64s(1, 2)
	badString := array.MakeFromData(array.NewData(arrow.BinaryTypes.String, 2,
		[]*memory.Buffer{nil, i32(0, 5, 3), memory.NewBufferBytes([]byte("abc"))}, nil, 0, 0))
	elems := stringsArr("a", "b")
	badList := array.MakeFromData(array.NewData(arrow.ListOf(arrow.BinaryTypes.String), 2,
		[]*memory.Buffer{nil, i32(0, 1, 9)}, []arrow.ArrayData{elems.Data()}, 0, 0))
	for name, rec := range map[string]arrow.RecordBatch{
		"string offsets": recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}, ids, badString),
		"list offsets":   recordOf([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}}, ids, badList),
	} {
		w := newWriter(t, t.TempDir(), schema, nil, DefaultOptions())
		err := w.Write(rec)
		if err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("%s: error %v, want a malformed-array error", name, err)
		}
		w.Abort()
	}
}
