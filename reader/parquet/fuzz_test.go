package parquet

import (
	"bytes"
	"github.com/apache/arrow-go/v18/arrow"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
)

// Garbage must give errors, never panics. The API recovers panics as a
// last resort; these targets fail on a recovered panic too, so the fuzzer
// still finds the missing check behind it.

func addFuzzSeeds(f *testing.F) {
	for _, path := range fixtureParquetFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 8<<10 { // small seeds keep mutation and minimisation fast
			f.Add(data)
		}
	}
	// Small files covering the encodings and nesting the fixtures lack.
	specs := append(primitiveSpecs(), nestedSpecs()...)
	for i := 0; i < len(specs); i += 6 {
		group := specs[i:min(i+6, len(specs))]
		for _, version := range []int{1, 2} {
			f.Add(writeSpecs(f, group, 12, uint64(i), parquet.DataPageVersion(version), parquet.PageBufferSize(256), parquet.Compression(&parquet.Snappy)))
		}
	}
}

func failOnRecoveredPanic(t *testing.T, err error) {
	if err != nil && strings.Contains(err.Error(), "recovered panic") {
		t.Fatal(err)
	}
}

func FuzzOpenFile(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := OpenFile(bytes.NewReader(data), int64(len(data)), nil)
		failOnRecoveredPanic(t, err)
		if err != nil {
			return
		}
		for _, n := range file.Nodes {
			_, err := DefaultArrowType(n)
			failOnRecoveredPanic(t, err)
			_ = n.DottedPath()
		}
		for i := range file.RowGroups {
			for j := range file.RowGroups[i].Columns {
				c := &file.RowGroups[i].Columns[j]
				if _, err := file.OffsetIndex(c); err != nil {
					failOnRecoveredPanic(t, err)
				}
				if _, err := file.ColumnIndex(c); err != nil {
					failOnRecoveredPanic(t, err)
				}
			}
		}
	})
}

// nextFuzzBatch reads batch i whole, or for a selection that drops every
// third row (many short runs: decoded value by value) or keeps the first
// half (one run: decoded run by run), so corrupt pages meet every path.
func nextFuzzBatch(br *BatchReader, sel *RowSelection, i int) (*Batch, error) {
	n, _, ok := br.PeekRows()
	if !ok || i%3 == 0 {
		return br.Next()
	}
	keep := make([]byte, (n+7)/8)
	for r := range n {
		if i%3 == 1 && r%3 != 2 || i%3 == 2 && r < (n+1)/2 {
			keep[r>>3] |= 1 << (r & 7)
		}
	}
	if err := sel.Set(keep, n); err != nil {
		return nil, err
	}
	return br.NextSelected(sel)
}

func FuzzDecode(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Half the inputs are read through 100-byte chunk windows with a
		// page cap (a memory limit's reads): the streamed header re-parse
		// and the refusals are fuzzed too.
		var opts *OpenOptions
		if len(data)%2 == 1 {
			opts = &OpenOptions{Fetch: FetchOptions{ChunkWindow: 100, MaxPageBytes: 1 << 20}}
		}
		file, err := OpenFile(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			failOnRecoveredPanic(t, err)
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		var cols []Column
		for _, n := range file.Root.Children {
			if _, err := DefaultArrowType(n); err == nil {
				cols = append(cols, Column{Node: n})
			}
		}
		for rg := range file.RowGroups {
			br, err := file.NewBatchReader(ReadRequest{Columns: cols, RowGroup: rg, Allocator: mem, BatchSize: 16, VerifyCRC: rg%2 == 0})
			failOnRecoveredPanic(t, err)
			if err != nil {
				continue
			}
			var sel RowSelection
			for i := range 64 { // corrupt row counts may be huge; a few batches show the decoder's behaviour
				b, err := nextFuzzBatch(br, &sel, i)
				failOnRecoveredPanic(t, err)
				if err != nil {
					break
				}
				for _, c := range b.Columns {
					// Marshalling touches every value: inconsistent offsets
					// or lengths in our output would panic here.
					if _, err := c.MarshalJSON(); err != nil {
						t.Fatal(err)
					}
				}
				b.Release()
			}
			br.Close()
			fuzzTested(t, file, cols, rg, mem)
		}
		if mem.CurrentAlloc() != 0 {
			t.Fatalf("%d bytes of Arrow memory leaked", mem.CurrentAlloc())
		}
	})
}

// fuzzTested reads each flat column of row group rg as a filter does
// (NextTested, every other value passing), with and without a selection
// and values, so the dictionary-verdict path meets corrupt pages too.
func fuzzTested(t *testing.T, file *File, cols []Column, rg int, mem memory.Allocator) {
	everyOther := func(values arrow.Array, pass []byte) error {
		for i := 0; i < values.Len(); i += 2 {
			pass[i>>3] |= 1 << (i & 7)
		}
		return nil
	}
	for c, col := range cols {
		br, err := file.NewBatchReader(ReadRequest{Columns: []Column{col}, RowGroup: rg, Allocator: mem, BatchSize: 16})
		failOnRecoveredPanic(t, err)
		if err != nil {
			continue
		}
		if br.SetTest(everyOther) {
			var sel RowSelection
			for i := range 16 {
				n, _, ok := br.PeekRows()
				if !ok {
					break
				}
				var s *RowSelection
				if i%2 == 1 {
					keep := make([]byte, (n+7)/8)
					for r := 0; r < n; r += 3 {
						keep[r>>3] |= 1 << (r & 7)
					}
					failOnRecoveredPanic(t, sel.Set(keep, n))
					s = &sel
				}
				got, err := br.NextTested(s, make([]byte, (n+7)/8), (i+c)%2 == 0)
				failOnRecoveredPanic(t, err)
				if err != nil {
					break
				}
				if got != nil {
					if _, err := got.MarshalJSON(); err != nil {
						t.Fatal(err)
					}
					got.Release()
				}
			}
		}
		br.Close()
	}
}
