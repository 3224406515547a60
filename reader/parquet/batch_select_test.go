package parquet

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/kernels"
	"github.com/parquet-go/parquet-go"
)

// selectionPattern fills keep with n bits and returns how many are set.
type selectionPattern func(rng *rand.Rand, keep []byte, n int) int

var selectionPatterns = map[string]selectionPattern{
	"sparse": func(rng *rand.Rand, keep []byte, n int) int { return fillRandom(rng, keep, n, 0.01) },
	"half":   func(rng *rand.Rand, keep []byte, n int) int { return fillRandom(rng, keep, n, 0.5) },
	"dense":  func(rng *rand.Rand, keep []byte, n int) int { return fillRandom(rng, keep, n, 0.97) },
	"tenth":  func(rng *rand.Rand, keep []byte, n int) int { return fillRandom(rng, keep, n, 0.9) },
	"runs": func(rng *rand.Rand, keep []byte, n int) int {
		clear(keep)
		kept := 0
		for i := 0; i < n; {
			run := 1 + rng.IntN(300)
			on := rng.IntN(2) == 0
			for j := i; j < min(n, i+run); j++ {
				if on {
					keep[j>>3] |= 1 << (j & 7)
					kept++
				}
			}
			i += run
		}
		return kept
	},
	"none": func(rng *rand.Rand, keep []byte, n int) int { clear(keep); return 0 },
	"last": func(rng *rand.Rand, keep []byte, n int) int {
		clear(keep)
		keep[(n-1)>>3] |= 1 << ((n - 1) & 7)
		return 1
	},
}

func fillRandom(rng *rand.Rand, keep []byte, n int, p float64) int {
	clear(keep)
	kept := 0
	for i := range n {
		if rng.Float64() < p {
			keep[i>>3] |= 1 << (i & 7)
			kept++
		}
	}
	return kept
}

// TestNextSelectedMatchesFilteredNext reads every fixture file twice, once
// decoding whole batches and filtering them afterwards, once decoding only
// the selected rows (and skipping batches with none): the results must be
// the same, for every column kind and encoding the fixtures hold.
func TestNextSelectedMatchesFilteredNext(t *testing.T) {
	for _, path := range fixtureParquetFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(fixtures.Path(), path)
		for name, pattern := range selectionPatterns {
			for _, batchSize := range []int{0, 333} {
				t.Run(fmt.Sprintf("%s/%s/%d", rel, name, batchSize), func(t *testing.T) {
					compareSelectedReads(t, data, pattern, batchSize)
				})
			}
		}
	}
}

// compareSelectedReads returns how many pages the selected reads
// decompressed only in part.
func compareSelectedReads(t *testing.T, data []byte, pattern selectionPattern, batchSize int) (prefixed int) {
	f := openBytes(t, data)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, uint64(batchSize)))
	cols := make([]Column, len(f.Root.Children))
	for i, n := range f.Root.Children {
		cols[i] = Column{Node: n}
	}
	for rg := range f.RowGroups {
		req := ReadRequest{Columns: cols, RowGroup: rg, Allocator: mem, BatchSize: batchSize}
		whole, err := f.NewBatchReader(req)
		if err != nil {
			t.Fatal(err)
		}
		selected, err := f.NewBatchReader(req)
		if err != nil {
			t.Fatal(err)
		}
		for {
			n, first, ok := selected.PeekRows()
			b, err := whole.Next()
			if errors.Is(err, io.EOF) {
				if ok {
					t.Fatalf("row group %d: selected reader has a batch at row %d after the last", rg, first)
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ok || n != b.NumRows || first != b.FirstRow {
				t.Fatalf("row group %d: windows differ: %d rows at %d vs %d at %d", rg, n, first, b.NumRows, b.FirstRow)
			}
			keep := make([]byte, (n+7)/8)
			kept := pattern(rng, keep, n)
			if kept == 0 {
				if skipped, err := selected.Skip(); err != nil || skipped != n {
					t.Fatalf("Skip: %d, %v", skipped, err)
				}
				b.Release()
				continue
			}
			var sel RowSelection
			if err := sel.Set(keep, n); err != nil {
				t.Fatal(err)
			}
			got, err := selected.NextSelected(&sel)
			if err != nil {
				t.Fatalf("row group %d rows %d+%d: %v", rg, first, n, err)
			}
			if got.NumRows != kept {
				t.Fatalf("NextSelected returned %d rows, %d selected", got.NumRows, kept)
			}
			for i, c := range b.Columns {
				want, err := kernels.Filter(c, keep, mem)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("row group %d rows %d+%d column %s", rg, first, n, cols[i].Node.Name)
				assertSameArrays(t, what, want, got.Columns[i])
				if want.NullN() != got.Columns[i].NullN() {
					t.Errorf("%s: %d nulls, want %d", what, got.Columns[i].NullN(), want.NullN())
				}
				want.Release()
			}
			got.Release()
			b.Release()
		}
		for _, l := range selected.Leaves {
			prefixed += l.pagesPrefixed
		}
		whole.Close()
		selected.Close()
	}
	return prefixed
}

// TestNextSelectedOnEveryEncoding compares selected and filtered reads on a
// generated file holding every primitive encoding, conversions, nulls and
// nested columns, over pages of v1 and v2, so the value-by-value decoding
// of many short runs and its in-place fallback meet every case.
func TestNextSelectedOnEveryEncoding(t *testing.T) {
	specs := append(primitiveSpecs(), nestedSpecs()...)
	// required columns whose values are converted as they are copied
	specs = append(specs,
		required("i8_req", parquet.Int(8), func(r *rand.Rand, _ int) any { return int32(int8(r.Uint32())) }),
		required("dec_i32_req", parquet.Decimal(2, 9, parquet.Int32Type), func(r *rand.Rand, _ int) any { return int32(r.Int32N(2e9) - 1e9) }),
		required("u16_req_dict", enc(parquet.Uint(16), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any { return int32(r.IntN(40)) }),
		required("bool_req_dict", enc(parquet.Leaf(parquet.BooleanType), &parquet.RLEDictionary), genBool),
		// values growing row by row outgrow the data buffer sized from the
		// first page's average
		required("str_growing", enc(parquet.String(), &parquet.Plain), func(_ *rand.Rand, i int) any { return strings.Repeat("x", i%1100/5) }))
	for _, version := range []int{1, 2} {
		data := writeSpecs(t, specs, 2500, uint64(version), parquet.DataPageVersion(version),
			parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(2048), parquet.MaxRowsPerRowGroup(1100))
		for name, pattern := range selectionPatterns {
			for _, batchSize := range []int{0, 333} {
				t.Run(fmt.Sprintf("v%d/%s/%d", version, name, batchSize), func(t *testing.T) {
					compareSelectedReads(t, data, pattern, batchSize)
				})
			}
		}
	}
}
