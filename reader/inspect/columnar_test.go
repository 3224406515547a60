package inspect

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// readBoth reads a metadata table in its columnar form and again from
// its rows (each value through AppendValue), the allocator left empty
// after both.
func readBoth(t *testing.T, tbl *table.Table, kind Kind, opts Options) (cols, rows []arrow.RecordBatch) {
	t.Helper()
	read := func(columnar bool) []arrow.RecordBatch {
		src, err := openSource(tbl, kind, opts)
		if err != nil {
			t.Fatal(err)
		}
		if src.cols == nil {
			t.Fatalf("%s has no columnar form", kind)
		}
		if !columnar {
			src.cols = nil
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		t.Cleanup(func() { mem.AssertSize(t, 0) })
		rr, err := newReader(context.Background(), string(kind), src, opts, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var out []arrow.RecordBatch
		for rr.Next() {
			rec := rr.RecordBatch()
			rec.Retain()
			out = append(out, rec)
			t.Cleanup(rec.Release)
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return read(true), read(false)
}

// The columnar form of the files and entries tables gives what their rows
// give, value for value, on every table other engines wrote (all types,
// nested columns, deletes, deletion vectors, evolved partitions): whole,
// projected, filtered, limited.
func TestColumnarMatchesRows(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	filter, err := expr.ParseFilter("record_count > 1 or content = 1")
	if err != nil {
		t.Fatal(err)
	}
	entryFilter, err := expr.ParseFilter("status <> 2 and data_file.record_count > 1")
	if err != nil {
		t.Fatal(err)
	}
	rowsSeen := 0
	for _, f := range all {
		tbl := openFixture(t, f)
		for _, c := range []struct {
			kind Kind
			opts Options
		}{
			{Files, Options{}},
			{AllFiles, Options{BatchSize: 3}},
			{DeleteFiles, Options{}},
			{AllEntries, Options{}},
			{Entries, Options{Columns: []string{"readable_metrics", "status", "data_file"}}},
			{Files, Options{Columns: []string{"upper_bounds", "file_path", "readable_metrics", "split_offsets", "equality_ids"}}},
			{Files, Options{Filter: filter, Columns: []string{"content", "record_count"}}},
			{AllEntries, Options{Filter: entryFilter, Limit: 5}},
		} {
			if (c.kind == AllFiles || c.kind == AllEntries) && !historyListed(tbl) {
				continue // an expired snapshot's list is gone
			}
			cols, rows := readBoth(t, tbl, c.kind, c.opts)
			if len(cols) != len(rows) {
				t.Fatalf("%s %s %+v: %d batches in columnar form, %d from rows", f.Name, c.kind, c.opts, len(cols), len(rows))
			}
			for i := range cols {
				if !array.RecordEqual(cols[i], rows[i]) {
					t.Fatalf("%s %s %+v: batch %d differs:\ncolumnar %v\nrows %v", f.Name, c.kind, c.opts, i, cols[i], rows[i])
				}
				rowsSeen += int(cols[i].NumRows())
			}
		}
	}
	if rowsSeen < 100 {
		t.Fatalf("only %d rows compared", rowsSeen)
	}
}

// A filter's tuple holds the columns the filter reads, readable_metrics
// and the data_file struct included, even when the read does not return
// them: such a filter keeps the rows it keeps in the row form.
func TestColumnarFilterReadsUnprojectedColumns(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_delete_equality_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	schema, err := Schema(tbl, Files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rm, ok := schema.FindFieldByName("readable_metrics")
	if !ok {
		t.Fatal("no readable_metrics")
	}
	var col string
	for _, c := range rm.Type.(*iceberg.StructType).Fields {
		if !strings.Contains(c.Name, ".") {
			col = c.Name
			break
		}
	}
	for _, c := range []struct {
		kind   Kind
		filter string
		cols   []string
	}{
		{Files, "readable_metrics." + col + ".value_count >= 0", []string{"file_path"}},
		{Entries, "readable_metrics." + col + ".value_count >= 0 and data_file.record_count >= 0", []string{"status"}},
	} {
		filter, err := expr.ParseFilter(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Filter: filter, Columns: c.cols}
		cols, rows := readBoth(t, tbl, c.kind, opts)
		n := 0
		for i := range cols {
			if i >= len(rows) || !array.RecordEqual(cols[i], rows[i]) {
				t.Fatalf("%s %s: batch %d differs from the row form", c.kind, c.filter, i)
			}
			n += int(cols[i].NumRows())
		}
		if n == 0 || len(cols) != len(rows) {
			t.Fatalf("%s %s: %d rows in %d batches, %d batches from rows", c.kind, c.filter, n, len(cols), len(rows))
		}
	}
}

// Each bound decoded straight into its builder is the value the row form
// decodes (iceberg.ValueFromBytes), negative values, promoted widths and
// bounds of the wrong width (null) included.
func TestBoundAppendersDecodeAsTheRowForm(t *testing.T) {
	dec := iceberg.DecimalType{Precision: 20, Scale: 2}
	cases := []struct {
		typ  iceberg.Type
		vals []any
		raw  [][]byte // extra encodings: short, long, promoted
	}{
		{iceberg.BooleanType{}, []any{true, false}, [][]byte{{}, {1, 2}}},
		{iceberg.IntType{}, []any{int32(-7), int32(1 << 30)}, [][]byte{{1}}},
		{iceberg.DateType{}, []any{int32(-3), int32(19000)}, [][]byte{{1, 2, 3}}},
		{iceberg.LongType{}, []any{int64(-1 << 40), int64(5)}, [][]byte{{0xfe, 0xff, 0xff, 0xff}, {1}}},
		{iceberg.TimeType{}, []any{int64(3_600_000_000)}, [][]byte{{1, 2, 3, 4}}},
		{iceberg.TimestampType{}, []any{int64(-5), int64(1_700_000_000_000_000)}, [][]byte{{1, 0, 0, 0}, {1, 2}}},
		{iceberg.TimestamptzNsType{}, []any{int64(1_700_000_000_000_000_000)}, [][]byte{{0xff, 0xff, 0xff, 0xff}, {1, 2}}},
		{iceberg.FloatType{}, []any{float32(-1.5)}, [][]byte{{1, 2}}},
		{iceberg.DoubleType{}, []any{float64(-2.25), float64(1e300)}, [][]byte{{0, 0, 0xc0, 0x3f}, {1, 2}}},
		{iceberg.StringType{}, []any{"", "héllo"}, nil},
		{dec, []any{iceberg.Decimal{Hi: -1, Lo: ^uint64(99), Scale: 2}, iceberg.Decimal{Lo: 12345, Scale: 2}, iceberg.Decimal{Hi: 1 << 40, Scale: 2}},
			[][]byte{{0xff}, {0x80}, {}, make([]byte, 17)}},
		{iceberg.UUIDType{}, []any{[16]byte{1, 2, 3}}, [][]byte{{1}}},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rm := &readableMetrics{}
	for _, c := range cases {
		raws := c.raw
		for _, v := range c.vals {
			b, err := iceberg.ValueToBytes(c.typ, v)
			if err != nil {
				t.Fatal(err)
			}
			raws = append(raws, b)
		}
		at, err := arrowschema.ArrowType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		fast, slow := array.NewBuilder(mem, at), array.NewBuilder(mem, at)
		col := readableColumn{bound: c.typ, decode: true}
		app, err := rm.boundAppender(col, fast)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range raws {
			if err := app(raw); err != nil {
				t.Fatal(err)
			}
			if err := arrowschema.AppendValue(slow, c.typ, rm.bound(col, raw)); err != nil {
				t.Fatal(err)
			}
		}
		fa, sa := fast.NewArray(), slow.NewArray()
		if !array.Equal(fa, sa) {
			t.Errorf("%s: decoded %v, the row form %v", c.typ, fa, sa)
		}
		if fa.NullN() == 0 && len(c.raw) > 0 {
			t.Errorf("%s: no bound of a wrong width was null: %v", c.typ, fa)
		}
		fa.Release()
		sa.Release()
		fast.Release()
		slow.Release()
	}
}

// Two reads of one source, interleaved batch by batch, each give the
// whole table: what an appender keeps from row to row (metric pairs, the
// values held for a batch) is its read's own.
func TestColumnarReadsOfOneSourceAreIndependent(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_delete_equality_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	for _, kind := range []Kind{Files, Entries} {
		want, _ := readBoth(t, tbl, kind, Options{BatchSize: 2})
		src, err := openSource(tbl, kind, Options{BatchSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		var readers [2]*reader
		for i := range readers {
			if readers[i], err = newReader(context.Background(), string(kind), src, Options{BatchSize: 2}, mem); err != nil {
				t.Fatal(err)
			}
		}
		for b := range want {
			for i, r := range readers {
				if !r.Next() {
					t.Fatalf("%s read %d: no batch %d: %v", kind, i, b, r.Err())
				}
				if !array.RecordEqual(r.RecordBatch(), want[b]) {
					t.Fatalf("%s read %d: batch %d differs", kind, i, b)
				}
			}
		}
		for _, r := range readers {
			if r.Next() {
				t.Fatalf("%s: a batch too many", kind)
			}
			r.Release()
		}
		mem.AssertSize(t, 0)
	}
}
