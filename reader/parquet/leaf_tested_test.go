package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/kernels"
	"github.com/parquet-go/parquet-go"
)

// NextTested (the column's test evaluated once per dictionary entry, rows
// deciding by their index) must keep exactly the rows that decoding the
// window, cutting it to the selection and testing the values keep, and
// return the same values for them: on every fixture file, on a generated
// file of every encoding, and on files whose chunks fall back from a
// dictionary to PLAIN pages part way (arrow-go's writer once the
// dictionary outgrows its limit), with nulls, NaNs and decimals at the
// edges of int32 and int64.

// hashTest passes a value by a hash of its text: a test of the value
// alone, as a filter is, that keeps about two thirds of the distinct
// values whatever the type.
func hashTest(salt uint32) ValueTest {
	return func(values arrow.Array, pass []byte) error {
		for i := range values.Len() {
			if values.IsNull(i) {
				continue
			}
			h := fnv.New32a()
			fmt.Fprint(h, values.ValueStr(i))
			if (h.Sum32()^salt)%3 != 0 {
				pass[i>>3] |= 1 << (i & 7)
			}
		}
		return nil
	}
}

func TestNextTestedMatchesDecodeThenTest(t *testing.T) {
	for _, path := range fixtureParquetFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(fixtures.Path(), path)
		for _, batchSize := range []int{0, 333} {
			t.Run(fmt.Sprintf("%s/%d", rel, batchSize), func(t *testing.T) {
				compareTestedReads(t, data, batchSize)
			})
		}
	}
}

func TestNextTestedOnEveryEncoding(t *testing.T) {
	specs := primitiveSpecs()
	for _, version := range []int{1, 2} {
		data := writeSpecs(t, specs, 2500, uint64(version), parquet.DataPageVersion(version),
			parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(2048), parquet.MaxRowsPerRowGroup(1100))
		for _, batchSize := range []int{0, 333} {
			t.Run(fmt.Sprintf("v%d/%d", version, batchSize), func(t *testing.T) {
				compareTestedReads(t, data, batchSize)
			})
		}
	}
}

func TestNextTestedOnDictionaryFallback(t *testing.T) {
	for _, version := range []pq.DataPageVersion{pq.DataPageV1, pq.DataPageV2} {
		data := writeFallbackFile(t, version)
		f := openBytes(t, data)
		if !hasPlainAfterDictionary(t, f) {
			t.Fatal("the file has no chunk falling back from a dictionary to plain pages")
		}
		for _, batchSize := range []int{0, 333, 4096} {
			t.Run(fmt.Sprintf("v%d/%d", version+1, batchSize), func(t *testing.T) {
				compareTestedReads(t, data, batchSize)
			})
		}
	}
}

// writeFallbackFile writes, with arrow-go and a small dictionary limit,
// columns whose few values early on fit a dictionary and whose many later
// ones do not.
func writeFallbackFile(t *testing.T, version pq.DataPageVersion) []byte {
	const rows = 6000
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "d18", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	r := rand.New(rand.NewPCG(uint64(version), 3))
	i32Edges := []int64{math.MaxInt32, math.MinInt32 + 1, 999_999_999, -999_999_999, 0, 1, -1}
	i64Edges := []int64{math.MaxInt64, math.MinInt64 + 1, 999_999_999_999_999_999, -999_999_999_999_999_999, 0, 5, 7}
	for i := range rows {
		// few distinct values in the first third, then many
		spread := 8
		if i > rows/3 {
			spread = 1 << 30
		}
		null := r.IntN(9) == 0
		pick := func() int { return r.IntN(spread) }
		if null {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("v%d", pick()))
		}
		if null {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(int64(pick()) - 4)
		}
		switch {
		case r.IntN(7) == 0:
			b.Field(2).(*array.Float64Builder).Append(math.NaN())
		case null:
			b.Field(2).AppendNull()
		default:
			b.Field(2).(*array.Float64Builder).Append(float64(pick()) / 4)
		}
		d9 := int64(pick()) % 1_000_000_000
		if r.IntN(4) == 0 {
			d9 = i32Edges[r.IntN(len(i32Edges))] % 1_000_000_000
		}
		if null {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(d9))
		}
		d18 := int64(pick())
		if r.IntN(4) == 0 {
			d18 = i64Edges[r.IntN(len(i64Edges))] % 1_000_000_000_000_000_000
		}
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(d18))
		if null {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.BooleanBuilder).Append(r.IntN(3) == 0)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := pq.NewWriterProperties(pq.WithDictionaryDefault(true), pq.WithDictionaryPageSizeLimit(256),
		pq.WithDataPageSize(512), pq.WithMaxRowGroupLength(2500), pq.WithDataPageVersion(version),
		pq.WithStoreDecimalAsInteger(true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hasPlainAfterDictionary reports whether a chunk of f holds both
// dictionary-encoded and PLAIN data pages.
func hasPlainAfterDictionary(t *testing.T, f *File) bool {
	for rg := range f.RowGroups {
		for _, n := range f.Root.Children {
			br, err := f.NewBatchReader(ReadRequest{Columns: []Column{{Node: n}}, RowGroup: rg})
			if err != nil {
				t.Fatal(err)
			}
			l := br.Leaves[0]
			dict, plain := false, false
			for {
				h, _, err := l.nextDataPage()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				dict = dict || h.Encoding == EncRLEDictionary || h.Encoding == EncPlainDictionary
				plain = plain || h.Encoding == EncPlain
			}
			br.Close()
			if dict && plain {
				return true
			}
		}
	}
	return false
}

// compareTestedReads reads each column of each row group twice, window by
// window under random selections: decoded and tested, and through
// NextTested.
func compareTestedReads(t *testing.T, data []byte, batchSize int) {
	f := openBytes(t, data)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(2, uint64(batchSize)))
	patterns := []string{"all", "sparse", "half", "dense", "runs", "none", "last"}
	tested := 0
	for ci, node := range f.Root.Children {
		test := hashTest(uint32(ci))
		for rg := range f.RowGroups {
			req := ReadRequest{Columns: []Column{{Node: node}}, RowGroup: rg, Allocator: mem, BatchSize: batchSize}
			whole, err := f.NewBatchReader(req)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := f.NewBatchReader(req)
			if err != nil {
				t.Fatal(err)
			}
			if !tr.SetTest(test) {
				whole.Close()
				tr.Close()
				break
			}
			tested++
			for w := 0; ; w++ {
				b, err := whole.Next()
				if errors.Is(err, io.EOF) {
					if _, err := tr.NextTested(nil, nil, false); !errors.Is(err, io.EOF) {
						t.Fatalf("tested reader goes on after the last window: %v", err)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n := b.NumRows
				keep := make([]byte, (n+7)/8)
				name := patterns[rng.IntN(len(patterns))]
				var kept int
				if name == "all" {
					setBits(keep, 0, n)
					kept = n
				} else {
					kept = selectionPatterns[name](rng, keep, n)
				}
				what := fmt.Sprintf("%s row group %d window %d (%s, %d of %d)", node.Name, rg, w, name, kept, n)
				if kept == 0 {
					if _, err := tr.Skip(); err != nil {
						t.Fatal(err)
					}
					b.Release()
					continue
				}
				var sel *RowSelection
				if kept < n || rng.IntN(2) == 0 {
					sel = &RowSelection{}
					if err := sel.Set(keep, n); err != nil {
						t.Fatal(err)
					}
				}
				values := w%2 == 0
				pass := make([]byte, (kept+7)/8+1)
				pass[len(pass)-1] = 0xa5 // must be cleared only as far as kept
				got, err := tr.NextTested(sel, pass, values)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				cut, err := kernels.Filter(b.Columns[0], keep, mem)
				if err != nil {
					t.Fatal(err)
				}
				b.Release()
				wantPass := make([]byte, (kept+7)/8)
				if err := test(cut, wantPass); err != nil {
					t.Fatal(err)
				}
				for j := range kept {
					if g, w := pass[j>>3]>>(j&7)&1, wantPass[j>>3]>>(j&7)&1; g != w {
						t.Fatalf("%s: kept row %d passes %d, decoded and tested %d (value %s)", what, j, g, w, cut.ValueStr(j))
					}
				}
				if pass[len(pass)-1] != 0xa5 {
					t.Fatalf("%s: NextTested wrote past its bitmap", what)
				}
				if values {
					want, err := kernels.Filter(cut, wantPass, mem)
					if err != nil {
						t.Fatal(err)
					}
					if got == nil {
						t.Fatalf("%s: no values returned", what)
					}
					// NaN equal to NaN: the values are compared, not SQL's verdict
					if !array.ApproxEqual(want, got, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
						t.Fatalf("%s: values differ:\nwant %v\ngot  %v", what, want, got)
					}
					want.Release()
					got.Release()
				} else if got != nil {
					t.Fatalf("%s: values returned unasked", what)
				}
				cut.Release()
			}
			whole.Close()
			tr.Close()
		}
	}
	if tested == 0 {
		t.Log("no column of the file can be tested")
	}
}
