package interop

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/writer"
)

// Parquet files written by floe's writer, read back by DuckDB
// (read_parquet) and by arrow-go's pqarrow, every value compared with the
// rows written: types beyond the interop table's (timestamps with and
// without zone, floats with NaN, wide decimals, binary, lists with null
// elements, empty and null lists), each optional column holding nulls.

const wideScale = 10

func writerFilesSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}},
		{ID: 3, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 4, Name: "tstz", Type: iceberg.TimestamptzType{}},
		{ID: 5, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 6, Name: "f", Type: iceberg.FloatType{}},
		{ID: 7, Name: "b", Type: iceberg.BooleanType{}},
		{ID: 8, Name: "dec", Type: iceberg.DecimalType{Precision: 38, Scale: wideScale}},
		{ID: 9, Name: "bin", Type: iceberg.BinaryType{}},
		{ID: 10, Name: "tags", Type: &iceberg.ListType{ElementID: 12, Element: iceberg.StringType{}}},
		{ID: 11, Name: "nums", Type: &iceberg.ListType{ElementID: 13, Element: iceberg.LongType{}, ElementRequired: true}},
	})
}

// filesRow is one row; nil is null, and a nil tags or nums slice with
// its null flag unset is an empty list.
type filesRow struct {
	id       int64
	name     *string
	ts, tstz *int64 // µs since the epoch
	d        *float64
	f        *float32
	b        *bool
	dec      *decimal128.Num
	bin      []byte // nil: null
	tags     []*string
	tagsNull bool
	nums     []int64
	numsNull bool
}

func makeFilesRows(seed uint64, n int) []filesRow {
	r := rand.New(rand.NewPCG(seed, 7))
	rows := make([]filesRow, n)
	null := func() bool { return r.IntN(9) == 0 }
	for i := range rows {
		x := &rows[i]
		x.id = int64(i)
		if !null() {
			x.name = ptr(fmt.Sprintf("name-%d-%s", r.IntN(500), strings.Repeat("é", r.IntN(3))))
		}
		if !null() {
			// Both sides of the epoch, to the microsecond.
			x.ts = ptr(r.Int64N(4e15) - 1e15)
		}
		if !null() {
			x.tstz = ptr(r.Int64N(4e15) - 1e15)
		}
		if !null() {
			v := r.NormFloat64() * 1e6
			switch r.IntN(40) {
			case 0:
				v = math.NaN()
			case 1:
				v = math.Inf(-1)
			case 2:
				v = math.Copysign(0, -1)
			}
			x.d = &v
		}
		if !null() {
			v := float32(r.NormFloat64())
			if r.IntN(40) == 0 {
				v = float32(math.NaN())
			}
			x.f = &v
		}
		if !null() {
			x.b = ptr(r.IntN(2) == 0)
		}
		if !null() {
			// Up to 37 digits, negative too: wider than 64 bits.
			hi := r.Int64N(1 << 59)
			v := decimal128.New(hi, r.Uint64())
			if r.IntN(2) == 0 {
				v = v.Negate()
			}
			if r.IntN(5) == 0 {
				v = decimal128.FromI64(r.Int64N(2000) - 1000)
			}
			x.dec = &v
		}
		if !null() {
			x.bin = make([]byte, r.IntN(6))
			for k := range x.bin {
				x.bin[k] = byte(r.IntN(256))
			}
		}
		switch {
		case null():
			x.tagsNull = true
		default:
			for range r.IntN(4) {
				if r.IntN(5) == 0 {
					x.tags = append(x.tags, nil)
				} else {
					x.tags = append(x.tags, ptr(fmt.Sprintf("t%d", r.IntN(20))))
				}
			}
		}
		switch {
		case null():
			x.numsNull = true
		default:
			for range r.IntN(5) {
				x.nums = append(x.nums, r.Int64N(1e12)-5e11)
			}
		}
	}
	return rows
}

func filesBatch(t *testing.T, schema *arrow.Schema, rows []filesRow) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, x := range rows {
		b.Field(0).(*array.Int64Builder).Append(x.id)
		appendOpt(b.Field(1).(*array.StringBuilder), x.name, func(v string) string { return v })
		appendOpt(b.Field(2).(*array.TimestampBuilder), x.ts, func(v int64) arrow.Timestamp { return arrow.Timestamp(v) })
		appendOpt(b.Field(3).(*array.TimestampBuilder), x.tstz, func(v int64) arrow.Timestamp { return arrow.Timestamp(v) })
		appendOpt(b.Field(4).(*array.Float64Builder), x.d, func(v float64) float64 { return v })
		appendOpt(b.Field(5).(*array.Float32Builder), x.f, func(v float32) float32 { return v })
		appendOpt(b.Field(6).(*array.BooleanBuilder), x.b, func(v bool) bool { return v })
		appendOpt(b.Field(7).(*array.Decimal128Builder), x.dec, func(v decimal128.Num) decimal128.Num { return v })
		if bb := b.Field(8).(*array.BinaryBuilder); x.bin == nil {
			bb.AppendNull()
		} else {
			bb.Append(x.bin)
		}
		lb := b.Field(9).(*array.ListBuilder)
		if x.tagsNull {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for _, s := range x.tags {
				appendOpt(lb.ValueBuilder().(*array.StringBuilder), s, func(v string) string { return v })
			}
		}
		nb := b.Field(10).(*array.ListBuilder)
		if x.numsNull {
			nb.AppendNull()
		} else {
			nb.Append(true)
			nb.ValueBuilder().(*array.Int64Builder).AppendValues(x.nums, nil)
		}
	}
	return b.NewRecordBatch()
}

// writeFilesRows writes rows with floe's writer (several batches, small
// row groups and pages so several of each are read back) into one file.
func writeFilesRows(t *testing.T, dir, codec string, rows []filesRow) string {
	t.Helper()
	schema := writerFilesSchema()
	as, err := arrowschema.ArrowSchema(schema.Fields)
	if err != nil {
		t.Fatal(err)
	}
	opts := writer.DefaultOptions()
	opts.Codec = codec
	opts.RowGroupSize = 256 << 10
	opts.PageRowLimit = 1000
	w, err := writer.New(context.Background(), fileio.Local{}, filepath.ToSlash(dir), schema, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(rows); start += 3000 {
		rec := filesBatch(t, as, rows[start:min(start+3000, len(rows))])
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].RecordCount != int64(len(rows)) {
		t.Fatalf("%d files, first of %d rows", len(files), files[0].RecordCount)
	}
	return files[0].FilePath
}

// decimalText is v at scale wideScale as DuckDB prints a DECIMAL.
func decimalText(v decimal128.Num) string {
	s := v.BigInt().String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s) <= wideScale {
		s = strings.Repeat("0", wideScale-len(s)+1) + s
	}
	s = s[:len(s)-wideScale] + "." + s[len(s)-wideScale:]
	if neg {
		s = "-" + s
	}
	return s
}

// sameFloat is equality with every NaN equal and -0 apart from +0.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

func TestWriterFilesReadByDuckDBAndPqarrow(t *testing.T) {
	rows := makeFilesRows(3, 20_000)
	for _, codec := range []string{"zstd", "snappy"} {
		t.Run(codec, func(t *testing.T) {
			path := writeFilesRows(t, t.TempDir(), codec, rows)
			checkDuckDBReads(t, path, rows)
			checkPqarrowReads(t, path, rows)
		})
	}
}

func checkDuckDBReads(t *testing.T, path string, rows []filesRow) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	from := "read_parquet('" + strings.ReplaceAll(path, "'", "''") + "')"
	// The types DuckDB gives the columns: the logical types floe wrote.
	wantTypes := []string{"BIGINT", "VARCHAR", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "DOUBLE", "FLOAT", "BOOLEAN", "DECIMAL(38,10)", "BLOB", "VARCHAR[]", "BIGINT[]"}
	trows, err := db.Query("SELECT column_type FROM (DESCRIBE SELECT * FROM " + from + ")")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for trows.Next() {
		var s string
		if err := trows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		types = append(types, s)
	}
	trows.Close()
	if strings.Join(types, "|") != strings.Join(wantTypes, "|") {
		t.Errorf("DuckDB's types %v, want %v", types, wantTypes)
	}
	q := `SELECT id, name, epoch_us(ts), epoch_us(tstz), d, f, b, dec::VARCHAR, hex(bin), tags, nums,
		tags IS NULL, nums IS NULL FROM ` + from + ` ORDER BY id`
	res, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	n := 0
	bad := 0
	for res.Next() {
		var (
			id                 int64
			name, dec, bin     sql.NullString
			ts, tstz           sql.NullInt64
			d                  sql.NullFloat64
			f                  any // a float32: database/sql would widen it through its decimal text
			b                  sql.NullBool
			tags, nums         any
			tagsNull, numsNull bool
		)
		if err := res.Scan(&id, &name, &ts, &tstz, &d, &f, &b, &dec, &bin, &tags, &nums, &tagsNull, &numsNull); err != nil {
			t.Fatal(err)
		}
		if id != int64(n) {
			t.Fatalf("row %d has id %d", n, id)
		}
		want := rows[n]
		n++
		var diffs []string
		check := func(what string, ok bool) {
			if !ok {
				diffs = append(diffs, what)
			}
		}
		check("name", name.Valid == (want.name != nil) && (want.name == nil || name.String == *want.name))
		check("ts", ts.Valid == (want.ts != nil) && (want.ts == nil || ts.Int64 == *want.ts))
		check("tstz", tstz.Valid == (want.tstz != nil) && (want.tstz == nil || tstz.Int64 == *want.tstz))
		check("d", d.Valid == (want.d != nil) && (want.d == nil || sameFloat(d.Float64, *want.d)))
		f32, isFloat := f.(float32)
		check("f", (f != nil) == (want.f != nil) && (want.f == nil || isFloat && sameFloat(float64(f32), float64(*want.f))))
		check("b", b.Valid == (want.b != nil) && (want.b == nil || b.Bool == *want.b))
		check("dec", dec.Valid == (want.dec != nil) && (want.dec == nil || dec.String == decimalText(*want.dec)))
		check("bin", bin.Valid == (want.bin != nil) && (want.bin == nil || bin.String == fmt.Sprintf("%X", want.bin)))
		check("tags", tagsNull == want.tagsNull && fmt.Sprint(duckList(tags)) == fmt.Sprint(wantTags(want.tags)))
		check("nums", numsNull == want.numsNull && fmt.Sprint(duckList(nums)) == fmt.Sprint(wantNums(want.nums)))
		if len(diffs) > 0 {
			if bad++; bad <= 5 {
				t.Errorf("row %d: DuckDB reads %v differently: name %v ts %v tstz %v d %v f %v b %v dec %v bin %v tags %v nums %v",
					id, diffs, name, ts, tstz, d, f, b, dec, bin, tags, nums)
			}
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(rows) || bad > 0 {
		t.Fatalf("DuckDB read %d rows of %d, %d differ", n, len(rows), bad)
	}
}

// duckList is a list DuckDB returned as strings, nil for null elements.
func duckList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, e := range l {
		if e == nil {
			out[i] = "<null>"
		} else {
			out[i] = fmt.Sprint(e)
		}
	}
	return out
}

func wantTags(tags []*string) []string {
	out := make([]string, len(tags))
	for i, s := range tags {
		if s == nil {
			out[i] = "<null>"
		} else {
			out[i] = *s
		}
	}
	return out
}

func wantNums(nums []int64) []string {
	out := make([]string, len(nums))
	for i, v := range nums {
		out[i] = fmt.Sprint(v)
	}
	return out
}

// checkPqarrowReads reads the file with pqarrow and compares every value
// with the rows, through the same typed accessors the rows were built
// with.
func checkPqarrowReads(t *testing.T, path string, rows []filesRow) {
	pr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if pr.NumRowGroups() < 2 {
		t.Errorf("%d row groups: the test wants several", pr.NumRowGroups())
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n, bad := 0, 0
	for rr.Next() {
		rec := rr.RecordBatch()
		cols := rec.Columns()
		for i := 0; i < int(rec.NumRows()); i++ {
			want := rows[n]
			n++
			var diffs []string
			check := func(what string, ok bool) {
				if !ok {
					diffs = append(diffs, what)
				}
			}
			valid := func(c int, v bool) bool { return cols[c].IsValid(i) == v }
			check("id", cols[0].(*array.Int64).Value(i) == want.id)
			check("name", valid(1, want.name != nil) && (want.name == nil || cols[1].(*array.String).Value(i) == *want.name))
			check("ts", valid(2, want.ts != nil) && (want.ts == nil || int64(cols[2].(*array.Timestamp).Value(i)) == *want.ts))
			check("tstz", valid(3, want.tstz != nil) && (want.tstz == nil || int64(cols[3].(*array.Timestamp).Value(i)) == *want.tstz))
			check("d", valid(4, want.d != nil) && (want.d == nil || sameFloat(cols[4].(*array.Float64).Value(i), *want.d)))
			check("f", valid(5, want.f != nil) && (want.f == nil || sameFloat(float64(cols[5].(*array.Float32).Value(i)), float64(*want.f))))
			check("b", valid(6, want.b != nil) && (want.b == nil || cols[6].(*array.Boolean).Value(i) == *want.b))
			check("dec", valid(7, want.dec != nil) && (want.dec == nil || cols[7].(*array.Decimal128).Value(i) == *want.dec))
			check("bin", valid(8, want.bin != nil) && (want.bin == nil || string(cols[8].(*array.Binary).Value(i)) == string(want.bin)))
			check("tags", valid(9, !want.tagsNull) && fmt.Sprint(arrowList(cols[9].(*array.List), i)) == fmt.Sprint(wantTags(want.tags)))
			check("nums", valid(10, !want.numsNull) && fmt.Sprint(arrowList(cols[10].(*array.List), i)) == fmt.Sprint(wantNums(want.nums)))
			if len(diffs) > 0 {
				if bad++; bad <= 5 {
					t.Errorf("row %d: pqarrow reads %v differently", want.id, diffs)
				}
			}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(rows) || bad > 0 {
		t.Fatalf("pqarrow read %d rows of %d, %d differ", n, len(rows), bad)
	}
	// pqarrow's types are the Iceberg ↔ Arrow mapping's.
	for i, f := range rr.Schema().Fields() {
		want, _ := arrowschema.ArrowField(writerFilesSchema().Fields[i])
		if !arrow.TypeEqual(f.Type, want.Type) && f.Type.ID() != arrow.LIST {
			t.Errorf("pqarrow reads %s as %s, want %s", f.Name, f.Type, want.Type)
		}
	}
}

// arrowList is list value i as strings, "<null>" for null elements.
func arrowList(l *array.List, i int) []string {
	if l.IsNull(i) {
		return nil
	}
	lo, hi := l.ValueOffsets(i)
	vals := l.ListValues()
	out := make([]string, 0, hi-lo)
	for k := lo; k < hi; k++ {
		if vals.IsNull(int(k)) {
			out = append(out, "<null>")
			continue
		}
		switch v := vals.(type) {
		case *array.String:
			out = append(out, v.Value(int(k)))
		case *array.Int64:
			out = append(out, fmt.Sprint(v.Value(int(k))))
		}
	}
	return out
}
