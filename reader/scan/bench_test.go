package scan

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

// A lineitem-like file: 7 columns, optional as Iceberg writes them, snappy,
// several row groups. Written once per process into the temp directory.

type benchRow struct {
	OrderKey      *int64   `parquet:"l_orderkey,optional"`
	PartKey       *int64   `parquet:"l_partkey,optional"`
	ExtendedPrice *int64   `parquet:"l_extendedprice,optional,decimal(2:15)"`
	Discount      *float64 `parquet:"l_discount,optional"`
	ShipMode      *string  `parquet:"l_shipmode,optional,dict"`
	ShipDate      *int32   `parquet:"l_shipdate,optional,date"`
	Comment       *string  `parquet:"l_comment,optional"`
}

const (
	benchRows         = 1 << 20
	benchRowGroupRows = 256 << 10
)

var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
)

func benchFile(b *testing.B) string {
	benchOnce.Do(func() {
		benchPath = filepath.Join(os.TempDir(), fmt.Sprintf("floe-reader-bench-%d.parquet", benchRows))
		if _, err := os.Stat(benchPath); err == nil {
			return
		}
		benchErr = writeBenchFile(benchPath)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

func writeBenchFile(path string) error {
	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer out.Close()
	w := pq.NewGenericWriter[benchRow](out, pq.Compression(&pq.Snappy), pq.MaxRowsPerRowGroup(benchRowGroupRows))
	r := rand.New(rand.NewPCG(42, 42))
	modes := []string{"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"}
	comments := []string{"carefully", "final", "deposits", "quickly", "regular", "furiously", "ironic", "pending", "requests", "accounts", "blithely", "special"}
	batch := make([]benchRow, 0, 8192)
	for i := range benchRows {
		ok, pk := int64(i/4+1), r.Int64N(200000)
		price, disc := r.Int64N(10000000), float64(r.IntN(11))/100
		mode, date := modes[r.IntN(len(modes))], int32(8000+r.IntN(2500))
		comment := ""
		for w := range 2 + r.IntN(5) {
			if w > 0 {
				comment += " "
			}
			comment += comments[r.IntN(len(comments))]
		}
		batch = append(batch, benchRow{&ok, &pk, &price, &disc, &mode, &date, &comment})
		if len(batch) == cap(batch) {
			if _, err := w.Write(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if _, err := w.Write(batch); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// benchColumns are the leaf indexes of the 2-column case (int64 + double).
var benchTwoColumns = []string{"l_orderkey", "l_discount"}

func BenchmarkDecodeFloe(b *testing.B) {
	path := benchFile(b)
	for _, tc := range []struct {
		name      string
		cols      []string
		recycling bool
	}{{"all", nil, false}, {"two", benchTwoColumns, false}, {"all-recycling", nil, true}, {"two-recycling", benchTwoColumns, true}} {
		b.Run(tc.name, func(b *testing.B) {
			fh, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer fh.Close()
			st, _ := fh.Stat()
			malloc := mallocator.NewMallocator()
			var mem memory.Allocator = malloc
			if tc.recycling {
				rec := parquet.NewRecyclingAllocator(malloc, 0)
				defer rec.Release()
				mem = rec
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				f, err := parquet.OpenFile(fh, st.Size(), nil)
				if err != nil {
					b.Fatal(err)
				}
				var cols []parquet.Column
				for _, n := range f.Root.Children {
					if tc.cols == nil || n.Name == tc.cols[0] || n.Name == tc.cols[1] {
						cols = append(cols, parquet.Column{Node: n})
					}
				}
				rows := 0
				for rg := range f.RowGroups {
					br, err := f.NewBatchReader(parquet.ReadRequest{Columns: cols, RowGroup: rg, Allocator: mem})
					if err != nil {
						b.Fatal(err)
					}
					for {
						batch, err := br.Next()
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						rows += batch.NumRows
						batch.Release()
					}
					br.Close()
				}
				if rows != benchRows {
					b.Fatalf("read %d rows", rows)
				}
			}
			if rec, ok := mem.(*parquet.RecyclingAllocator); ok {
				rec.Release()
			}
			if malloc.AllocatedBytes() != 0 {
				b.Fatalf("%d bytes of output not freed", malloc.AllocatedBytes())
			}
		})
	}
}

func BenchmarkDecodePqarrow(b *testing.B) {
	path := benchFile(b)
	for _, tc := range []struct {
		name string
		cols []string
	}{{"all", nil}, {"two", benchTwoColumns}} {
		for _, mode := range []string{"ReadTable", "RecordReader"} {
			b.Run(tc.name+"/"+mode, func(b *testing.B) {
				st, _ := os.Stat(path)
				b.SetBytes(st.Size())
				b.ReportAllocs()
				for b.Loop() {
					pf, err := file.OpenParquetFile(path, false)
					if err != nil {
						b.Fatal(err)
					}
					fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 65536}, memory.DefaultAllocator)
					if err != nil {
						b.Fatal(err)
					}
					var colIdx []int
					if tc.cols != nil {
						sc, _ := fr.Schema()
						for _, name := range tc.cols {
							colIdx = append(colIdx, sc.FieldIndices(name)[0])
						}
					}
					rows := 0
					if mode == "ReadTable" {
						var tbl arrow.Table
						if colIdx == nil {
							tbl, err = fr.ReadTable(context.Background())
						} else {
							tbl, err = fr.ReadRowGroups(context.Background(), colIdx, allRowGroups(pf.NumRowGroups()))
						}
						if err != nil {
							b.Fatal(err)
						}
						rows = int(tbl.NumRows())
						tbl.Release()
					} else {
						rr, err := fr.GetRecordReader(context.Background(), colIdx, nil)
						if err != nil {
							b.Fatal(err)
						}
						for rr.Next() {
							rows += int(rr.RecordBatch().NumRows())
						}
						if err := rr.Err(); err != nil {
							b.Fatal(err)
						}
						rr.Release()
					}
					pf.Close()
					if rows != benchRows {
						b.Fatalf("read %d rows", rows)
					}
				}
			})
		}
	}
}

func allRowGroups(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
