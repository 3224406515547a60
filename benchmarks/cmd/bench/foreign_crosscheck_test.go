package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// The files DuckDB writes for the foreign section, read through floe's
// Iceberg scan (the fast paths the section measures: decimals widened
// from INT64, dictionary and plain strings, dates) agree value by value
// with arrow-go's pqarrow, an independent Parquet reader.
func TestForeignMatchesPqarrow(t *testing.T) {
	for _, codec := range []string{"zstd", "snappy"} {
		ft, err := writeForeign(t.TempDir(), codec, 30_000, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := floeColumns(t, ft.MetadataPath, scan.Options{})
		want := pqarrowColumns(t, ft.Files[0])
		if len(got) != len(want) || len(got) != len(foreignSchema().Fields) {
			t.Fatalf("%s: floe gave %d columns, pqarrow %d", codec, len(got), len(want))
		}
		for i := range got {
			name := foreignSchema().Fields[i].Name
			if !arrow.TypeEqual(got[i].DataType(), want[i].DataType()) {
				t.Errorf("%s %s: floe type %s, pqarrow %s", codec, name, got[i].DataType(), want[i].DataType())
				continue
			}
			if got[i].Len() != 30_000 || !array.Equal(got[i], want[i]) {
				t.Errorf("%s %s: floe's %d values differ from pqarrow's %d", codec, name, got[i].Len(), want[i].Len())
			}
		}
	}
}

// The same files filtered: the rows floe's filtered scan returns (filters
// read on DuckDB's dictionaries: strings, decimals stored as INT64,
// dates; literals with more scale than the column) are pqarrow's rows
// that the same filter, evaluated here in Go on the values, keeps.
func TestForeignFiltersMatchPqarrow(t *testing.T) {
	const (
		quantity, price, discount, tax = 4, 5, 6, 7
		returnflag, linestatus         = 8, 9
		shipdate, shipinstruct, mode   = 10, 13, 14
	)
	day := func(y, m, d int) int32 {
		return int32(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	}
	for _, codec := range []string{"zstd", "snappy"} {
		ft, err := writeForeign(t.TempDir(), codec, 30_000, 1)
		if err != nil {
			t.Fatal(err)
		}
		cols := pqarrowColumns(t, ft.Files[0])
		dec := func(c, i int) int64 { return int64(cols[c].(*array.Decimal128).Value(i).LowBits()) }
		str := func(c, i int) string { return cols[c].(*array.String).Value(i) }
		date := func(c, i int) int32 { return int32(cols[c].(*array.Date32).Value(i)) }
		for _, f := range []struct {
			text string
			keep func(i int) bool
		}{
			{"l_shipmode = 'AIR'", func(i int) bool { return str(mode, i) == "AIR" }},
			{"l_shipdate >= '1994-01-01' and l_shipdate < '1995-01-01' and l_discount >= 0.05 and l_discount <= 0.07 and l_quantity < 24",
				func(i int) bool {
					d := date(shipdate, i)
					return d >= day(1994, 1, 1) && d < day(1995, 1, 1) && dec(discount, i) >= 5 && dec(discount, i) <= 7 && dec(quantity, i) < 2400
				}},
			{"l_discount < 0.065", func(i int) bool { return dec(discount, i) <= 6 }},
			{"l_discount >= 0.065 and l_tax <= 0.02", func(i int) bool { return dec(discount, i) >= 7 && dec(tax, i) <= 2 }},
			{"l_discount = 0.065 or l_tax > 0.085", func(i int) bool { return dec(tax, i) >= 9 }},
			{"l_shipmode in ('AIR', 'MAIL') or l_returnflag = 'R'", func(i int) bool {
				return str(mode, i) == "AIR" || str(mode, i) == "MAIL" || str(returnflag, i) == "R"
			}},
			{"l_shipmode not in ('AIR') and l_quantity > 49.5", func(i int) bool { return str(mode, i) != "AIR" && dec(quantity, i) >= 5000 }},
			{"l_shipinstruct like 'DELIVER%' and not (l_linestatus = 'O')", func(i int) bool {
				return strings.HasPrefix(str(shipinstruct, i), "DELIVER") && str(linestatus, i) != "O"
			}},
			{"l_shipdate < '1992-06-01' or l_shipdate >= '1998-06-01'", func(i int) bool {
				return date(shipdate, i) < day(1992, 6, 1) || date(shipdate, i) >= day(1998, 6, 1)
			}},
			{"l_extendedprice < 1000 and l_quantity != 1", func(i int) bool { return dec(price, i) < 100000 && dec(quantity, i) != 100 }},
			{"l_quantity = 0.5", func(int) bool { return false }},
		} {
			filter, err := expr.ParseFilter(f.text)
			if err != nil {
				t.Fatal(err)
			}
			got := floeColumns(t, ft.MetadataPath, scan.Options{Filter: filter})
			keep := make([]byte, (30_000+7)/8)
			kept := 0
			for i := range 30_000 {
				if f.keep(i) {
					keep[i>>3] |= 1 << (i & 7)
					kept++
				}
			}
			for c, want := range cols {
				name := foreignSchema().Fields[c].Name
				w, err := compute.FilterArray(context.Background(), want, booleanOf(keep, 30_000), *compute.DefaultFilterOptions())
				if err != nil {
					t.Fatal(err)
				}
				if len(got) == 0 && kept == 0 {
					w.Release()
					break
				}
				if c >= len(got) || !array.Equal(got[c], w) {
					n := 0
					if c < len(got) {
						n = got[c].Len()
					}
					t.Errorf("%s %q %s: floe returned %d rows, pqarrow with the filter in Go %d", codec, f.text, name, n, w.Len())
				}
				w.Release()
			}
			for _, g := range got {
				g.Release()
			}
		}
		for _, c := range cols {
			c.Release()
		}
	}
}

// booleanOf is an Arrow boolean array of the first n bits of bits.
func booleanOf(bits []byte, n int) arrow.Array {
	return array.NewBoolean(n, memory.NewBufferBytes(bits), nil, 0)
}

func floeColumns(t *testing.T, metadata string, opts scan.Options) []arrow.Array {
	var chunks [][]arrow.Array
	floeRead(t, metadata, opts, func(rec arrow.RecordBatch) {
		for i, col := range rec.Columns() {
			if i == len(chunks) {
				chunks = append(chunks, nil)
			}
			col.Retain()
			chunks[i] = append(chunks[i], col)
		}
	})
	return concatenated(t, chunks)
}

// floeRead reads every batch of floe's scan of the table at metadata,
// handing each to each, and returns the scan (its tasks and metrics).
func floeRead(t *testing.T, metadata string, opts scan.Options, each func(arrow.RecordBatch)) *scan.Scan {
	ctx := context.Background()
	tbl, err := table.Open(ctx, metadata, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
		each(rr.RecordBatch())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return sc
}

func pqarrowColumns(t *testing.T, path string) []arrow.Array {
	pf, err := file.OpenParquetFile(path, false, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	chunks := make([][]arrow.Array, tbl.NumCols())
	for i := range chunks {
		for _, c := range tbl.Column(i).Data().Chunks() {
			c.Retain()
			chunks[i] = append(chunks[i], c)
		}
	}
	return concatenated(t, chunks)
}

func concatenated(t *testing.T, chunks [][]arrow.Array) []arrow.Array {
	out := make([]arrow.Array, len(chunks))
	for i, cs := range chunks {
		a, err := array.Concatenate(cs, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			c.Release()
		}
		out[i] = a
	}
	return out
}

// One file DuckDB wrote in several row groups, read at two threads: the
// scan cuts it into ranges along its row groups (scan_spread.go), the
// ranges parse its footer once between them (the file is read as often
// as at one thread), and the values are pqarrow's.
func TestForeignSpreadRangesMatchPqarrow(t *testing.T) {
	const rows = 327_680
	ft, err := writeForeignShape(t.TempDir(), "zstd", foreignShape{Rows: rows, Files: 1, RowGroupRows: 20_480})
	if err != nil {
		t.Fatal(err)
	}
	requests := func(threads int) (tasks int, n int64) {
		sc := floeRead(t, ft.MetadataPath, scan.Options{Threads: threads}, func(arrow.RecordBatch) {})
		return len(sc.Tasks()), sc.Metrics().Requests
	}
	oneTasks, oneReads := requests(1)
	twoTasks, twoReads := requests(2)
	if oneTasks != 1 || twoTasks < 2 {
		t.Fatalf("%d tasks at one thread and %d at two; want the file whole, then cut", oneTasks, twoTasks)
	}
	if twoReads != oneReads {
		t.Errorf("two threads read the file %d times, one thread %d", twoReads, oneReads)
	}
	got := floeColumns(t, ft.MetadataPath, scan.Options{Threads: 2})
	want := pqarrowColumns(t, ft.Files[0])
	if len(got) != len(want) {
		t.Fatalf("floe gave %d columns, pqarrow %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Len() != rows || !array.Equal(got[i], want[i]) {
			t.Errorf("%s: floe's %d values differ from pqarrow's %d", foreignSchema().Fields[i].Name, got[i].Len(), want[i].Len())
		}
	}
}
