package writer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// Sorted writes: every file a writer with a sort order writes holds its
// rows in that order, checked row by row against the order as package
// iceberg's boxed transforms and Compare define it
// (rowstest.CompareBySortOrder, not the writer's unboxed keys), with every
// row written exactly once and the order's id in each entry.

func sortSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "cat", Type: iceberg.StringType{}},
		{ID: 3, Name: "score", Type: iceberg.DoubleType{}},
		{ID: 4, Name: "n", Type: iceberg.IntType{}},
		{ID: 5, Name: "flag", Type: iceberg.BooleanType{}, Required: true},
		{ID: 6, Name: "amount", Type: iceberg.DecimalType{Precision: 12, Scale: 2}},
		{ID: 7, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 8, Name: "f", Type: iceberg.FloatType{}},
	})
}

// sortRowsInput are n rows with few distinct values per column (so ties
// reach the later keys), nulls in every optional column, negative and
// positive numbers, and the floats' special values.
func sortRowsInput(seed uint64, n int) [][]any {
	r := rand.New(rand.NewPCG(seed, 5))
	cats := []string{"apple", "apricot", "banana", "b", "", "zebra", "éclair", "日本", "ap", "abcdefghijklmnopq1", "abcdefghijklmnop", "abcdefghijklmnopq0", "abcdefghijklmnop\x00"}
	doubles := []float64{math.NaN(), math.Inf(-1), math.Inf(1), math.Copysign(0, -1), 0, -1.5, 2.25, 1e300, -1e-300}
	floats := []float32{float32(math.NaN()), float32(math.Inf(1)), -3, 0, 7.5}
	rows := make([][]any, n)
	for i := range rows {
		maybe := func(v any) any {
			if r.IntN(7) == 0 {
				return nil
			}
			return v
		}
		rows[i] = []any{
			int64(r.IntN(2*n) - n),
			maybe(cats[r.IntN(len(cats))]),
			maybe(doubles[r.IntN(len(doubles))]),
			maybe(int32(r.IntN(9) - 4)),
			r.IntN(2) == 0,
			maybe(decimalOf(r.Int64N(1<<40) - 1<<39)),
			maybe(int64(r.IntN(5)-2) * 86_400_000_000 * 40),
			maybe(floats[r.IntN(len(floats))]),
		}
	}
	return rows
}

// decimalOf is the decimal(12, 2) of unscaled v.
func decimalOf(v int64) iceberg.Decimal {
	return iceberg.Decimal{Hi: v >> 63, Lo: uint64(v), Scale: 2}
}

func sortField(source int, t iceberg.Transform, dir, nulls string) iceberg.SortField {
	return iceberg.SortField{SourceID: source, Transform: t, Direction: dir, NullOrder: nulls}
}

// sortedOrders are the orders the tests write with.
var sortedOrders = []struct {
	name  string
	order iceberg.SortOrder
}{
	{"cat asc nulls-first, score desc nulls-last", iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		sortField(2, iceberg.IdentityTransform{}, "asc", "nulls-first"), sortField(3, iceberg.IdentityTransform{}, "desc", "nulls-last")}}},
	{"truncate[2] cat desc nulls-last, n asc nulls-first, id desc", iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		sortField(2, iceberg.TruncateTransform{Width: 2}, "desc", "nulls-last"), sortField(4, iceberg.IdentityTransform{}, "asc", "nulls-first"),
		sortField(1, iceberg.IdentityTransform{}, "desc", "nulls-last")}}},
	{"bucket[4] id, amount desc nulls-first", iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		sortField(1, iceberg.BucketTransform{N: 4}, "asc", "nulls-first"), sortField(6, iceberg.IdentityTransform{}, "desc", "nulls-first")}}},
	{"day ts desc nulls-first, f asc nulls-last, score asc nulls-first", iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		sortField(7, iceberg.DayTransform{}, "desc", "nulls-first"), sortField(8, iceberg.IdentityTransform{}, "asc", "nulls-last"),
		sortField(3, iceberg.IdentityTransform{}, "asc", "nulls-first")}}},
	{"flag, amount asc nulls-last, truncate[10] amount", iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		sortField(5, iceberg.IdentityTransform{}, "asc", "nulls-first"), sortField(6, iceberg.TruncateTransform{Width: 1000}, "asc", "nulls-last"),
		sortField(6, iceberg.IdentityTransform{}, "desc", "nulls-last")}}},
}

// checkSortedFiles reads every file back with floe's reader and checks
// its rows are in order and carry the order's id, and that the files
// together hold exactly rows.
func checkSortedFiles(t *testing.T, schema *iceberg.Schema, order *iceberg.SortOrder, files []manifest.DataFile, rows [][]any) {
	t.Helper()
	var all [][]any
	for _, df := range files {
		if df.SortOrderID == nil || *df.SortOrderID != order.OrderID {
			t.Fatalf("%s: sort_order_id %v, want %d", df.FilePath, df.SortOrderID, order.OrderID)
		}
		got := rowstest.ReadFile(t, df.FilePath, schema)
		rowstest.CheckSorted(t, df.FilePath, schema, order, got)
		all = append(all, got...)
	}
	compareRows(t, "rows of the sorted files", schema, sortedCopy(schema, rows), sortedCopy(schema, all))
}

func sortedCopy(schema *iceberg.Schema, rows [][]any) [][]any {
	out := slices.Clone(rows)
	sortRowsByAll(schema, out)
	return out
}

// sortRowsByAll orders rows by every column, so two multisets of rows
// compare row by row.
func sortRowsByAll(schema *iceberg.Schema, rows [][]any) {
	slices.SortStableFunc(rows, func(a, b []any) int {
		for i, f := range schema.Fields {
			if c := iceberg.Compare(f.Type, a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	})
}

func sortedWriter(t *testing.T, dir string, spec *iceberg.PartitionSpec, opts Options) *Writer {
	t.Helper()
	w, err := New(context.Background(), fileio.Local{}, dir, sortSchema(), spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestSortedWritesOrderEachFile(t *testing.T) {
	schema := sortSchema()
	rows := sortRowsInput(1, 3000)
	byFlag := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 5, FieldID: 1000, Name: "flag", Transform: iceberg.IdentityTransform{}}}}
	for _, c := range sortedOrders {
		for _, spec := range []*iceberg.PartitionSpec{nil, byFlag} {
			// A whole run at Close, and a small buffer that flushes a run
			// every few batches (files finish at each flush).
			for _, buffer := range []int64{0, 40_000} {
				name := fmt.Sprintf("%s/partitioned=%v/buffer=%d", c.name, spec != nil, buffer)
				t.Run(name, func(t *testing.T) {
					opts := DefaultOptions()
					opts.SortOrder, opts.SortBufferSize = &c.order, buffer
					opts.PageRowLimit = 100
					w := sortedWriter(t, t.TempDir(), spec, opts)
					files := writeRecords(t, w, schema, rows, 250)
					want := 1
					if spec != nil {
						want = 2
					}
					if buffer > 0 {
						want *= 2
					}
					if len(files) < want {
						t.Errorf("%d files, want at least %d", len(files), want)
					}
					checkSortedFiles(t, schema, &c.order, files, rows)
				})
			}
		}
	}
}

// A first key that is null in every row (the radix sort has no keys)
// and in none: the later keys order the rows.
func TestSortedWritesAllNullKey(t *testing.T) {
	schema := sortSchema()
	rows := sortRowsInput(4, 600)
	for _, r := range rows {
		r[3] = nil // n
	}
	for _, first := range []int{4, 1} {
		order := iceberg.SortOrder{OrderID: 2, Fields: []iceberg.SortField{
			sortField(first, iceberg.IdentityTransform{}, "desc", "nulls-first"), sortField(3, iceberg.IdentityTransform{}, "desc", "nulls-last")}}
		opts := DefaultOptions()
		opts.SortOrder = &order
		w := sortedWriter(t, t.TempDir(), nil, opts)
		checkSortedFiles(t, schema, &order, writeRecords(t, w, schema, rows, 200), rows)
	}
}

// A table with a sort order: TableOptions gives the writer its default
// order, so the files of a table written through the table's options are
// sorted; the table without one gets no order.
func TestTableOptionsCarryTheSortOrder(t *testing.T) {
	order := sortedOrders[1].order
	tbl, err := table.Create(context.Background(), nil, filepath.Join(t.TempDir(), "tbl"), sortSchema(), nil, &order, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata
	opts, err := TableOptions(md, md.CurrentSchema())
	if err != nil || opts.SortOrder == nil || len(opts.SortOrder.Fields) != 3 || opts.SortOrder.OrderID != md.DefaultSortOrderID {
		t.Fatalf("table options: sort order %+v, %v; want the table's default order %d", opts.SortOrder, err, md.DefaultSortOrderID)
	}
	rows := sortRowsInput(2, 500)
	w, err := New(context.Background(), tbl.IO, DataLocation(md), md.CurrentSchema(), md.DefaultSpec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	checkSortedFiles(t, md.CurrentSchema(), md.DefaultSortOrder(), writeRecords(t, w, md.CurrentSchema(), rows, 100), rows)

	plain := newTable(t, 2, nil, nil)
	if opts, err := TableOptions(plain.Metadata, plain.Metadata.CurrentSchema()); err != nil || opts.SortOrder != nil {
		t.Errorf("unsorted table: sort order %+v, %v; want none", opts.SortOrder, err)
	}
}

// Without a sort order (none, or the unsorted order 0) the writer takes
// its unsorted path: the same rows give the same bytes, and no
// sort_order_id.
func TestUnsortedWritesUnchanged(t *testing.T) {
	schema := sortSchema()
	rows := sortRowsInput(3, 2000)
	write := func(order *iceberg.SortOrder) ([]byte, manifest.DataFile) {
		opts := DefaultOptions()
		opts.FilePrefix = "fixed"
		opts.SortOrder = order
		w := sortedWriter(t, t.TempDir(), nil, opts)
		files := writeRecords(t, w, schema, rows, 300)
		if len(files) != 1 {
			t.Fatalf("%d files", len(files))
		}
		b, err := os.ReadFile(strings.TrimPrefix(files[0].FilePath, "file://"))
		if err != nil {
			t.Fatal(err)
		}
		return b, files[0]
	}
	none, df := write(nil)
	again, _ := write(nil)
	unsorted, df0 := write(&iceberg.SortOrder{OrderID: 0, Fields: []iceberg.SortField{}})
	if !bytes.Equal(none, again) || !bytes.Equal(none, unsorted) {
		t.Errorf("unsorted writes differ: %d, %d and %d bytes", len(none), len(again), len(unsorted))
	}
	if df.SortOrderID != nil || df0.SortOrderID != nil {
		t.Errorf("unsorted files record sort orders %v, %v", df.SortOrderID, df0.SortOrderID)
	}
	sorted, _ := write(&sortedOrders[0].order)
	if bytes.Equal(none, sorted) {
		t.Error("the sorted file has the unsorted file's bytes")
	}
}

func TestSortOrderRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		field iceberg.SortField
		kind  error
	}{
		{"missing column", sortField(99, iceberg.IdentityTransform{}, "asc", "nulls-first"), errkind.InvalidArgument},
		{"unknown transform", sortField(1, iceberg.UnknownTransform{Name: "zorder"}, "asc", "nulls-first"), errkind.Unsupported},
		{"bad transform for type", sortField(2, iceberg.DayTransform{}, "asc", "nulls-first"), errkind.InvalidArgument},
	} {
		opts := DefaultOptions()
		opts.SortOrder = &iceberg.SortOrder{OrderID: 3, Fields: []iceberg.SortField{c.field}}
		_, err := New(context.Background(), fileio.Local{}, t.TempDir(), sortSchema(), nil, opts)
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
}

// Batches whose columns hold more values than their rows (allowed: only
// the first rows count) are cut to their rows before the held batches are
// joined, so no batch's rows shift; a column with fewer values than rows
// is refused at Write.
func TestSortedWritesBatchBounds(t *testing.T) {
	schema := sortSchema()
	rows := sortRowsInput(5, 400)
	order := sortedOrders[0].order
	opts := DefaultOptions()
	opts.SortOrder = &order
	w := sortedWriter(t, t.TempDir(), nil, opts)
	var want [][]any
	for start := 0; start < len(rows); start += 100 {
		full := buildRecord(t, schema, rows[start:start+100])
		short := array.NewRecordBatch(full.Schema(), full.Columns(), 60) // 100 values, 60 rows
		full.Release()
		if err := w.Write(short); err != nil {
			t.Fatal(err)
		}
		short.Release()
		want = append(want, rows[start:start+60]...)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	checkSortedFiles(t, schema, &order, files, want)

	w = sortedWriter(t, t.TempDir(), nil, opts)
	full := buildRecord(t, schema, rows[:10])
	cols := slices.Clone(full.Columns())
	cols[2] = array.NewSlice(cols[2], 0, 5)
	bad := &shortRecord{RecordBatch: full, cols: cols}
	if err := w.Write(bad); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("a column of 5 values for 10 rows: %v", err)
	}
	cols[2].Release()
	full.Release()
	w.Abort()
}

// shortRecord is a batch whose columns the test sets, beyond what
// NewRecordBatch would accept.
type shortRecord struct {
	arrow.RecordBatch
	cols []arrow.Array
}

func (r *shortRecord) Columns() []arrow.Array   { return r.cols }
func (r *shortRecord) Column(i int) arrow.Array { return r.cols[i] }

// A FileWriter with a sort order writes its one file sorted, however many
// batches and whatever the sort buffer.
func TestFileWriterSorted(t *testing.T) {
	schema := sortSchema()
	rows := sortRowsInput(6, 2000)
	order := sortedOrders[2].order
	opts := DefaultOptions()
	opts.SortOrder, opts.SortBufferSize = &order, 1000
	path := filepath.Join(t.TempDir(), "one.parquet")
	fw, err := NewFileWriter(context.Background(), fileio.Local{}, path, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(rows); start += 250 {
		rec := buildRecord(t, schema, rows[start:start+250])
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	df, err := fw.Close()
	if err != nil {
		t.Fatal(err)
	}
	checkSortedFiles(t, schema, &order, []manifest.DataFile{df}, rows)
}
